"""`longact.env.backend=ai2thor`: the same episode on AI2-THOR, through plugins/household's adapter.

The house is handed to AI2-THOR as a ProcTHOR-style house dict (`suite_household.procthor.procthor_house`): rooms as
floor polygons, walls, doors between rooms, and every object with our instance id, an asset id of its type, its
position, and its open/on state; the agent starts at the episode's pose. Steps go to `suite_household.thor_backend.
ThorController` (the benchmark's RuleSet preconditions checked on AI2-THOR's metadata first), the state the
checklist reads is `world_from_metadata` of each event, and the agent's images are AI2-THOR's frame, depth frame and
instance segmentation. This needs `pip install -e ".[thor]"` and a display or GPU; the Unity build was not run here,
only ai2thor's real Controller with `suite-household-player` (plugins/longact/tests/test_thor_player.py), and the
asset ids (`<Type>_1`) and house fields follow ProcTHOR's published house format without having been checked against
AI2-THOR 5.0.0's asset database.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from suite.contract.records import Task
from suite_household.procthor import procthor_house
from suite_household.render import Frame
from suite_household.thor_backend import make_controller, world_from_metadata
from suite_household.world import Obj, Scene, World

from suite_longact.env import LongActEnv, env_settings, longact_rules
from suite_longact.houses import BUILT, episode_scene


def _innermost(receptacles: list[str], world: World) -> str | None:
    """The smallest of the receptacles AI2-THOR lists as holding an object (the list's order is not its nesting)."""
    known = [r for r in receptacles if r in world.objects]
    if not known:
        return None
    return min(known, key=lambda r: np.prod(world.objects[r].size))


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

    def render_frame(self, rgb: bool = True) -> Frame:
        """AI2-THOR's RGB, depth and instance segmentation as a Frame (owner index per pixel; AI2-THOR renders the
        RGB whatever `rgb` says)."""
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
