"""A plan's scene on the household simulator: its FloorPlan's objects, then the plan's object setup.

Steps, after the paper's generator (A.3): lay out a room of the FloorPlan's type holding the sanitised
inventory (seeded with the plan's seed); put the task's objects on visible surfaces (never inside a closed
container, never already where a put-away goal wants them when another start surface exists, on the plan's
container types when it names some) with nothing resting on them; keep silverware out of the sink; randomise
the sink's contents in kitchens; clutter the dining table of a table-setting task; apply the setup actions
(dirty, fill, ...); and stand the agent at the scene's start spot with the plan's heading, camera pitch and
stance.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from suite_household.catalog import TYPES, can_hold, spec
from suite_household.controller import Controller
from suite_household.generator import floorplan_room_type, generate_room
from suite_household.placement import find_spot
from suite_household.world import Agent, Obj, Scene, World

from suite_asgard.action_layer import ActionLayer
from suite_asgard.household_sim import HouseholdSim
from suite_asgard.plans import Plan, SetupAction
from suite_asgard.vocabulary import SILVERWARE, STORAGE

#: Surfaces a task object may start on, per room type (open, visible from a standing agent).
START_SURFACES = {
    "Kitchen": ("CounterTop", "DiningTable"),
    "LivingRoom": ("CoffeeTable", "SideTable", "TVStand", "Shelf", "CounterTop", "Desk", "Dresser"),
    "Bathroom": ("CounterTop", "Shelf"),
    "Bedroom": ("Desk", "Dresser", "SideTable", "Shelf"),
}
#: Objects (beyond the plan's targets) each task type needs to find; they are moved if no pose sees them.
TASK_NEEDS: dict[str, tuple[str, ...]] = {
    "coffee": ("CoffeeMachine", "SinkBasin", "Faucet"),
    "microwave_potato": ("Microwave", "SinkBasin", "Faucet"),
    "cook_egg": ("SinkBasin", "Faucet"),
    "fry_potato_slice": ("SinkBasin", "Faucet"),
    "toast": ("Toaster", "SinkBasin", "Faucet"),
    "set_table": ("Toaster", "CoffeeMachine", "SinkBasin", "Faucet", "DiningTable"),
    "slice_and_distribute": ("SinkBasin", "Faucet"),
    "putaway_food": ("Fridge",),
    "clean_mirror": ("Mirror",),
    "turn_on_tv": ("Television",),
}
SPOTS_PER_HOST = 8
#: Appliances a task puts things in, and a typical thing: a spot must see that thing once it is put in.
PROBES = {"Toaster": "BreadSliced", "CoffeeMachine": "Mug", "Microwave": "Potato"}
#: How many distractors start in a kitchen's sink basin (drawn with the plan's seed).
SINK_CLUTTER = (0, 1, 1, 2, 2, 3)
TABLE_CLUTTER = 3


def build_scene(plan: Plan, names: list[str], view: tuple[float, float] = (90.0, 1.5)) -> Scene:
    """The plan's starting scene from its sanitised inventory (deterministic for a plan and an inventory).

    `view` is the camera's (field of view, visibility distance), used to check that task objects can be found.
    """
    room_type = floorplan_room_type(plan.scene)
    scene = generate_room(room_type, plan.seed, names, name=plan.scene)
    world = World(scene)
    rng = random.Random(f"asgard:{plan.seed}:{plan.name}")
    targets = _targets(world, plan)
    surfaces = START_SURFACES[room_type]
    for obj in targets:
        allowed = plan.target_containers or surfaces
        if _misplaced(world, obj, plan, allowed):
            _move_somewhere(world, obj.id, allowed, rng)
    for obj in targets:
        for child in list(world.children(obj.id)):
            _move_somewhere(world, child, surfaces, rng)
    _silverware_out_of_sink(world, surfaces, rng)
    keep = {o.id for o in targets}
    if room_type == "Kitchen":
        _clutter(world, "SinkBasin", rng.choice(SINK_CLUTTER), keep, rng)
    if plan.goals.contents:
        for goal in plan.goals.contents:
            _clutter(world, goal.container_type, TABLE_CLUTTER, keep, rng)
    for action in plan.setup_actions:
        _apply_setup(world, action)
    world = _make_findable(_with_objects(scene, world), plan, targets, surfaces, rng, view)
    start = scene.agent
    pose = plan.pose
    agent = Agent(start.x, start.z, round(pose.rotation % 360, 2), max(-30.0, min(60.0, round(pose.horizon, 2))),
                  pose.standing)
    meta = {**scene.meta, "plan": plan.id}
    return Scene(scene.name, scene.seed, scene.rooms, scene.walls, scene.fixtures, tuple(world.objects.values()),
                 agent, meta=meta)


def _with_objects(scene: Scene, world: World) -> Scene:
    return Scene(scene.name, scene.seed, scene.rooms, scene.walls, scene.fixtures, tuple(world.objects.values()),
                 scene.agent, meta=scene.meta)


def _make_findable(scene: Scene, plan: Plan, targets: list[Obj], surfaces: Iterable[str], rng: random.Random,
                   view: tuple[float, float]) -> World:
    """Move any task object (or needed appliance) that no reachable pose sees to a spot that one does."""
    layer = ActionLayer(HouseholdSim(Controller(scene, fieldOfView=view[0], visibilityDistance=view[1],
                                                renderImage=False)))
    world = layer.world
    start = world.agent
    needed = [(o.id, plan.target_containers or tuple(surfaces)) for o in targets]
    for otype in TASK_NEEDS.get(plan.task_type, ()):
        found = layer.instances(otype)
        if found and found[0].parent is not None and TYPES[otype].placement == "top":
            needed.append((found[0].id, (world.objects[found[0].parent].type,)))
        elif found:
            needed.append((found[0].id, ()))
    for oid, hosts in needed:
        if not (_findable(layer, oid) and _shows_contents(layer, oid)):
            _relocate(layer, oid, hosts, rng)
        world.set_agent(start)
    return world


def _relocate(layer: ActionLayer, object_id: str, host_types: Iterable[str], rng: random.Random) -> bool:
    """Try spots along the front edge of every fitting receptacle until the object can be found there."""
    world = layer.world
    obj = world.objects[object_id]
    wanted = set(host_types)
    hosts = sorted((o for o in world.objects.values() if o.type in wanted and o.id != object_id
                    and o.id not in world.descendants(object_id) and not world.enclosed(o.id)
                    and can_hold(o.type, obj.type)), key=lambda o: o.id)
    rng.shuffle(hosts)
    origin = (obj.center, obj.parent)
    for host in hosts:
        for k in range(SPOTS_PER_HOST):
            if move_into(world, object_id, host.id, _front_spot(host, (k + 0.5) / SPOTS_PER_HOST)) and (
                    _findable(layer, object_id) and _shows_contents(layer, object_id)):
                return True
    center, parent = origin
    if parent is not None:
        x, y, z = world.objects[object_id].center
        world.translate(object_id, center[0] - x, center[1] - y, center[2] - z)
        world.reparent(object_id, parent)
    return False


def _findable(layer: ActionLayer, object_id: str) -> bool:
    obj = layer.world.objects[object_id]
    target = layer.closed_container(obj) or obj
    return layer.go_to(target.id)


def _shows_contents(layer: ActionLayer, object_id: str) -> bool:
    """Whether an appliance (toaster, coffee machine, microwave) is seen with a typical item put in it."""
    world = layer.world
    rec = world.objects[object_id]
    probe_type = PROBES.get(rec.type)
    if probe_type is None:
        return True
    size = spec(probe_type).size
    spot = find_spot(world, rec, size)
    if spot is None:
        return True
    world.add(Obj(id="probe", type=probe_type, name="probe", center=spot, size=size, room=rec.room, parent=rec.id))
    try:
        return layer.go_to(object_id, need_contents=True)
    finally:
        world.remove("probe")


def _targets(world: World, plan: Plan) -> list[Obj]:
    named = {a.object_type: a.object_name for a in plan.setup_actions}
    out = []
    for otype in dict.fromkeys(plan.target_types):
        found = [o for o in world.objects.values() if o.type == otype]
        if found:
            found.sort(key=lambda o: (o.name != named.get(otype), o.name))
            out.append(found[0])
    return out


def _misplaced(world: World, obj: Obj, plan: Plan, allowed: Iterable[str]) -> bool:
    parent = world.objects[obj.parent] if obj.parent else None
    if parent is None or world.enclosed(obj.id):
        return True
    if parent.type not in allowed:
        return True
    homes = STORAGE.get(obj.type, ())
    elsewhere = any(t not in homes for t in allowed)  # a Cup's homes take in every kitchen start surface
    return obj.type in plan.goals.put_away and parent.type in homes and elsewhere


def _move_somewhere(world: World, object_id: str, receptacle_types: Iterable[str], rng: random.Random) -> bool:
    """Move an object onto a random receptacle of the given types that accepts it and has room."""
    obj = world.objects[object_id]
    wanted = set(receptacle_types)
    hosts = [o for o in world.objects.values()
             if o.type in wanted and o.id != object_id and o.id not in world.descendants(object_id)
             and not world.enclosed(o.id) and can_hold(o.type, obj.type)]
    hosts.sort(key=lambda o: o.id)
    rng.shuffle(hosts)
    return any(move_into(world, object_id, host.id) for host in hosts)


def _front_spot(host: Obj, fraction: float) -> tuple[float, float]:
    """The point at `fraction` along the front edge of a receptacle (the side its front faces)."""
    x0, _, z0, x1, _, z1 = host.box
    fx, fz = host.front
    x = x1 if fx > 0 else x0 if fx < 0 else x0 + fraction * (x1 - x0)
    z = z1 if fz > 0 else z0 if fz < 0 else z0 + fraction * (z1 - z0)
    return (x, z)


def move_into(world: World, object_id: str, receptacle_id: str, prefer: tuple[float, float] | None = None) -> bool:
    """Put an object (with what rests on it) at a free spot of a receptacle; False when it does not fit."""
    obj, rec = world.objects[object_id], world.objects[receptacle_id]
    spot = find_spot(world, rec, obj.size, ignore=object_id, prefer=prefer)
    if spot is None:
        return False
    x, y, z = obj.center
    world.translate(object_id, spot[0] - x, spot[1] - y, spot[2] - z)
    world.reparent(object_id, receptacle_id)
    world.set(object_id, room=rec.room)
    return True


def _silverware_out_of_sink(world: World, surfaces: Iterable[str], rng: random.Random) -> None:
    for basin in [o for o in world.objects.values() if o.type == "SinkBasin"]:
        for child in list(world.descendants(basin.id)):
            if world.objects[child].type in SILVERWARE:
                _move_somewhere(world, child, surfaces, rng)


def _clutter(world: World, receptacle_type: str, count: int, keep: set[str], rng: random.Random) -> None:
    """Move `count` small distractors (never task objects or silverware) onto a receptacle of that type."""
    hosts = sorted((o for o in world.objects.values() if o.type == receptacle_type), key=lambda o: o.id)
    if not hosts or count <= 0:
        return
    host = hosts[0]
    present = [c for c in world.children(host.id) if c not in keep]
    candidates = sorted(o.id for o in world.objects.values()
                        if TYPES[o.type].pickupable and o.id not in keep and o.type not in SILVERWARE
                        and not world.children(o.id) and o.parent != host.id and can_hold(host.type, o.type)
                        and o.parent is not None and not _inside_target(world, o.id, keep))
    rng.shuffle(candidates)
    moved = len(present)
    for oid in candidates:
        if moved >= count:
            break
        moved += move_into(world, oid, host.id)


def _inside_target(world: World, object_id: str, keep: set[str]) -> bool:
    return any(a in keep for a in world.ancestors(object_id))


def _apply_setup(world: World, action: SetupAction) -> None:
    found = [o for o in world.objects.values() if o.name == action.object_name]
    found = found or sorted((o for o in world.objects.values() if o.type == action.object_type), key=lambda o: o.id)
    if not found:
        return
    oid = found[0].id
    if action.action in ("dirty", "clean"):
        world.set(oid, is_dirty=action.action == "dirty")
    elif action.action == "fill":
        world.set(oid, fill=action.argument or "water")
    elif action.action == "empty":
        world.set(oid, fill=None)
