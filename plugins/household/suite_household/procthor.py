"""Our household scenes as ProcTHOR-style house dicts, what `ai2thor.controller.Controller(scene=house)` loads.

Rooms become floor polygons, walls polygons, doorways doors between rooms, and every other object keeps our
instance id with an asset id of its type (`<Type>_1`), its position and its open/on state; `metadata.name` is the
scene's name (what `suite-household-player` loads the scene by) and `metadata.agent` the start pose. The asset
ids and fields follow ProcTHOR's published house format; they were not checked against AI2-THOR 5.0.0's asset
database.
"""

from __future__ import annotations

from typing import Any

from suite_household.world import WALL_HEIGHT, Obj, Scene


def _xyz(x: float, y: float, z: float) -> dict[str, float]:
    return {"x": round(x, 4), "y": round(y, 4), "z": round(z, 4)}


def procthor_house(scene: Scene) -> dict[str, Any]:
    """The scene as a ProcTHOR-style house dict (`Controller(scene=house)`)."""
    rooms = [{"id": r.id, "roomType": r.type, "children": [], "ceilings": [],
              "floorPolygon": [_xyz(r.x0, 0, r.z0), _xyz(r.x0, 0, r.z1), _xyz(r.x1, 0, r.z1), _xyz(r.x1, 0, r.z0)]}
             for r in scene.rooms]
    walls = []
    for k, w in enumerate(scene.walls):
        mx, mz = (w.x0 + w.x1) / 2, (w.z0 + w.z1) / 2
        room = next((r.id for r in scene.rooms if r.contains(mx, mz)), scene.rooms[0].id)
        walls.append({"id": f"wall|{k}", "roomId": room,
                      "polygon": [_xyz(w.x0, 0, w.z0), _xyz(w.x1, 0, w.z1), _xyz(w.x1, WALL_HEIGHT, w.z1),
                                  _xyz(w.x0, WALL_HEIGHT, w.z0)]})
    doors, objects = [], []
    for o in scene.objects:
        if o.type == "Doorway":
            _, a, b = o.id.split("|")
            doors.append({"id": o.id, "assetId": "Doorway_1", "room0": f"room{a}", "room1": f"room{b}",
                          "openable": True, "openness": 1.0 if o.is_open else 0.0,
                          "assetPosition": _xyz(*o.center)})
        elif o.type != "Floor":
            objects.append(_object(o))
    agent = scene.agent
    return {"rooms": rooms, "walls": walls, "doors": doors, "windows": [], "objects": objects,
            "proceduralParameters": {"lights": [], "skyboxId": "Sky1", "receptacleHeight": 0.7,
                                     "floorColliderThickness": 1.0, "reflections": []},
            "metadata": {"schema": "1.0.0", "name": scene.name,
                         "agent": {"position": _xyz(agent.x, 0.9, agent.z), "rotation": _xyz(0, agent.yaw, 0),
                                   "horizon": agent.horizon, "standing": agent.standing}}}


def _object(o: Obj) -> dict[str, Any]:
    out: dict[str, Any] = {"id": o.id, "assetId": f"{o.type}_1", "position": _xyz(*o.center),
                           "rotation": _xyz(0, o.facing, 0), "kinematic": o.parent is None}
    if o.is_open:
        out["openness"] = 1.0
    if o.is_toggled:
        out["isOn"] = True
    return out
