"""Goal checks, evaluated after every action: state, location, put-away, action and contents goals.

Our reading where the plan format leaves it open:
- A state goal on a sliceable type also looks at its pieces (`Egg.isCooked` holds once the EggCracked is
  cooked, `Bread.isCooked` once a BreadSliced is toasted). A goal wanting `False` must hold for every object
  of the type (every StoveKnob off); a goal wanting `True` for at least one.
- A location goal holds when some object of the type is (at any depth) in or on an object of the destination
  type, and is not in the agent's hand.
- A put-away goal holds when every object of the type rests in one of its storage homes, not in the hand: the
  harness's preferred and secondary homes (`vocabulary.STORAGE`: food in the Fridge, silverware in a Drawer,
  dishes in a Cabinet, a Cup also on a SideTable, DiningTable or CounterTop, cookware on a CounterTop, a Pot
  also on a DiningTable, SideTable or in a Cabinet, a Pan also on a StoveBurner, DiningTable or SideTable).
- A contents goal holds when some container of the type holds (at any depth) pickupable objects of exactly
  the listed types, each at least once (appliances standing on a table do not count).
- An action goal holds once the action was done (`Drink Coffee`: coffee was drunk; `Spray Mirror`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from suite_household.catalog import TYPES
from suite_household.world import Obj, World

from suite_asgard.plans import ContentsGoal, Goals, LocationGoal, StateGoal
from suite_asgard.vocabulary import SLICED_FORM, STORAGE

_FIELDS = {
    "isToggled": lambda o: o.is_toggled,
    "isOpen": lambda o: o.is_open,
    "isDirty": lambda o: o.is_dirty,
    "isFilledWithLiquid": lambda o: o.fill is not None,
    "isCooked": lambda o: o.is_cooked,
    "isSliced": lambda o: o.is_sliced,
}


@dataclass(frozen=True)
class ActionFlags:
    """Which action goals' actions have been done."""

    drank_coffee: bool = False
    sprayed_mirror: bool = False

    def done(self, name: str) -> bool:
        """Whether the named action goal (`Drink Coffee`, `Spray Mirror`) holds."""
        return {"Drink Coffee": self.drank_coffee, "Spray Mirror": self.sprayed_mirror}.get(name, False)


def _of_type(world: World, object_type: str) -> list[Obj]:
    return [o for o in world.objects.values() if o.type == object_type]


def _in_hand(world: World, obj: Obj) -> bool:
    return obj.picked_up or (world.held is not None and world.held in world.ancestors(obj.id))


def state_holds(world: World, goal: StateGoal) -> bool:
    """Whether a state goal holds now."""
    read = _FIELDS[goal.state]
    found = _of_type(world, goal.object_type)
    piece = SLICED_FORM.get(goal.object_type)
    if piece is not None and goal.state == "isCooked":
        found += _of_type(world, piece)
    if goal.value:
        return any(read(o) for o in found)
    return all(not read(o) for o in found)


def location_holds(world: World, goal: LocationGoal) -> bool:
    """Whether some object of the type is in or on an object of the destination type."""
    for obj in _of_type(world, goal.object_type):
        if _in_hand(world, obj):
            continue
        if any(world.objects[a].type == goal.destination_type for a in world.ancestors(obj.id)):
            return True
    return False


def put_away_holds(world: World, object_type: str) -> bool:
    """Whether every object of the type is stored in one of its homes."""
    homes = STORAGE.get(object_type, ())
    found = _of_type(world, object_type)
    return bool(found) and all(
        not _in_hand(world, o) and any(world.objects[a].type in homes for a in world.ancestors(o.id)) for o in found
    )


def contents_hold(world: World, goal: ContentsGoal) -> bool:
    """Whether some container of the type holds exactly the listed types (each at least once)."""
    wanted = set(goal.contents)
    for container in _of_type(world, goal.container_type):
        present = {world.objects[d].type for d in world.descendants(container.id)
                   if TYPES[world.objects[d].type].pickupable}
        if present == wanted:
            return True
    return False


def goal_labels(goals: Goals) -> list[str]:
    """One label per goal, in evaluation order."""
    return ([g.label() for g in goals.state] + [g.label() for g in goals.location]
            + [f"{t} put away" for t in goals.put_away] + [f"action {a}" for a in goals.actions]
            + [g.label() for g in goals.contents])


def evaluate(world: World, goals: Goals, flags: ActionFlags) -> list[bool]:
    """Whether each goal holds now, in the order of `goal_labels`."""
    return ([state_holds(world, g) for g in goals.state] + [location_holds(world, g) for g in goals.location]
            + [put_away_holds(world, t) for t in goals.put_away] + [flags.done(a) for a in goals.actions]
            + [contents_hold(world, g) for g in goals.contents])


def unmet(labels: Collection[str], status: list[bool]) -> list[str]:
    """The labels of the goals that do not hold."""
    return [label for label, ok in zip(labels, status, strict=True) if not ok]
