"""Composable state-change rules: AI2-THOR's effects, plus stricter preconditions a benchmark can add."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from suite_household.catalog import TYPES
from suite_household.world import Obj, World

# A precondition sees the world, the action name, its resolved target (or None) and its arguments, and returns
# an error message to fail the action, or None to let it run.
Precondition = Callable[[World, str, Obj | None, Mapping[str, Any]], str | None]
# An effect is applied after every successful action that changed objects.
Effect = Callable[[World], None]


@dataclass(frozen=True)
class RuleSet:
    """Preconditions per action name and effects; `extend` returns a new set with more of both."""

    preconditions: Mapping[str, tuple[Precondition, ...]] = field(default_factory=dict)
    effects: tuple[Effect, ...] = ()

    def extend(
        self,
        preconditions: Mapping[str, list[Precondition]] | None = None,
        effects: list[Effect] | None = None,
    ) -> RuleSet:
        """A copy with extra preconditions (appended per action) and extra effects (run after these)."""
        pre = {k: tuple(v) for k, v in self.preconditions.items()}
        for action, fns in (preconditions or {}).items():
            pre[action] = pre.get(action, ()) + tuple(fns)
        return RuleSet(pre, self.effects + tuple(effects or ()))

    def check(self, world: World, action: str, target: Obj | None, args: Mapping[str, Any]) -> str | None:
        """The first precondition error for this action, or None."""
        for fn in self.preconditions.get(action, ()):
            error = fn(world, action, target, args)
            if error:
                return error
        return None

    def settle(self, world: World) -> None:
        """Apply every effect once."""
        for fn in self.effects:
            fn(world)


def _contents(world: World, object_id: str) -> list[Obj]:
    return [world.objects[c] for c in world.descendants(object_id)]


def heat_sources_cook(world: World) -> None:
    """A switched-on microwave, toaster or stove burner cooks and heats what it holds (through a pan)."""
    hot: set[str] = set()
    for obj in list(world.objects.values()):
        if TYPES[obj.type].heat_source and obj.is_toggled:
            for item in _contents(world, obj.id):
                hot.add(item.id)
                if TYPES[item.type].cookable and not item.is_cooked:
                    world.set(item.id, is_cooked=True)
    cold = {c for o in world.objects.values() if TYPES[o.type].cold_source for c in world.descendants(o.id)}
    for oid, obj in list(world.objects.items()):
        temp = "Hot" if oid in hot else "Cold" if oid in cold else "RoomTemp"
        if obj.temperature != temp:
            world.set(oid, temperature=temp)


def faucet_washes(world: World) -> None:
    """A running faucet cleans and fills with water whatever is in the basin under it."""
    for faucet in list(world.objects.values()):
        if faucet.type != "Faucet" or not faucet.is_toggled:
            continue
        basin = _basin_under(world, faucet)
        if basin is None:
            continue
        for item in _contents(world, basin.id):
            t = TYPES[item.type]
            if t.dirtyable and item.is_dirty:
                world.set(item.id, is_dirty=False)
            if t.can_fill and not item.fill and not item.is_broken:
                world.set(item.id, fill="water")


def _basin_under(world: World, faucet: Obj) -> Obj | None:
    fx, _, fz = faucet.center
    best = None
    for o in world.objects.values():
        if o.type in ("SinkBasin", "BathtubBasin"):
            d = (o.center[0] - fx) ** 2 + (o.center[2] - fz) ** 2
            if d < 1.0 and (best is None or d < best[0]):
                best = (d, o)
    return best[1] if best else None


def coffee_machine_fills(world: World) -> None:
    """A switched-on coffee machine fills the container under it with coffee."""
    for machine in list(world.objects.values()):
        if machine.type == "CoffeeMachine" and machine.is_toggled:
            for oid in world.children(machine.id):
                item = world.objects[oid]
                if TYPES[item.type].can_fill and item.fill != "coffee" and not item.is_broken:
                    world.set(oid, fill="coffee")


def thor_rules() -> RuleSet:
    """AI2-THOR's own state changes: cooking and heating, washing and filling at the faucet, coffee."""
    return RuleSet({}, (heat_sources_cook, faucet_washes, coffee_machine_fills))


# -- stricter preconditions a benchmark can add (AsgardBench's world rules are built from these) -------------
def _held(world: World) -> Obj | None:
    return world.objects[world.held] if world.held else None


def knife_to_slice(world: World, action: str, target: Obj | None, args: Mapping[str, Any]) -> str | None:
    """Slicing needs a held Knife or ButterKnife, except cracking an Egg."""
    held = _held(world)
    if (
        target is not None
        and target.type != "Egg"
        and (held is None or held.type not in ("Knife", "ButterKnife"))
    ):
        return f"Must be holding a knife to slice {target.type}"
    return None


FLAT_SURFACES = frozenset({"CounterTop", "DiningTable", "CoffeeTable", "SideTable", "Desk", "Plate", "Pan"})


def slice_on_flat_surface(
    world: World, action: str, target: Obj | None, args: Mapping[str, Any]
) -> str | None:
    """The thing to slice rests on a flat surface; an Egg must be in a Pan."""
    if target is None:
        return None
    parent = world.objects[target.parent].type if target.parent else None
    if target.type == "Egg":
        return None if parent == "Pan" else "The Egg must be in a Pan before it is cracked"
    if parent not in FLAT_SURFACES:
        return f"{target.type} must be on a flat surface to slice"
    return None


def put_into_clean(world: World, action: str, target: Obj | None, args: Mapping[str, Any]) -> str | None:
    """Nothing can be put into or onto a dirty receptacle."""
    if target is not None and target.is_dirty:
        return f"The {target.type} must be clean to put something in it"
    return None


