"""Movable obstacles: objects an episode adds to a house that block the agent wherever they rest on a floor, as
AI2-THOR's agent collides with a box on the floor, until it is picked up (Vigil's CR family).

The static occupancy grid (`navigation.NavGrid`) never holds a pickupable object; the ids a scene lists under
`Scene.meta["obstacles"]` are looked up live, so picking one up clears the way and dropping it blocks where it lands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from suite_household.catalog import TYPES
from suite_household.world import AGENT_RADIUS, WALL_THICKNESS, Obj, Scene, World

#: the `Scene.meta` key of the obstacle ids
OBSTACLES = "obstacles"


def with_obstacles(scene: Scene, obstacles: list[dict[str, Any]]) -> Scene:
    """The scene with each obstacle (`{objectId, type, position: {x, y, z} of its centre, size: [x, y, z]}`) added
    on the floor of the room it stands in, and listed as an obstacle."""
    if not obstacles:
        return scene
    floors = {o.room: o.id for o in scene.objects if o.type == "Floor"}
    rooms = {r.id: r for r in scene.rooms}
    added = []
    for spec in obstacles:
        p = spec["position"]
        room = next((rid for rid, r in rooms.items() if r.contains(p["x"], p["z"])), None)
        if room is None or room not in floors:
            raise ValueError(f"obstacle {spec['objectId']}: ({p['x']}, {p['z']}) is on no floor of {scene.name}")
        if spec["type"] not in TYPES or not TYPES[spec["type"]].pickupable:
            raise ValueError(f"obstacle {spec['objectId']}: {spec['type']!r} is not a pickupable type")
        sx, sy, sz = (float(v) for v in spec["size"])
        added.append(Obj(spec["objectId"], spec["type"], spec["type"], (p["x"], p["y"], p["z"]), (sx, sy, sz),
                         room=room, parent=floors[room]))
    ids = tuple(scene.meta.get(OBSTACLES, ())) + tuple(o.id for o in added)
    return replace(scene, objects=scene.objects + tuple(added), meta={**scene.meta, OBSTACLES: ids})


#: an obstacle rests on the floor while its bottom is this close to it (metres) and it is not held
ON_FLOOR = 0.05


def _lying(world: World, ids: Iterable[str] | None = None) -> list[Obj]:
    """The obstacles (`ids`, by default the scene's) resting on the floor now; read from geometry, so a world read
    back from AI2-THOR's metadata answers the same."""
    out = []
    for oid in world.scene.meta.get(OBSTACLES, ()) if ids is None else ids:
        o = world.objects.get(oid)
        if o is not None and not o.picked_up and o.bottom < ON_FLOOR:
            out.append(o)
    return out


def obstacle_at(world: World, x: float, z: float) -> str | None:
    """The obstacle that keeps the agent from standing at (x, z), or None (held or on furniture: none)."""
    r = AGENT_RADIUS
    for o in _lying(world):
        bx0, _, bz0, bx1, _, bz1 = o.box
        if bx0 - r < x < bx1 + r and bz0 - r < z < bz1 + r:
            return o.id
    return None


def passage(door: Obj) -> tuple[float, float, float, float, bool]:
    """The rectangle (x0, z0, x1, z1) the agent's centre crosses to pass a door (NavGrid's door cells), and
    whether the door spans x (the agent passes it in z)."""
    bx0, _, bz0, bx1, _, bz1 = door.box
    r = AGENT_RADIUS
    reach = WALL_THICKNESS / 2 + r
    if bx1 - bx0 > bz1 - bz0:
        zc = (bz0 + bz1) / 2
        return bx0 + r, zc - reach, bx1 - r, zc + reach, True
    xc = (bx0 + bx1) / 2
    return xc - reach, bz0 + r, xc + reach, bz1 - r, False


def door_blocked(world: World, door_id: str, obstacles: Iterable[str] | None = None) -> bool:
    """Whether the door is shut or an obstacle (`obstacles`, by default the scene's) on the floor spans the whole
    width of its passage."""
    door = world.objects[door_id]
    if not door.is_open:
        return True
    x0, z0, x1, z1, along_x = passage(door)
    r = AGENT_RADIUS
    for o in _lying(world, obstacles):
        bx0, _, bz0, bx1, _, bz1 = o.box
        bx0, bz0, bx1, bz1 = bx0 - r, bz0 - r, bx1 + r, bz1 + r
        if along_x and bx0 <= x0 and bx1 >= x1 and bz0 < z1 and bz1 > z0:
            return True
        if not along_x and bz0 <= z0 and bz1 >= z1 and bx0 < x1 and bx1 > x0:
            return True
    return False
