"""AI2-THOR actions: argument checks, preconditions and direct effects, one handler per action name."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from suite_household.catalog import SLICED_INTO, TYPES, can_hold, spec
from suite_household.placement import find_spot
from suite_household.visibility import horizontal_distance, visible_objects
from suite_household.world import Agent, Obj

if TYPE_CHECKING:
    from suite_household.controller import Controller


class ActionError(Exception):
    """An action that fails: its message becomes `errorMessage`, `lastActionSuccess` is False."""


Handler = Callable[["Controller", dict[str, Any]], Any]
_TARGET = ("objectId", "x", "y", "forceAction")
_LIQUIDS = ("water", "coffee", "wine")


def target(ctl: Controller, args: dict[str, Any]) -> Obj:
    """The object an interaction addresses, by `objectId` or by pixel `x`, `y` in [0, 1]."""
    world = ctl.world
    if "objectId" in args:
        oid = args["objectId"]
        if not isinstance(oid, str) or oid not in world.objects:
            raise ActionError("Object ID appears to be invalid.")
    elif "x" in args and "y" in args:
        oid = ctl.object_at(args["x"], args["y"])
        if oid is None:
            raise ActionError("No target found")
    else:
        raise ActionError("objectId or x and y must be given")
    if not args.get("forceAction"):
        if horizontal_distance(world, oid) > ctl.interaction_distance:
            raise ActionError(f"{oid} is too far away to be interacted with")
        seen = visible_objects(world, ctl.width, ctl.height, ctl.fov, ctl.visibility_distance)
        if not seen.get(oid):
            raise ActionError(f"{oid} is not interactable and (perhaps it is occluded by something).")
    return world.objects[oid]


def _move(ctl: Controller, args: dict[str, Any], angle: float, word: str) -> None:
    mag = float(args.get("moveMagnitude", ctl.grid_size))
    a = ctl.world.agent
    rad = math.radians(a.yaw + angle)
    nx, nz = a.x + mag * math.sin(rad), a.z + mag * math.cos(rad)
    hit = ctl.nav.path_blocker(a.x, a.z, nx, nz)
    if hit is not None:
        ctl.collided = [hit]
        raise ActionError(f"{hit} is blocking Agent 0 from moving {word}")
    ctl.world.set_agent(Agent(round(nx, 4), round(nz, 4), a.yaw, a.horizon, a.standing))


def _rotate(ctl: Controller, args: dict[str, Any], sign: int) -> None:
    a = ctl.world.agent
    yaw = round((a.yaw + sign * float(args.get("degrees", ctl.rotate_step))) % 360, 4)
    ctl.world.set_agent(Agent(a.x, a.z, yaw, a.horizon, a.standing))


def _look(ctl: Controller, args: dict[str, Any], sign: int) -> None:
    a = ctl.world.agent
    horizon = a.horizon + sign * float(args.get("degrees", 30))
    if not -30.0 - 1e-6 <= horizon <= 60.0 + 1e-6:
        raise ActionError(
            f"can't look {'down' if sign > 0 else 'up'} beyond the camera's limit "
            "(horizon must stay within -30 and 60 degrees)"
        )
    ctl.world.set_agent(Agent(a.x, a.z, a.yaw, round(horizon, 4), a.standing))


def _stance(ctl: Controller, standing: bool) -> None:
    a = ctl.world.agent
    if a.standing == standing:
        raise ActionError("Agent is already " + ("standing" if standing else "crouching"))
    ctl.world.set_agent(Agent(a.x, a.z, a.yaw, a.horizon, standing))


def _teleport(ctl: Controller, args: dict[str, Any], full: bool) -> None:
    a = ctl.world.agent
    if "position" not in args and "x" in args and "z" in args:  # AI2-THOR also takes the position as x, y, z
        args = {**args, "position": {"x": args["x"], "z": args["z"]}}
    needed = ("position", "rotation", "horizon", "standing")
    if full and any(k not in args for k in needed):
        raise ActionError("TeleportFull needs position (or x, y, z), rotation, horizon and standing")
    pos = args.get("position", {"x": a.x, "z": a.z})
    rot = args.get("rotation", a.yaw)
    yaw = float(rot["y"] if isinstance(rot, dict) else rot)
    horizon = float(args.get("horizon", a.horizon))
    if not -30 <= horizon <= 60:
        raise ActionError("horizon must be within -30 and 60 degrees")
    x, z = float(pos["x"]), float(pos["z"])
    if not args.get("forceAction") and (hit := ctl.nav.blocker(x, z)) is not None:
        raise ActionError(f"Teleport failed: {hit} is blocking position ({x}, {z})")
    ctl.world.set_agent(Agent(x, z, yaw % 360, horizon, bool(args.get("standing", a.standing))))


def _reachable(ctl: Controller, args: dict[str, Any]) -> list[dict[str, float]]:
    a = ctl.world.agent
    return [{"x": x, "y": 0.901, "z": z} for x, z in ctl.nav.reachable((a.x, a.z), ctl.grid_size)]


def _pickup(ctl: Controller, args: dict[str, Any]) -> None:
    obj = target(ctl, args)
    world = ctl.world
    if world.held is not None:
        raise ActionError("Agent's hand is already holding an object")
    if not TYPES[obj.type].pickupable:
        raise ActionError(f"{obj.id} is not a Pickupable object")
    ctl.check(obj, args)
    world.reparent(obj.id, None)
    world.set(obj.id, picked_up=True)
    world.held = obj.id


def _put(ctl: Controller, args: dict[str, Any]) -> None:
    world = ctl.world
    if world.held is None:
        raise ActionError("Can't place an object if Agent isn't holding anything")
    rec = target(ctl, args)
    held = world.objects[world.held]
    if not TYPES[rec.type].receptacle:
        raise ActionError("This target object is NOT a receptacle!")
    if rec.type in ("Sink", "Bathtub"):
        basin = next(
            (world.objects[c] for c in world.children(rec.id) if world.objects[c].type.endswith("Basin")),
            None,
        )
        rec = basin or rec
    if rec.id == held.id or rec.id in world.descendants(held.id):
        raise ActionError("Cannot put an object into itself")
    if TYPES[rec.type].openable and not rec.is_open:
        raise ActionError(f"{rec.id} must be open to place objects in it")
    if not can_hold(rec.type, held.type):
        raise ActionError(f"{held.name} is not a valid Object Type to be placed in {rec.name}")
    ctl.check(rec, args)
    a = world.agent
    spot = find_spot(world, rec, held.size, ignore=held.id, prefer=(a.x, a.z) if rec.size[0] > 1.0 else None)
    if spot is None:
        raise ActionError("No valid positions to place object found")
    _land(ctl, held, rec.id, spot)


def _land(ctl: Controller, held: Obj, parent: str, spot: tuple[float, float, float]) -> None:
    world = ctl.world
    world.set(held.id, picked_up=False)
    world.held = None
    x, y, z = held.center
    world.translate(held.id, spot[0] - x, spot[1] - y, spot[2] - z)
    world.reparent(held.id, parent)
    world.set(held.id, room=world.room_at(spot[0], spot[2]) or held.room)


def _teleport_object(ctl: Controller, args: dict[str, Any]) -> None:
    """AI2-THOR's TeleportObject: the object (and what is in or on it) moves so that its `position` (the bottom
    centre of its box) is the one given, in the receptacle it is in; objects here keep their rotation."""
    world = ctl.world
    oid = args.get("objectId")
    if not isinstance(oid, str) or oid not in world.objects:
        raise ActionError("Object ID appears to be invalid.")
    obj = world.objects[oid]
    if obj.picked_up:
        raise ActionError(f"{oid} is in the agent's hand and cannot be teleported")
    turn = args.get("rotation") or {"x": 0.0, "y": obj.facing, "z": 0.0}
    off = (float(turn["y"]) - obj.facing) % 360
    if min(off, 360 - off) > 1e-3 or float(turn["x"]) or float(turn["z"]):
        raise ActionError("TeleportObject: the household simulator does not rotate objects")
    x, y, z = obj.center
    to = args["position"]
    world.translate(oid, float(to["x"]) - x, float(to["y"]) + obj.size[1] / 2 - y, float(to["z"]) - z)


def _drop(ctl: Controller, args: dict[str, Any]) -> None:
    world = ctl.world
    if world.held is None:
        raise ActionError("Agent is not holding any object")
    held = world.objects[world.held]
    a = world.agent
    room = world.room_at(a.x, a.z)
    floor = next(o for o in world.objects.values() if o.type == "Floor" and o.room == room)
    ahead = (a.x + 0.4 * math.sin(math.radians(a.yaw)), a.z + 0.4 * math.cos(math.radians(a.yaw)))
    spot = find_spot(world, floor, held.size, ignore=held.id, prefer=ahead)
    if spot is None:
        raise ActionError("No valid positions to place object found")
    _land(ctl, held, floor.id, spot)


def _open(ctl: Controller, args: dict[str, Any], opening: bool) -> None:
    obj = target(ctl, args)
    if not TYPES[obj.type].openable:
        raise ActionError(f"{obj.id} is not an Openable object")
    if obj.is_open == opening:
        raise ActionError(f"{obj.id} is already {'open' if opening else 'closed'}")
    if opening and obj.type == "Microwave" and obj.is_toggled:
        raise ActionError("Target must be OFF to open!")
    ctl.check(obj, args)
    world = ctl.world
    if obj.type == "Drawer":
        fx, fz = obj.front
        depth = (obj.size[2] if fz else obj.size[0]) * 0.7 * (1 if opening else -1)
        world.translate(obj.id, fx * depth, 0.0, fz * depth)
    world.set(obj.id, is_open=opening)


def _toggle(ctl: Controller, args: dict[str, Any], on: bool) -> None:
    obj = target(ctl, args)
    if not TYPES[obj.type].toggleable:
        raise ActionError(f"{obj.id} is not toggleable")
    if obj.is_toggled == on:
        raise ActionError(
            f"can't toggle object {'on' if on else 'off'} if it's already {'on' if on else 'off'}!"
        )
    if on and obj.type == "Microwave" and obj.is_open:
        raise ActionError("Target must be closed to toggle on!")
    ctl.check(obj, args)
    world = ctl.world
    world.set(obj.id, is_toggled=on)
    for cid in obj.controls:
        world.set(cid, is_toggled=on)
    if obj.type == "StoveBurner":
        for knob in world.objects.values():
            if obj.id in knob.controls:
                world.set(knob.id, is_toggled=on)


def _slice(ctl: Controller, args: dict[str, Any]) -> None:
    obj = target(ctl, args)
    if not TYPES[obj.type].sliceable:
        raise ActionError(f"{obj.name} Does not have the CanBeSliced property!")
    if obj.picked_up:
        raise ActionError("Cannot slice an object that is being held")
    ctl.check(obj, args)
    _split(ctl, obj)


def _split(ctl: Controller, obj: Obj) -> None:
    """Replace a whole with its pieces, nudged apart along the longer axis so the cut shows."""
    world = ctl.world
    piece_type, count = SLICED_INTO[obj.type]
    size = spec(piece_type).size
    long_x = obj.size[0] >= obj.size[2]
    step = (size[2] if long_x else size[0]) + 0.02
    x, _, z = obj.center
    y = obj.bottom + size[1] / 2
    world.remove(obj.id)
    for i in range(count):
        off = (i - (count - 1) / 2) * step
        center = (round(x + (off if long_x else 0), 4), round(y, 4), round(z + (0 if long_x else off), 4))
        piece_size = (size[2], size[1], size[0]) if long_x else size
        world.add(
            Obj(
                id=f"{obj.id}|{piece_type}_{i}",
                type=piece_type,
                name=f"{obj.name}_{piece_type}_{i}",
                center=center,
                size=piece_size,
                facing=obj.facing,
                room=obj.room,
                parent=obj.parent,
                is_sliced=True,
                is_cooked=obj.is_cooked,
                temperature=obj.temperature,
            )
        )


def _state(ctl: Controller, args: dict[str, Any], prop: str, field: str, value: Any, word: str) -> None:
    obj = target(ctl, args)
    if not getattr(TYPES[obj.type], prop):
        raise ActionError(f"{obj.id} is not {word}")
    if getattr(obj, field) == value:
        raise ActionError(
            f"{obj.id} is already {'dirty' if field == 'is_dirty' and value else 'in that state'}"
        )
    ctl.check(obj, args)
    ctl.world.set(obj.id, **{field: value})


def _fill(ctl: Controller, args: dict[str, Any]) -> None:
    obj = target(ctl, args)
    liquid = args.get("fillLiquid")
    if liquid not in _LIQUIDS:
        raise ActionError(f"fillLiquid must be one of {', '.join(_LIQUIDS)}")
    if not TYPES[obj.type].can_fill or obj.is_broken:
        raise ActionError(f"{obj.id} can't be filled with liquid")
    if obj.fill is not None:
        raise ActionError(f"{obj.id} is already filled with {obj.fill}")
    ctl.check(obj, args)
    ctl.world.set(obj.id, fill=liquid)


def _empty(ctl: Controller, args: dict[str, Any]) -> None:
    obj = target(ctl, args)
    if obj.fill is None:
        raise ActionError(f"{obj.id} is not filled with liquid")
    ctl.check(obj, args)
    ctl.world.set(obj.id, fill=None)


def _break(ctl: Controller, args: dict[str, Any]) -> None:
    obj = target(ctl, args)
    if not TYPES[obj.type].breakable:
        raise ActionError(f"{obj.id} is not breakable")
    if obj.is_broken:
        raise ActionError(f"{obj.id} is already broken")
    ctl.check(obj, args)
    if obj.type == "Egg":
        if obj.picked_up:
            ctl.world.held = None
        _split(ctl, obj)
        return
    ctl.world.set(obj.id, is_broken=True, fill=None)


def _noop(ctl: Controller, args: dict[str, Any]) -> None:
    return None


_MOVE = ("moveMagnitude",)
_DEG = ("degrees",)
# action name -> (handler, accepted arguments, whether it changes objects)
ACTIONS: dict[str, tuple[Handler, tuple[str, ...], bool]] = {
    "MoveAhead": (lambda c, a: _move(c, a, 0, "ahead"), _MOVE, False),
    "MoveBack": (lambda c, a: _move(c, a, 180, "back"), _MOVE, False),
    "MoveLeft": (lambda c, a: _move(c, a, -90, "left"), _MOVE, False),
    "MoveRight": (lambda c, a: _move(c, a, 90, "right"), _MOVE, False),
    "RotateLeft": (lambda c, a: _rotate(c, a, -1), _DEG, False),
    "RotateRight": (lambda c, a: _rotate(c, a, 1), _DEG, False),
    "LookUp": (lambda c, a: _look(c, a, -1), _DEG, False),
    "LookDown": (lambda c, a: _look(c, a, 1), _DEG, False),
    "Crouch": (lambda c, a: _stance(c, False), (), False),
    "Stand": (lambda c, a: _stance(c, True), (), False),
    "Teleport": (
        lambda c, a: _teleport(c, a, False),
        ("position", "x", "y", "z", "rotation", "horizon", "standing", "forceAction"),
        False,
    ),
    "TeleportFull": (
        lambda c, a: _teleport(c, a, True),
        ("position", "x", "y", "z", "rotation", "horizon", "standing", "forceAction"),
        False,
    ),
    "GetReachablePositions": (_reachable, (), False),
    "PickupObject": (_pickup, _TARGET, True),
    "PutObject": (_put, _TARGET + ("placeStationary",), True),
    "DropHandObject": (_drop, ("forceAction",), True),
    "TeleportObject": (_teleport_object, ("objectId", "position", "rotation", "forceAction", "forceKinematic"), True),
    "OpenObject": (lambda c, a: _open(c, a, True), _TARGET + ("openness",), True),
    "CloseObject": (lambda c, a: _open(c, a, False), _TARGET, True),
    "ToggleObjectOn": (lambda c, a: _toggle(c, a, True), _TARGET, True),
    "ToggleObjectOff": (lambda c, a: _toggle(c, a, False), _TARGET, True),
    "SliceObject": (_slice, _TARGET, True),
    "CleanObject": (lambda c, a: _state(c, a, "dirtyable", "is_dirty", False, "dirtyable"), _TARGET, True),
    "DirtyObject": (lambda c, a: _state(c, a, "dirtyable", "is_dirty", True, "dirtyable"), _TARGET, True),
    "FillObjectWithLiquid": (_fill, _TARGET + ("fillLiquid",), True),
    "EmptyLiquidFromObject": (_empty, _TARGET, True),
    "BreakObject": (_break, _TARGET, True),
    "Done": (_noop, (), False),
    "Pass": (_noop, (), False),
}