DISHES = frozenset({"Bowl", "Cup", "Mug", "Plate", "Pot", "Pan", "Kettle"})


def faucet_basin_rule(allowed: frozenset[str]) -> Precondition:
    """A precondition: a Faucet turns on only when its basin is empty or holds nothing but `allowed` types."""

    def rule(world: World, action: str, target: Obj | None, args: Mapping[str, Any]) -> str | None:
        if target is None or target.type != "Faucet":
            return None
        basin = _basin_under(world, target)
        if basin is None:
            return None
        blocking = [
            world.objects[c].type for c in world.children(basin.id) if world.objects[c].type not in allowed
        ]
        return f"{blocking[0]} in the SinkBasin blocks the Faucet" if blocking else None

    return rule


#: A Faucet turns on only when its basin is empty or holds dishes and cookware.
faucet_needs_clear_basin = faucet_basin_rule(DISHES)
#: As faucet_needs_clear_basin, and a DishSponge in the basin does not block it (AsgardBench's harness).
faucet_tolerates_sponge = faucet_basin_rule(DISHES | {"DishSponge"})


#: AsgardBench's harness: what these foods rest on must be surfaces only (no container, no plate) ...
SLICE_ON_COUNTER_FOODS = frozenset({"Apple", "Bread", "Lettuce", "Potato", "Tomato"})
#: ... of these types (its surface class, shelves included) ...
SLICE_SURFACES = frozenset({"CounterTop", "DiningTable", "Shelf", "ShelvingUnit", "SideTable", "Floor", "StoveBurner"})
#: ... and their base must be at least this high (metres): nothing is sliced on a low shelf or the floor.
SLICE_MIN_HEIGHT = 0.52


def slice_where_the_harness_does(
    world: World, action: str, target: Obj | None, args: Mapping[str, Any]
) -> str | None:
    """AsgardBench's harness: an Apple, Bread, Lettuce, Potato or Tomato is sliced only when everything holding it is
    a surface (a CounterTop, a table, a shelf, ...; not a Plate or a container) and its base is at least 0.52 m
    above the floor (AI2-THOR's `position.y`); anything else (an Egg) is sliced or cracked wherever it lies."""
    if target is None or target.type not in SLICE_ON_COUNTER_FOODS:
        return None
    holders = [world.objects[i].type for i in world.ancestors(target.id)]
    if not holders or any(t not in SLICE_SURFACES for t in holders):
        return f"{target.type} must be on a countertop to slice"
    if target.center[1] - target.size[1] / 2 < SLICE_MIN_HEIGHT:
        return f"{target.type} must be on a surface higher than {SLICE_MIN_HEIGHT} m to slice"
    return None


def coffee_needs_clean_empty_mug(
    world: World, action: str, target: Obj | None, args: Mapping[str, Any]
) -> str | None:
    """A CoffeeMachine turns on only when the first thing in it is a clean, empty Mug (AsgardBench's harness)."""
    if target is None or target.type != "CoffeeMachine":
        return None
    inside = [world.objects[c] for c in world.children(target.id)]
    if not inside:
        return "The CoffeeMachine holds no Mug"
    first = inside[0]
    if first.type != "Mug":
        return f"The CoffeeMachine holds a {first.type}, not a Mug"
    if first.fill is not None:
        return "The Mug in the CoffeeMachine is not empty"
    if first.is_dirty:
        return "The Mug in the CoffeeMachine is dirty"
    return None


def stove_needs_pan(world: World, action: str, target: Obj | None, args: Mapping[str, Any]) -> str | None:
    """A StoveBurner (or its knob) turns on only with a Pan or Pot on the burner."""
    if target is None or target.type not in ("StoveBurner", "StoveKnob"):
        return None
    burners = [target.id] if target.type == "StoveBurner" else list(target.controls)
    for b in burners:
        if any(world.objects[c].type in ("Pan", "Pot") for c in world.children(b)):
            return None
    return "A Pan must be on the StoveBurner before it is turned on"


def television_needs_remote(
    world: World, action: str, target: Obj | None, args: Mapping[str, Any]
) -> str | None:
    """The Television is switched with a held RemoteControl."""
    held = _held(world)
    if target is not None and target.type == "Television" and (held is None or held.type != "RemoteControl"):
        return "Must be holding the RemoteControl to switch the Television"
    return None


def clean_at_sink(world: World, action: str, target: Obj | None, args: Mapping[str, Any]) -> str | None:
    """Dishes are cleaned in a SinkBasin under a running Faucet while holding a DishSponge."""
    if target is None or target.type == "Mirror":
        return None
    parent = world.objects[target.parent] if target.parent else None
    if parent is None or parent.type != "SinkBasin":
        return f"{target.type} must be in the SinkBasin to clean"
    held = _held(world)
    if held is None or held.type != "DishSponge":
        return "Must be holding a DishSponge to clean"
    if not any(
        f.type == "Faucet" and f.is_toggled and _basin_under(world, f) == parent
        for f in world.objects.values()
    ):
        return "The Faucet must be on to clean"
    return None


def kitchen_world_rules() -> RuleSet:
    """AI2-THOR's rules plus AsgardBench-style kitchen preconditions (knife, surfaces, clean dishes, ...)."""
    return thor_rules().extend(
        {
            "SliceObject": [knife_to_slice, slice_on_flat_surface],
            "PutObject": [put_into_clean],
            "ToggleObjectOn": [faucet_needs_clear_basin, stove_needs_pan, television_needs_remote],
            "ToggleObjectOff": [television_needs_remote],
            "CleanObject": [clean_at_sink],
        }
    )
