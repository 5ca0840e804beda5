"""`asgard.env.backend=ai2thor`: the same action layer, goals and prompts on the real AI2-THOR FloorPlan.

The scene is the plan's real FloorPlan with the plan's seed: `InitialRandomSpawn(randomSeed=seed)` places the
objects, duplicates of pickupable types and the PepperShaker are disabled (keeping the instance a setup
action names), the setup actions run (DirtyObject, FillObjectWithLiquid, ...) and the agent is teleported to
the plan's `initial_pose`. The layer then reads AI2-THOR's metadata (visibility, containment, states) and
finds viewpoints with `GetInteractablePoses`. This needs `pip install -e ".[thor]"` and a display or GPU
(AI2-THOR's Unity build); the build was not run here (see the README), only ai2thor's real Controller with
`suite-household-player` as its player (plugins/asgard/tests/test_thor_player.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from suite.contract.records import Task
from suite_household.catalog import TYPES
from suite_household.thor_backend import make_controller, world_from_metadata
from suite_household.world import Obj, World

from suite_asgard.env import AsgardEnv
from suite_asgard.plans import Plan
from suite_asgard.vocabulary import REMOVED_TYPES
from suite_asgard.world_rules import asgard_rules

POSES_TRIED = 24
#: The arguments the harness sends with an agent's action (every other action: forceAction=False).
AGENT_ARGS: dict[str, dict[str, Any]] = {
    "OpenObject": {"forceAction": True, "openness": 1},
    "PutObject": {"forceAction": False, "placeStationary": True},
}
_SETUP = {"dirty": "DirtyObject", "clean": "CleanObject", "empty": "EmptyLiquidFromObject"}


def thor_env(task: Task, config: Any) -> AsgardEnv:
    """An episode on AI2-THOR with the configured camera."""
    size = int(config.get("image_size") or 1024)
    ctl = make_controller("ai2thor", task.data["plan"].scene, width=size, height=size,
                          fieldOfView=float(config.get("field_of_view") or 90),
                          visibilityDistance=float(config.get("visibility_distance") or 1.5), rules=asgard_rules())
    sim = ThorSim(ctl)
    sim.set_up(task.data["plan"])
    return AsgardEnv(task, sim)


class ThorSim:
    """The simulator operations of the action layer, read from and sent to an AI2-THOR controller."""

    #: `fits` cannot tell whether a PUT will find room; AI2-THOR decides at the PUT.
    exact_room = False

    def __init__(self, ctl: Any) -> None:
        self.ctl = ctl
        self._cached: tuple[int, World] | None = None

    def _do(self, action: str, **args: Any) -> Any:
        return self.ctl.step(action=action, **args)

    def _objects(self) -> list[dict[str, Any]]:
        return list(self.ctl.last_event.metadata["objects"])

    def set_up(self, plan: Plan) -> None:
        """Spawn with the plan's seed, keep one object per pickupable type, apply the setup, stand at the pose."""
        self._do("InitialRandomSpawn", randomSeed=plan.seed, forceVisible=True, numPlacementAttempts=15,
                 placeStationary=True)
        named = {a.object_name for a in plan.setup_actions}
        kept: dict[str, str] = {}
        for o in sorted(self._objects(), key=lambda o: (o["name"] not in named, o["objectId"])):
            otype = o["objectType"]
            if otype in REMOVED_TYPES or (o.get("pickupable") and otype in kept):
                self._do("DisableObject", objectId=o["objectId"])
            elif o.get("pickupable"):
                kept[otype] = o["objectId"]
        for action in plan.setup_actions:
            found = [o for o in self._objects() if o["name"] == action.object_name]
            found = found or [o for o in self._objects() if o["objectType"] == action.object_type]
            if not found:
                continue
            if action.action == "fill":
                self._do("FillObjectWithLiquid", objectId=found[0]["objectId"], fillLiquid=action.argument or "water",
                         forceAction=True)
            else:
                self._do(_SETUP[action.action], objectId=found[0]["objectId"], forceAction=True)
        pose = plan.pose
        self._do("TeleportFull", position={"x": pose.x, "y": pose.y, "z": pose.z},
                 rotation={"x": 0, "y": pose.rotation, "z": 0}, horizon=pose.horizon, standing=pose.standing)

    @property
    def world(self) -> World:
        """The state read from the last event's metadata."""
        event = self.ctl.last_event
        if self._cached is None or self._cached[0] != id(event):
            self._cached = (id(event), world_from_metadata(event.metadata))
        return self._cached[1]

    def in_reach(self) -> frozenset[str]:
        """What AI2-THOR reports visible (within its visibility distance), and the held object."""
        world = self.world
        return frozenset(o["objectId"] for o in self._objects()
                         if o["objectId"] in world.objects and (o.get("visible") or o.get("isPickedUp")))

    def step(self, action: str, object_id: str) -> str | None:
        """One agent action, with AI2-THOR's own checks as the harness leaves them on; the error, or None.

        As in the harness, only OpenObject is forced (and opens fully); a PUT places the object stationary.
        """
        meta = self._do(action, objectId=object_id, **AGENT_ARGS.get(action, {"forceAction": False})).metadata
        return None if meta["lastActionSuccess"] else str(meta["errorMessage"])

    def set_state(self, object_id: str, **changes: Any) -> None:
        """DRINK: pour the liquid out and dirty the container."""
        if "fill" in changes and changes["fill"] is None:
            self.step("EmptyLiquidFromObject", object_id)
        if changes.get("is_dirty") and TYPES[self.world.objects[object_id].type].dirtyable:
            self.step("DirtyObject", object_id)

    def fits(self, rec: Obj, item: Obj) -> bool:
        """AI2-THOR decides at the PUT; the layer tries the other instances of the type when it refuses."""
        return True

    def go_to(self, object_id: str, need_contents: bool = False) -> bool:
        """Teleport to the first interactable pose that sees the object (and what is in it, when asked)."""
        agent = self.ctl.last_event.metadata["agent"]
        start = {"position": agent["position"], "rotation": agent["rotation"],
                 "horizon": agent.get("cameraHorizon", 0.0), "standing": agent.get("isStanding", True)}
        poses = self._do("GetInteractablePoses", objectId=object_id, standings=[True, False]).metadata.get(
            "actionReturn") or []
        contents = [c for c in self.world.children(object_id) if not self.world.enclosed(c)]
        fallback = None
        for pose in poses[:POSES_TRIED]:
            target = {"position": {k: pose[k] for k in "xyz"}, "rotation": {"x": 0, "y": pose["rotation"], "z": 0},
                      "horizon": pose["horizon"], "standing": pose["standing"]}
            self._do("TeleportFull", **target)
            reach = self.in_reach()
            if object_id not in reach:
                continue
            if all(c in reach for c in contents):
                return True
            fallback = fallback or target
        if need_contents:
            fallback = None
        self._do("TeleportFull", **(fallback or start))
        return fallback is not None

    def move_object(self, object_id: str, center: tuple[float, float, float]) -> None:
        """`TeleportObject` by the offset from the object's box centre to `center` (AI2-THOR's `position` is the
        object's pivot), kinematic so that it stays where it is put."""
        meta = next(o for o in self._objects() if o["objectId"] == object_id)
        x, y, z = self.world.objects[object_id].center
        pos = meta["position"]
        self._do("TeleportObject", objectId=object_id, rotation=meta["rotation"], forceAction=True,
                 forceKinematic=True, position={"x": round(pos["x"] + center[0] - x, 4),
                                                "y": round(pos["y"] + center[1] - y, 4),
                                                "z": round(pos["z"] + center[2] - z, 4)})

    def frame(self) -> np.ndarray:
        """The last event's RGB frame."""
        return self.ctl.last_event.frame

    def close(self) -> None:
        """Shut AI2-THOR down."""
        self.ctl.stop()
