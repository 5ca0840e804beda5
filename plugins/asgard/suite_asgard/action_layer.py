"""The 12 high-level actions over object types, on the household simulator's AI2-THOR protocol.

FIND teleports the agent to a spot from which the object (or the closed container holding it) is in view;
every other action needs its target in view and within reach. Where a type has several instances (cabinets,
drawers, counters, burners, slices) the layer picks one: the one the agent faces, one that fits the held
object, an open one to PUT into. A PUT with no room tries the other instances of the type, walking to each
and opening it as needed. Each world rule is checked before the low-level step, so a refused action comes
back with its category (holding, visibility, incompatibility) and a readable message.

The preconditions are the official harness's: a Knife or a ButterKnife slices, an Egg is cracked wherever it
lies, the DishSponge may stay in the basin while the Faucet runs, the CoffeeMachine needs a clean, empty Mug
in it, and a sliced whole stays known as sliced (AI2-THOR keeps it, with `isSliced`): FIND on it is an invalid
object, SLICE on it is refused as already sliced.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from suite_household.catalog import TYPES, can_hold
from suite_household.placement import find_spot
from suite_household.rules import SLICE_MIN_HEIGHT, coffee_needs_clean_empty_mug, slice_where_the_harness_does
from suite_household.visibility import horizontal_distance
from suite_household.world import Obj, World

from suite_asgard.action_outcome import OK, Outcome, Simulator, fail
from suite_asgard.vocabulary import ACTIONS, SERVING, SLICE_TARGETS, SLICED_FORM
from suite_asgard.world_rules import HOLDING, INCOMPATIBILITY, INVALID_OBJECT, VISIBILITY

#: What a held object must be to SLICE anything but an Egg (the harness accepts any "Knife" in the name).
KNIVES = frozenset({"Knife", "ButterKnife"})
#: Types that never block the Faucet: dishes, cookware and the DishSponge.
SINK_SAFE = frozenset({"Bowl", "Cup", "Mug", "Plate", "Pot", "Pan", "Kettle", "DishSponge"})
#: Containers whose water is poured out after every TOGGLE_OFF (the harness's clean-up after washing).
WATER_EMPTIED = frozenset({"Bowl", "Cup", "Mug", "Pot", "Pan", "Plate"})
SPRAYABLE = frozenset({"Mirror"})
#: Receptacles no wider than this (metres) are looked at so that their contents are in view too.
SMALL_RECEPTACLE = 0.7


@dataclass
class ActionLayer:
    """Runs high-level actions on a simulator backend and keeps the layer's own state."""

    sim: Simulator
    facing: str | None = None
    sprayed: set[str] = field(default_factory=set)
    drank: list[str] = field(default_factory=list)
    sliced: set[str] = field(default_factory=set)

    # -- queries ---------------------------------------------------------------------------------------------
    @property
    def world(self) -> World:
        """The simulator's current state."""
        return self.sim.world

    def held(self) -> Obj | None:
        """The held object, if any."""
        world = self.world
        return world.objects[world.held] if world.held else None

    def instances(self, object_type: str) -> list[Obj]:
        """Every object of a type, in a stable order (not a sliced whole, which AI2-THOR keeps out of sight)."""
        return sorted((o for o in self.world.objects.values() if o.type == object_type and not self._sliced_whole(o)),
                      key=lambda o: o.id)

    @staticmethod
    def _sliced_whole(obj: Obj) -> bool:
        return obj.is_sliced and obj.type in SLICED_FORM

    def already_sliced(self, object_type: str) -> bool:
        """Whether the type was sliced and no whole of it is left (the household simulator drops the whole; AI2-THOR
        keeps it with `isSliced`)."""
        if self.instances(object_type):
            return False
        return object_type in self.sliced or any(o.type == object_type and self._sliced_whole(o)
                                                 for o in self.world.objects.values())

    def in_reach(self) -> frozenset[str]:
        """Ids of the objects in view and within interaction distance (the held object counts)."""
        return self.sim.in_reach()

    def go_to(self, object_id: str, need_contents: bool = False) -> bool:
        """Stand where the object is in view and in reach (see the backend's go_to)."""
        return self.sim.go_to(object_id, need_contents)

    def reachable_instances(self, object_type: str) -> list[Obj]:
        """The instances of a type that are in view and within reach, most preferred first."""
        reach = self.in_reach()
        found = [o for o in self.instances(object_type) if o.id in reach and not o.picked_up]
        return sorted(found, key=self._preference)

    def _preference(self, obj: Obj) -> tuple:
        world = self.world
        faced = self.facing is not None and (obj.id == self.facing or self.facing in world.ancestors(obj.id))
        loose = not any(world.objects[a].type in SERVING for a in world.ancestors(obj.id))
        return (not faced, not loose, round(self._off_center(obj), 3), obj.id)

    def _off_center(self, obj: Obj) -> float:
        a = self.world.agent
        cx, cy, cz = a.camera
        x, y, z = obj.center
        yaw = math.degrees(math.atan2(x - cx, z - cz))
        dyaw = abs((yaw - a.yaw + 180) % 360 - 180)
        pitch = math.degrees(math.atan2(cy - y, math.hypot(x - cx, z - cz)))
        return math.hypot(dyaw, pitch - a.horizon)

    # -- the actions -----------------------------------------------------------------------------------------
    def execute(self, action: str, object_type: str) -> Outcome:
        """Run `ACTION OBJECT` (a valid action word and an object type of the scene)."""
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        handler: Callable[[str], Outcome] = getattr(self, f"_{action.lower()}")
        return handler(object_type)

    def _find(self, otype: str) -> Outcome:
        held = self.held()
        if held is not None and held.type == otype:
            return OK
        ranked = self.find_order(otype)
        if not ranked and self.already_sliced(otype):
            return Outcome(False, None, f"The {otype} is already sliced; look for its pieces ({SLICED_FORM[otype]}).",
                           kind=INVALID_OBJECT)
        if not ranked:
            return fail(VISIBILITY, f"There is no {otype} to be found.")
        for choice in ranked:
            target = self.closed_container(choice) or choice
            if self.go_to(target.id):
                self.facing = choice.id
                return OK
        return fail(VISIBILITY, f"No spot was found from which the {otype} is in view.")

    def find_order(self, otype: str) -> list[Obj]:
        """The instances FIND tries, best first: fits the held object, open, in use, loose, near."""
        held = self.held()
        world = self.world

        def rank(o: Obj) -> tuple:
            fits = held is None or not TYPES[o.type].receptacle or self.fits(self.basin(o), held)
            loose = not any(world.objects[a].type in SERVING for a in world.ancestors(o.id))
            is_open = TYPES[o.type].openable and o.is_open
            busy = o.type == "StoveBurner" and (o.is_toggled or self._holds(o, ("Pan", "Pot")))
            return (not fits, not is_open, not busy, not loose, round(horizontal_distance(world, o.id), 2), o.id)

        return sorted((o for o in self.instances(otype) if not o.picked_up), key=rank)

    def _holds(self, rec: Obj, types: Iterable[str]) -> bool:
        wanted = set(types)
        return any(self.world.objects[c].type in wanted for c in self.world.children(rec.id))

    def closed_container(self, obj: Obj) -> Obj | None:
        """The innermost closed container around an object, if any."""
        for aid in self.world.ancestors(obj.id):
            anc = self.world.objects[aid]
            if TYPES[anc.type].openable and not anc.is_open:
                return anc
        return None

    def fits(self, rec: Obj, item: Obj) -> bool:
        """Whether the item is accepted by and has room in or on the receptacle."""
        return can_hold(rec.type, item.type) and self.sim.fits(rec, item)

    def _pickup(self, otype: str) -> Outcome:
        held = self.held()
        if not TYPES[otype].pickupable:
            return fail(INCOMPATIBILITY, f"{otype} cannot be picked up.")
        if held is not None:
            if held.type == otype:
                return fail(HOLDING, f"You are already holding the {otype}.")
            return fail(HOLDING, f"Cannot pick up {otype} while holding {held.type}; PUT the {held.type} down first.")
        found = self.reachable_instances(otype)
        if not found:
            return fail(VISIBILITY, f"Cannot pick up {otype} as it is not visible.")
        return self._low("PickupObject", found[0])

    def _put(self, rtype: str) -> Outcome:
        held = self.held()
        if held is None:
            return fail(HOLDING, f"You are not holding anything to PUT in the {rtype}.")
        target_type = "SinkBasin" if rtype == "Sink" else rtype
        if rtype == held.type or not can_hold(target_type, held.type):
            return fail(INCOMPATIBILITY, f"The {held.type} cannot be put in or on the {rtype}.")
        found = self.reachable_instances(rtype)
        if not found:
            return fail(VISIBILITY, f"Cannot PUT the {held.type} in the {rtype} as no {rtype} is visible.")
        found.sort(key=lambda o: (TYPES[o.type].openable and not o.is_open, o.is_dirty, not self.fits(
            self.basin(o), held)))
        first = found[0]
        rec = self.basin(first)
        if TYPES[rec.type].openable and not rec.is_open:
            return fail(INCOMPATIBILITY, f"The {rtype} is closed; OPEN it before you PUT something in it.")
        if rec.is_dirty:
            return fail(INCOMPATIBILITY, f"The {rtype} is dirty; it must be clean before you PUT anything in it.")
        if self.fits(rec, held):
            outcome = self._low("PutObject", first)
            if outcome.success:
                self._keep_in_view(first, held.id)
            if outcome.success or len(self.instances(first.type)) == 1:
                return outcome
        return self._put_elsewhere(held, first)

    def _keep_in_view(self, rec: Obj, item_id: str) -> None:
        """After a PUT the agent faces the receptacle and sees what it put: when the item is out of view, the
        agent steps to see a small receptacle's contents, or the item moves to a free spot in view on a large
        one (the spots nearest the agent first, as AI2-THOR tries a receptacle's points for an unforced PUT)."""
        self.facing = rec.id
        sim = self.sim
        if item_id in sim.in_reach():
            return
        if max(rec.size[0], rec.size[2]) <= SMALL_RECEPTACLE:
            sim.go_to(rec.id)
            return
        world = self.world
        item = world.objects[item_id]
        a = world.agent
        x0, _, z0, x1, _, z1 = rec.box
        points = [(x0 + (x1 - x0) * (i + 0.5) / 6, z0 + (z1 - z0) * (j + 0.5) / 6) for i in range(6) for j in range(6)]
        points.sort(key=lambda p: (round((p[0] - a.x) ** 2 + (p[1] - a.z) ** 2, 4), p))
        tried = set()
        for point in points:
            spot = find_spot(world, rec, item.size, ignore=item_id, prefer=point)
            if spot is None or spot in tried:
                continue
            tried.add(spot)
            sim.move_object(item_id, spot)
            if item_id in sim.in_reach():
                return

    def basin(self, obj: Obj) -> Obj:
        """A Sink's basin (what PUT Sink fills); any other object itself."""
        if obj.type != "Sink":
            return obj
        basins = [self.world.objects[c] for c in self.world.children(obj.id)
                  if self.world.objects[c].type == "SinkBasin"]
        return basins[0] if basins else obj

    def _put_elsewhere(self, held: Obj, first: Obj) -> Outcome:
        """The first instance is full: walk to the other instances of the type, opening them as needed."""
        world = self.world
        others = [o for o in self.instances(first.type) if o.id != first.id and not o.is_dirty]
        others.sort(key=lambda o: (round(horizontal_distance(world, o.id), 2), o.id))
        for rec in others:
            if not self.fits(self.basin(rec), held) or not self.go_to(rec.id):
                continue
            opened = TYPES[rec.type].openable and not rec.is_open
            if opened and not self._low("OpenObject", rec).success:
                continue
            if self._low("PutObject", rec).success:
                self._keep_in_view(rec, held.id)
                return OK
            if opened:
                self._low("CloseObject", world.objects[rec.id])
        return fail(INCOMPATIBILITY, f"There is no room for the {held.type} in any {first.type}.")

    def _open(self, rtype: str) -> Outcome:
        return self._open_close(rtype, True)

    def _close(self, rtype: str) -> Outcome:
        return self._open_close(rtype, False)

    def _open_close(self, rtype: str, opening: bool) -> Outcome:
        verb = "opened" if opening else "closed"
        if not TYPES[rtype].openable:
            return fail(INCOMPATIBILITY, f"{rtype} cannot be {verb}.")
        found = self.reachable_instances(rtype)
        if not found:
            return fail(VISIBILITY, f"Cannot {'open' if opening else 'close'} the {rtype} as it is not visible.")
        todo = [o for o in found if o.is_open != opening]
        if not todo:
            return fail(INCOMPATIBILITY, f"The {rtype} is already {'open' if opening else 'closed'}.")
        held = self.held()
        if opening and held is not None:
            todo.sort(key=lambda o: not self.fits(o, held))
        rec = todo[0]
        if opening and rec.type == "Microwave" and rec.is_toggled:
            return fail(INCOMPATIBILITY, "The Microwave is on; TOGGLE_OFF it before you OPEN it.")
        outcome = self._low("OpenObject" if opening else "CloseObject", rec)
        if outcome.success:
            self.facing = rec.id
        return outcome

    def _toggle_on(self, otype: str) -> Outcome:
        return self._toggle(otype, True)

    def _toggle_off(self, otype: str) -> Outcome:
        return self._toggle(otype, False)

    def _toggle(self, otype: str, on: bool) -> Outcome:
        word = "on" if on else "off"
        if not TYPES[otype].toggleable:
            return fail(INCOMPATIBILITY, f"{otype} cannot be turned {word}.")
        held = self.held()
        if otype == "Television" and (held is None or held.type != "RemoteControl"):
            return fail(HOLDING, f"You must be holding the RemoteControl to turn the Television {word}.")
        found = self.reachable_instances(otype)
        if not found:
            return fail(VISIBILITY, f"Cannot turn the {otype} {word} as it is not visible.")
        if otype == "StoveBurner":  # the burner under the Pan, whatever its state
            found.sort(key=lambda o: not self._holds(o, ("Pan", "Pot")))
            found = found[:1]
        todo = [o for o in found if o.is_toggled != on]
        if not todo:
            return fail(INCOMPATIBILITY, f"The {otype} is already {word}.")
        obj = todo[0]
        if on:
            refusal = self._cannot_switch_on(obj)
            if refusal:
                return fail(INCOMPATIBILITY, refusal)
        if on:
            return self._low("ToggleObjectOn", obj)
        outcome = self._low("ToggleObjectOff", obj)
        self._pour_out_water()
        return outcome

    def _pour_out_water(self) -> None:
        """After a TOGGLE_OFF the harness pours the water out of every dish and pot (AI2-THOR's faucet fills what
        it washes; emptying it is not the agent's task). Coffee stays. The harness sends the pour unforced, so
        AI2-THOR refuses it for a container out of view or reach, which keeps its water; so does ours."""
        reach = self.in_reach()
        for obj in list(self.world.objects.values()):
            if obj.type in WATER_EMPTIED and obj.fill == "water" and obj.id in reach:
                self.sim.step("EmptyLiquidFromObject", obj.id)

    def _cannot_switch_on(self, obj: Obj) -> str | None:
        world = self.world
        if obj.type == "Microwave" and obj.is_open:
            return "The Microwave is open; CLOSE it before you TOGGLE_ON it."
        if obj.type == "StoveBurner" and not self._holds(obj, ("Pan", "Pot")):
            return "A Pan must be on the StoveBurner before you TOGGLE_ON the StoveBurner."
        if obj.type == "Faucet":
            basin = self._basin_of_faucet(obj)
            blocking = sorted({world.objects[c].type for c in world.children(basin.id)} - SINK_SAFE) if basin else []
            if blocking:
                return (f"The Faucet cannot run while the SinkBasin holds {', '.join(blocking)}; "
                        "only dishes, cookware and the DishSponge may be in it.")
        if obj.type == "CoffeeMachine" and (refusal := coffee_needs_clean_empty_mug(world, "ToggleObjectOn", obj, {})):
            return f"{refusal}; it makes coffee only into a clean, empty Mug."
        return None

    def _basin_of_faucet(self, faucet: Obj) -> Obj | None:
        basins = [o for o in self.world.objects.values() if o.type == "SinkBasin"]
        fx, _, fz = faucet.center
        basins.sort(key=lambda b: ((b.center[0] - fx) ** 2 + (b.center[2] - fz) ** 2, b.id))
        return basins[0] if basins else None

    def _slice(self, otype: str) -> Outcome:
        if otype not in SLICE_TARGETS:
            return fail(INCOMPATIBILITY, f"{otype} cannot be sliced; only {', '.join(SLICE_TARGETS)} can.")
        if self.already_sliced(otype):
            return fail(INCOMPATIBILITY, f"The {otype} is already sliced.")
        held = self.held()
        if held is not None and held.type == otype:
            return fail(HOLDING, f"You cannot SLICE the {otype} while you are holding it.")
        if otype != "Egg" and (held is None or held.type not in KNIVES):
            return fail(HOLDING, f"You must be holding the Knife to SLICE the {otype}.")
        found = self.reachable_instances(otype)
        if not found:
            return fail(VISIBILITY, f"Cannot SLICE the {otype} as it is not visible.")
        obj = found[0]
        if slice_where_the_harness_does(self.world, "SliceObject", obj, {}) is not None:
            return fail(INCOMPATIBILITY, f"The {otype} must be on a CounterTop or another surface at least "
                                          f"{SLICE_MIN_HEIGHT} m high (not on a Plate, in a container or on a low "
                                          "shelf) to be sliced.")
        outcome = self._low("SliceObject", obj)
        if outcome.success:
            self.sliced.add(otype)
        return outcome

    def _clean(self, otype: str) -> Outcome:
        if not TYPES[otype].dirtyable:
            return fail(INCOMPATIBILITY, f"{otype} cannot be cleaned.")
        held = self.held()
        tool = "Cloth" if otype in SPRAYABLE else "DishSponge"
        if held is not None and held.type == otype:
            return fail(HOLDING, f"The {otype} is in your hand; it must be in the SinkBasin to be cleaned.")
        if held is None or held.type != tool:
            return fail(HOLDING, f"You must be holding the {tool} to CLEAN the {otype}.")
        found = self.reachable_instances(otype)
        if not found:
            return fail(VISIBILITY, f"Cannot CLEAN the {otype} as it is not visible.")
        obj = found[0]
        if otype in SPRAYABLE:
            if obj.id not in self.sprayed:
                return fail(INCOMPATIBILITY, f"SPRAY the {otype} with the SprayBottle before you CLEAN it.")
        else:
            basin = self._basin_holding(obj)
            if basin is None:
                return fail(INCOMPATIBILITY, f"The {otype} has to be in the SinkBasin to be cleaned.")
            if not any(f.type == "Faucet" and f.is_toggled and self._basin_of_faucet(f) == basin
                       for f in self.world.objects.values()):
                return fail(INCOMPATIBILITY, f"The Faucet must be running to CLEAN the {otype}.")
        if not obj.is_dirty:  # scrubbing a clean object changes nothing (AI2-THOR's faucet may have washed it)
            return OK
        return self._low("CleanObject", obj)

    def _basin_holding(self, obj: Obj) -> Obj | None:
        parent = self.world.objects[obj.parent] if obj.parent else None
        return parent if parent is not None and parent.type == "SinkBasin" else None

    def _spray(self, otype: str) -> Outcome:
        held = self.held()
        if held is None or held.type != "SprayBottle":
            return fail(HOLDING, f"You must be holding the SprayBottle to SPRAY the {otype}.")
        if otype not in SPRAYABLE:
            return fail(INCOMPATIBILITY, f"{otype} is not something to spray; only the Mirror is.")
        found = self.reachable_instances(otype)
        if not found:
            return fail(VISIBILITY, f"Cannot SPRAY the {otype} as it is not visible.")
        self.sprayed.add(found[0].id)
        return OK

    def _drink(self, otype: str) -> Outcome:
        held = self.held()
        if held is None or held.type != otype:
            return fail(HOLDING, f"You must be holding the {otype} to DRINK from it.")
        if not TYPES[otype].can_fill:
            return fail(INCOMPATIBILITY, f"The {otype} cannot hold anything to drink.")
        if held.fill is None:
            return fail(INCOMPATIBILITY, f"The {otype} is empty; there is nothing to drink.")
        self.drank.append(held.fill)
        self.sim.set_state(held.id, fill=None, is_dirty=True)
        return OK

    def _empty(self, otype: str) -> Outcome:
        if not TYPES[otype].can_fill:
            return fail(INCOMPATIBILITY, f"The {otype} cannot hold liquid.")
        held = self.held()
        found = [held] if held is not None and held.type == otype else self.reachable_instances(otype)
        if not found:
            return fail(VISIBILITY, f"Cannot EMPTY the {otype} as it is not visible.")
        if found[0].fill is None:
            return fail(INCOMPATIBILITY, f"The {otype} holds no liquid to pour out.")
        return self._low("EmptyLiquidFromObject", found[0])

    # -- low level -------------------------------------------------------------------------------------------
    def _low(self, thor_action: str, obj: Obj) -> Outcome:
        error = self.sim.step(thor_action, obj.id)
        return OK if error is None else Outcome(False, INCOMPATIBILITY, _types_only(error, self.world), attempted=True)


def _types_only(message: str, world: World) -> str:
    """An error message with object ids and instance names replaced by their types."""
    for obj in world.objects.values():
        message = message.replace(obj.id, obj.type).replace(obj.name, obj.type)
    return message
