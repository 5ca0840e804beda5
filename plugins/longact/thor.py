"""`longact.env.backend=ai2thor`: the same episode on AI2-THOR, through plugins/household's adapter.

The house is handed to AI2-THOR as a ProcTHOR-style house dict (`procthor_house`): rooms as floor polygons,
walls, doors between rooms, and every object with our instance id, an asset id of its type, its position, and
its open/on state; the agent starts at the episode's pose. Steps go to `suite_household.thor_backend.
ThorController` (the benchmark's RuleSet preconditions checked on AI2-THOR's metadata first), the state the
checklist reads is `world_from_metadata` of each event, and the agent's images are AI2-THOR's frame, depth
frame and instance segmentation. This needs `pip install -e ".[thor]"` and a display or GPU; it was not run here,
only against a stand-in controller (plugins/longact/tests/test_thor_backend.py), and the asset ids
(`<Type>_1`) and house fields follow ProcTHOR's published house format without having been checked against
AI2-THOR 5.0.0's asset database.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from suite.records import Task
from suite_household.render import Frame
from suite_household.thor_backend import make_controller, world_from_metadata
from suite_household.world import WALL_HEIGHT, Obj, Scene, World
from suite_longact.env import LongActEnv, env_settings, longact_rules
from suite_longact.houses import BUILT, episode_scene


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
    a = scene.agent
    return {"rooms": rooms, "walls": walls, "doors": doors, "windows": [], "objects": objects,
            "proceduralParameters": {"lights": [], "skyboxId": "Sky1", "receptacleHeight": 0.7,
                                     "floorColliderThickness": 1.0, "reflections": []},
            "metadata": {"schema": "1.0.0", "name": scene.name,
                         "agent": {"position": _xyz(a.x, 0.9, a.z), "rotation": _xyz(0, a.yaw, 0),
                                   "horizon": a.horizon, "standing": a.standing}}}


def _innermost(receptacles: list[str], world: World) -> str | None:
    """The smallest of the receptacles AI2-THOR lists as holding an object (the list's order is not its nesting)."""
    known = [r for r in receptacles if r in world.objects]
    if not known:
        return None
    return min(known, key=lambda r: np.prod(world.objects[r].size))


def _object(o: Obj) -> dict[str, Any]:
    out: dict[str, Any] = {"id": o.id, "assetId": f"{o.type}_1", "position": _xyz(*o.center),
                           "rotation": _xyz(0, o.facing, 0), "kinematic": o.parent is None}
    if o.is_open:
        out["openness"] = 1.0
    if o.is_toggled:
        out["isOn"] = True
    return out


class ThorSim:
    """The simulator interface of LongActEnv over an AI2-THOR controller."""

    def __init__(self, scene: Scene, settings: dict[str, Any], rules: Any) -> None:
        self.scene = scene
        self.ctl = make_controller(
            "ai2thor", procthor_house(scene), width=settings["width"], height=settings["height"],
            fieldOfView=settings["field_of_view"], visibilityDistance=settings["visibility_distance"],
            gridSize=settings["move_m"], rotateStepDegrees=settings["rotate_deg"], snapToGrid=False,
            renderDepthImage=True, renderInstanceSegmentation=True, rules=rules)
        a = scene.agent
        self.ctl.step(action="TeleportFull", position={"x": a.x, "y": 0.9, "z": a.z}, rotation={"x": 0, "y": a.yaw,
                      "z": 0}, horizon=a.horizon, standing=a.standing)
        self._cached: tuple[int, World] | None = None

    @property
    def world(self) -> World:
        """The state read from the last event's metadata, in the episode's rooms."""
        event = self.ctl.last_event
        if self._cached is None or self._cached[0] != id(event):
            raw = world_from_metadata(event.metadata)
            probe = World(Scene(self.scene.name, 0, self.scene.rooms, (), (), (), raw.agent))
            parents = {m["objectId"]: _innermost(m.get("parentReceptacles") or [], raw)
                       for m in event.metadata["objects"]}
            objects = tuple(Obj(**{**{f: getattr(o, f) for f in Obj.__slots__},
                                   "room": probe.room_at(o.center[0], o.center[2]) or "",
                                   "parent": parents.get(o.id, o.parent)})
                            for o in raw.objects.values())
            world = World(Scene(self.scene.name, 0, self.scene.rooms, self.scene.walls, (), objects, raw.agent))
            world.held = raw.held
            self._cached = (id(event), world)
        return self._cached[1]

    def step(self, **args: Any) -> tuple[bool, str]:
        """One AI2-THOR call; (lastActionSuccess, errorMessage)."""
        meta = self.ctl.step(**args).metadata
        return bool(meta["lastActionSuccess"]), str(meta.get("errorMessage") or "")

    def render_frame(self) -> Frame:
        """AI2-THOR's RGB, depth and instance segmentation as a Frame (owner index per pixel)."""
        event = self.ctl.last_event
        seg = np.asarray(event.instance_segmentation_frame)
        colors, owner = np.unique(seg.reshape(-1, seg.shape[-1]), axis=0, return_inverse=True)
        ids = [event.color_to_object_id.get(tuple(int(c) for c in color), "") for color in colors]
        return Frame(np.asarray(event.frame), np.asarray(event.depth_frame, dtype=np.float32),
                     owner.reshape(seg.shape[:2]), ids)

    def stop(self) -> None:
        """Shut AI2-THOR down."""
        self.ctl.stop()


def thor_env(task: Task, config: Any) -> LongActEnv:
    """The episode on AI2-THOR."""
    settings = env_settings(config)
    scene = episode_scene(task.data["house"], task.data["episode"]["setup"], BUILT)
    return LongActEnv(task, ThorSim(scene, settings, longact_rules()), settings)
