"""The 12 high-level actions over object types, on the household simulator's AI2-THOR protocol.

FIND teleports the agent to a spot from which the object (or the closed container holding it) is in view;
every other action needs its target in view and within reach. Where a type has several instances (cabinets,
drawers, counters, burners, slices) the layer picks one: the one the agent faces, one that fits the held
object, an open one to PUT into. A PUT with no room tries the other instances of the type, walking to each
and opening it as needed. Each world rule is checked before the low-level step, so a refused action comes
back with its category (holding, visibility, incompatibility) and a readable message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from suite_asgard.vocabulary import ACTIONS, SERVING, SLICE_TARGETS
from suite_asgard.world_rules import HOLDING, INCOMPATIBILITY, VISIBILITY
from suite_household.catalog import TYPES, can_hold
from suite_household.controller import Controller
from suite_household.placement import find_spot
from suite_household.visibility import horizontal_distance, visible_objects
from suite_household.world import CROUCHING_CAMERA_Y, STANDING_CAMERA_Y, Agent, Obj, World

#: Surfaces an item must rest on to be sliced (an Egg must be in a Pan).
SLICE_SURFACES = frozenset({"CounterTop", "DiningTable", "CoffeeTable", "SideTable", "Desk", "Plate", "Pan"})
#: Dish-like types that never block the Faucet.
SINK_SAFE = frozenset({"Bowl", "Cup", "Mug", "Plate", "Pot", "Pan", "Kettle"})
SPRAYABLE = frozenset({"Mirror"})
FIND_RADIUS = 1.25
#: Receptacles no wider than this (metres) are looked at so that their contents are in view too.
SMALL_RECEPTACLE = 0.7
FIND_CANDIDATES = 48


@dataclass(frozen=True)
class Outcome:
    """What one high-level action did: success, or the undoable category and a message naming types only."""

    success: bool
    category: str | None = None
    message: str = ""


OK = Outcome(True)


def _fail(category: str, message: str) -> Outcome:
    return Outcome(False, category, message)


@dataclass
class ActionLayer:
    """Runs high-level actions on a household controller and keeps the layer's own state."""

    ctl: Controller
    facing: str | None = None
    sprayed: set[str] = field(default_factory=set)
    drank: list[str] = field(default_factory=list)
    _reach_cache: tuple[int, frozenset[str]] | None = None
    _cells: list[tuple[float, float]] | None = None

    # -- queries ---------------------------------------------------------------------------------------------
    @property
    def world(self) -> World:
        """The live world."""
        return self.ctl.world

    def held(self) -> Obj | None:
        """The held object, if any."""
        return self.world.objects[self.world.held] if self.world.held else None

    def instances(self, object_type: str) -> list[Obj]:
        """Every object of a type, in a stable order."""
        return sorted((o for o in self.world.objects.values() if o.type == object_type), key=lambda o: o.id)

    def in_reach(self) -> frozenset[str]:
        """Ids of the objects in view and within interaction distance (the held object counts)."""
        world = self.world
        if self._reach_cache is None or self._reach_cache[0] != world.version:
            seen = visible_objects(world, self.ctl.width, self.ctl.height, self.ctl.fov, self.ctl.visibility_distance)
            limit = self.ctl.interaction_distance
            ids = frozenset(oid for oid, ok in seen.items()
                            if ok and (world.objects[oid].picked_up or oid == world.held
                                       or horizontal_distance(world, oid) <= limit))
            self._reach_cache = (world.version, ids)
        return self._reach_cache[1]

    def _sees(self, ids: list[str]) -> dict[str, bool]:
        """Whether each of these objects is in view and within reach from the current pose."""
        world, ctl = self.world, self.ctl
        seen = visible_objects(world, ctl.width, ctl.height, ctl.fov, ctl.visibility_distance, only=set(ids))
        return {i: seen[i] and (i == world.held or horizontal_distance(world, i) <= ctl.interaction_distance)
                for i in ids}

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
        if not ranked:
            return _fail(VISIBILITY, f"There is no {otype} to be found.")
        for choice in ranked:
            target = self.closed_container(choice) or choice
            if self.go_to(target.id):
                self.facing = choice.id
                return OK
        return _fail(VISIBILITY, f"No spot was found from which the {otype} is in view.")

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
        return can_hold(rec.type, item.type) and find_spot(self.world, rec, item.size, ignore=item.id) is not None

    def _pickup(self, otype: str) -> Outcome:
        held = self.held()
        if not TYPES[otype].pickupable:
            return _fail(INCOMPATIBILITY, f"{otype} cannot be picked up.")
        if held is not None:
            if held.type == otype:
                return _fail(HOLDING, f"You are already holding the {otype}.")
            return _fail(HOLDING, f"Cannot pick up {otype} while holding {held.type}; PUT the {held.type} down first.")
        found = self.reachable_instances(otype)
        if not found:
            return _fail(VISIBILITY, f"Cannot pick up {otype} as it is not visible.")
        return self._low("PickupObject", found[0])

    def _put(self, rtype: str) -> Outcome:
        held = self.held()
        if held is None:
            return _fail(HOLDING, f"You are not holding anything to PUT in the {rtype}.")
        target_type = "SinkBasin" if rtype == "Sink" else rtype
        if rtype == held.type or not can_hold(target_type, held.type):
            return _fail(INCOMPATIBILITY, f"The {held.type} cannot be put in or on the {rtype}.")
        found = self.reachable_instances(rtype)
        if not found:
            return _fail(VISIBILITY, f"Cannot PUT the {held.type} in the {rtype} as no {rtype} is visible.")
        found.sort(key=lambda o: (TYPES[o.type].openable and not o.is_open, o.is_dirty, not self.fits(
            self.basin(o), held)))
        first = found[0]
        rec = self.basin(first)
        if TYPES[rec.type].openable and not rec.is_open:
            return _fail(INCOMPATIBILITY, f"The {rtype} is closed; OPEN it before you PUT something in it.")
        if rec.is_dirty:
            return _fail(INCOMPATIBILITY, f"The {rtype} is dirty; it must be clean before you PUT anything in it.")
        if self.fits(rec, held):
            outcome = self._low("PutObject", first)
            if outcome.success:
                self._keep_in_view(first, held.id)
            return outcome
        return self._put_elsewhere(held, first)

    def _keep_in_view(self, rec: Obj, item_id: str) -> None:
        """After a PUT the agent faces the receptacle and sees what it put: in a small receptacle it steps to
        a spot that sees the item; on a large one the item goes to a free spot in view (as AI2-THOR places
        objects at a point of the receptacle the agent sees)."""
        self.facing = rec.id
        if item_id in self.in_reach():
            return
        if max(rec.size[0], rec.size[2]) <= SMALL_RECEPTACLE:
            self.go_to(rec.id)
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
            x, y, z = world.objects[item_id].center
            world.translate(item_id, spot[0] - x, spot[1] - y, spot[2] - z)
            if item_id in self.in_reach():
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
        return _fail(INCOMPATIBILITY, f"There is no room for the {held.type} in any {first.type}.")

    def _open(self, rtype: str) -> Outcome:
        return self._open_close(rtype, True)

    def _close(self, rtype: str) -> Outcome:
        return self._open_close(rtype, False)

    def _open_close(self, rtype: str, opening: bool) -> Outcome:
        verb = "opened" if opening else "closed"
        if not TYPES[rtype].openable:
            return _fail(INCOMPATIBILITY, f"{rtype} cannot be {verb}.")
        found = self.reachable_instances(rtype)
        if not found:
            return _fail(VISIBILITY, f"Cannot {'open' if opening else 'close'} the {rtype} as it is not visible.")
        todo = [o for o in found if o.is_open != opening]
        if not todo:
            return _fail(INCOMPATIBILITY, f"The {rtype} is already {'open' if opening else 'closed'}.")
        held = self.held()
        if opening and held is not None:
            todo.sort(key=lambda o: not self.fits(o, held))
        rec = todo[0]
        if opening and rec.type == "Microwave" and rec.is_toggled:
            return _fail(INCOMPATIBILITY, "The Microwave is on; TOGGLE_OFF it before you OPEN it.")
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
            return _fail(INCOMPATIBILITY, f"{otype} cannot be turned {word}.")
        held = self.held()
        if otype == "Television" and (held is None or held.type != "RemoteControl"):
            return _fail(HOLDING, f"You must be holding the RemoteControl to turn the Television {word}.")
        found = self.reachable_instances(otype)
        if not found:
            return _fail(VISIBILITY, f"Cannot turn the {otype} {word} as it is not visible.")
        if otype == "StoveBurner":  # the burner under the Pan, whatever its state
            found.sort(key=lambda o: not self._holds(o, ("Pan", "Pot")))
            found = found[:1]
        todo = [o for o in found if o.is_toggled != on]
        if not todo:
            return _fail(INCOMPATIBILITY, f"The {otype} is already {word}.")
        obj = todo[0]
        if on:
            refusal = self._cannot_switch_on(obj)
            if refusal:
                return _fail(INCOMPATIBILITY, refusal)
        return self._low("ToggleObjectOn" if on else "ToggleObjectOff", obj)

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
                        "only dishes and cookware may be in it.")
        return None

    def _basin_of_faucet(self, faucet: Obj) -> Obj | None:
        basins = [o for o in self.world.objects.values() if o.type == "SinkBasin"]
        fx, _, fz = faucet.center
        basins.sort(key=lambda b: ((b.center[0] - fx) ** 2 + (b.center[2] - fz) ** 2, b.id))
        return basins[0] if basins else None

    def _slice(self, otype: str) -> Outcome:
        if otype not in SLICE_TARGETS:
            return _fail(INCOMPATIBILITY, f"{otype} cannot be sliced; only {', '.join(SLICE_TARGETS)} can.")
        held = self.held()
        if held is not None and held.type == otype:
            return _fail(HOLDING, f"You cannot SLICE the {otype} while you are holding it.")
        if otype != "Egg" and (held is None or held.type != "Knife"):
            return _fail(HOLDING, f"You must be holding the Knife to SLICE the {otype}.")
        found = self.reachable_instances(otype)
        if not found:
            return _fail(VISIBILITY, f"Cannot SLICE the {otype} as it is not visible.")
        obj = found[0]
        parent = self.world.objects[obj.parent].type if obj.parent else None
        if otype == "Egg" and parent != "Pan":
            return _fail(INCOMPATIBILITY, "The Egg must be in a Pan before you SLICE it.")
        if otype != "Egg" and parent not in SLICE_SURFACES - {"Pan"}:
            return _fail(INCOMPATIBILITY, f"The {otype} must rest on a flat surface such as a CounterTop or "
                                          "DiningTable to be sliced.")
        return self._low("SliceObject", obj)

    def _clean(self, otype: str) -> Outcome:
        if not TYPES[otype].dirtyable:
            return _fail(INCOMPATIBILITY, f"{otype} cannot be cleaned.")
        held = self.held()
        tool = "Cloth" if otype in SPRAYABLE else "DishSponge"
        if held is not None and held.type == otype:
            return _fail(HOLDING, f"The {otype} is in your hand; it must be in the SinkBasin to be cleaned.")
        if held is None or held.type != tool:
            return _fail(HOLDING, f"You must be holding the {tool} to CLEAN the {otype}.")
        found = self.reachable_instances(otype)
        if not found:
            return _fail(VISIBILITY, f"Cannot CLEAN the {otype} as it is not visible.")
        obj = found[0]
        if otype in SPRAYABLE:
            if obj.id not in self.sprayed:
                return _fail(INCOMPATIBILITY, f"SPRAY the {otype} with the SprayBottle before you CLEAN it.")
        else:
            basin = self._basin_holding(obj)
            if basin is None:
                return _fail(INCOMPATIBILITY, f"The {otype} has to be in the SinkBasin to be cleaned.")
            if not any(f.type == "Faucet" and f.is_toggled and self._basin_of_faucet(f) == basin
                       for f in self.world.objects.values()):
                return _fail(INCOMPATIBILITY, f"The Faucet must be running to CLEAN the {otype}.")
        if not obj.is_dirty:
            return _fail(INCOMPATIBILITY, f"The {otype} is already clean.")
        return self._low("CleanObject", obj)

    def _basin_holding(self, obj: Obj) -> Obj | None:
        parent = self.world.objects[obj.parent] if obj.parent else None
        return parent if parent is not None and parent.type == "SinkBasin" else None

    def _spray(self, otype: str) -> Outcome:
        held = self.held()
        if held is None or held.type != "SprayBottle":
            return _fail(HOLDING, f"You must be holding the SprayBottle to SPRAY the {otype}.")
        if otype not in SPRAYABLE:
            return _fail(INCOMPATIBILITY, f"{otype} is not something to spray; only the Mirror is.")
        found = self.reachable_instances(otype)
        if not found:
            return _fail(VISIBILITY, f"Cannot SPRAY the {otype} as it is not visible.")
        self.sprayed.add(found[0].id)
        return OK

    def _drink(self, otype: str) -> Outcome:
        held = self.held()
        if held is None or held.type != otype:
            return _fail(HOLDING, f"You must be holding the {otype} to DRINK from it.")
        if not TYPES[otype].can_fill:
            return _fail(INCOMPATIBILITY, f"The {otype} cannot hold anything to drink.")
        if held.fill is None:
            return _fail(INCOMPATIBILITY, f"The {otype} is empty; there is nothing to drink.")
        self.drank.append(held.fill)
        self.world.set(held.id, fill=None, is_dirty=True)
        return OK

    def _empty(self, otype: str) -> Outcome:
        if not TYPES[otype].can_fill:
            return _fail(INCOMPATIBILITY, f"The {otype} cannot hold liquid.")
        held = self.held()
        found = [held] if held is not None and held.type == otype else self.reachable_instances(otype)
        if not found:
            return _fail(VISIBILITY, f"Cannot EMPTY the {otype} as it is not visible.")
        if found[0].fill is None:
            return _fail(INCOMPATIBILITY, f"The {otype} holds no liquid to pour out.")
        return self._low("EmptyLiquidFromObject", found[0])

    # -- low level -------------------------------------------------------------------------------------------
    def _low(self, thor_action: str, obj: Obj) -> Outcome:
        """One AI2-THOR step on an object the layer has already checked is in view and in reach (hence
        `forceAction`); it succeeded when it changed the world (a refused step changes nothing), so the event's
        metadata (visibility of every object) is only built for a failure."""
        version = self.world.version
        event = self.ctl.step(action=thor_action, objectId=obj.id, forceAction=True, renderImage=False)
        if self.world.version != version:
            return OK
        return _fail(INCOMPATIBILITY, _types_only(event.metadata["errorMessage"], self.world))

    def go_to(self, object_id: str, need_contents: bool = False) -> bool:
        """Teleport to a reachable spot from which the object is in view and within reach.

        For a small receptacle (a toaster, a pan, a plate...) a spot that also sees everything in it is
        preferred, so what was put in stays in view; with `need_contents` no other spot will do.
        """
        world = self.world
        obj = world.objects[object_id]
        start = world.agent
        cx, cy, cz = obj.center
        stances = (True, False) if cy > 0.55 else (False, True)
        small = max(obj.size[0], obj.size[2]) <= SMALL_RECEPTACLE
        contents = [c for c in world.children(object_id) if not world.enclosed(c)] if small else []
        fallback = None
        for x, z in self._candidate_cells(obj):
            yaw = round(math.degrees(math.atan2(cx - x, cz - z)) % 360, 1)
            for standing in stances:
                eye = STANDING_CAMERA_Y if standing else CROUCHING_CAMERA_Y
                pitch = math.degrees(math.atan2(eye - cy, math.hypot(cx - x, cz - z)))
                pose = Agent(x, z, yaw, round(max(-30.0, min(60.0, pitch)), 1), standing)
                world.set_agent(pose)
                seen = self._sees([object_id, *contents])
                if not seen[object_id]:
                    continue
                if all(seen[c] for c in contents):
                    return True
                fallback = fallback or pose
        if need_contents:
            fallback = None
        world.set_agent(fallback or start)
        return fallback is not None

    def _candidate_cells(self, obj: Obj) -> list[tuple[float, float]]:
        if self._cells is None:
            a = self.world.agent
            self._cells = [tuple(c) for c in self.ctl.nav.reachable((a.x, a.z), self.ctl.grid_size)]
        x0, _, z0, x1, _, z1 = obj.box
        scored = []
        for x, z in self._cells:
            d = math.hypot(max(x0 - x, 0, x - x1), max(z0 - z, 0, z - z1))
            if d <= FIND_RADIUS:
                scored.append((round(abs(d - 0.6), 3), x, z))
        scored.sort()
        return [(x, z) for _, x, z in scored[:FIND_CANDIDATES]]


def _types_only(message: str, world: World) -> str:
    """An error message with object ids and instance names replaced by their types."""
    for obj in world.objects.values():
        message = message.replace(obj.id, obj.type).replace(obj.name, obj.type)
    return message
