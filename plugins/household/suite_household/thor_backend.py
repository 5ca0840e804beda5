"""`env.backend=ai2thor`: the same calls handed to `ai2thor.controller.Controller` (lazy, extra [thor])."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from typing import Any, TypeVar

from suite.contract.errors import ConfigError
from suite.contract.extras import Requirement

from suite_household.catalog import TYPES
from suite_household.controller import Controller
from suite_household.rules import RuleSet
from suite_household.world import Agent, Obj, Room, Scene, World

BACKENDS = ("household", "ai2thor")
#: An AI2-THOR player to start instead of the Unity build ai2thor downloads (a local build, or
#: `suite-household-player`): ai2thor's `local_executable_path`.
EXECUTABLE_ENV = "SUITE_THOR_EXECUTABLE"
EnvT = TypeVar("EnvT")
# Keyword arguments both controllers understand; the embedded-only ones are dropped for AI2-THOR.
THOR_KEYS = (
    "width",
    "height",
    "fieldOfView",
    "visibilityDistance",
    "renderDepthImage",
    "renderInstanceSegmentation",
    "gridSize",
    "rotateStepDegrees",
    "snapToGrid",
    "platform",
    "agentMode",
    "quality",
)


def backend_env(benchmark: str, config: Any, household: Callable[[], EnvT], ai2thor: Callable[[], EnvT]) -> EnvT:
    """The env on the section's `env.backend` (household by default, or ai2thor); another name is a ConfigError."""
    backend = str((config.get("env") or {}).get("backend") or "household")
    if backend not in BACKENDS:
        raise ConfigError(f"{benchmark}.env.backend: {backend!r} is unknown; choose {' or '.join(BACKENDS)}")
    return ai2thor() if backend == "ai2thor" else household()


def thor_requirements(benchmark: str) -> Callable[[Any], list[Requirement]]:
    """`BenchmarkSpec.requires` of a benchmark on this adapter: `<benchmark>.env.backend=ai2thor` needs the thor
    extra."""

    def requires(config: Any) -> list[Requirement]:
        backend = str((config.get("env") or {}).get("backend") or "household")
        return [Requirement(f"{benchmark}.env.backend=ai2thor", "ai2thor", "thor")] if backend == "ai2thor" else []

    return requires


#: How many episodes of the embedded household simulator one Ray actor runs at once: a step takes well under a
#: millisecond (a frame 5-15 ms) and a scene takes a few MB, so its episodes mostly wait on the model.
HOUSEHOLD_EPISODES_PER_ACTOR = 8


def simulator_resources(config: Any) -> dict[str, float]:
    """What one simulator actor of a benchmark section needs on Ray: a CPU for the embedded household simulator,
    running HOUSEHOLD_EPISODES_PER_ACTOR episodes at once; with `env.backend=ai2thor` a CPU and a GPU for each
    AI2-THOR (Unity) instance, one episode at a time (`ray.resources` may share a GPU)."""
    backend = str((config.get("env") or {}).get("backend") or "household")
    return {"num_cpus": 1, "num_gpus": 1} if backend == "ai2thor" else \
        {"num_cpus": 1, "episodes": HOUSEHOLD_EPISODES_PER_ACTOR}


def make_controller(backend: str, scene: Any, **settings: Any) -> Any:
    """A controller for `backend`: 'household' (scene: a Scene) or 'ai2thor' (a FloorPlan name or house)."""
    if backend == "household":
        return Controller(scene=scene, **settings)
    if backend == "ai2thor":
        return ThorController(scene=scene, **settings)
    raise ValueError(f"unknown env backend {backend!r}; expected one of {', '.join(BACKENDS)}")


class RefusedEvent:
    """A step the benchmark's preconditions refused before AI2-THOR saw it: the last state, marked failed."""

    def __init__(self, last: Any, action: str, error: str) -> None:
        self.metadata = copy.deepcopy(last.metadata)
        self.metadata.update(lastAction=action, lastActionSuccess=False, errorMessage=error)
        for name in (
            "frame",
            "depth_frame",
            "instance_segmentation_frame",
            "object_id_to_color",
            "color_to_object_id",
            "instance_masks",
        ):
            setattr(self, name, getattr(last, name, None))


class ThorController:
    """Wraps `ai2thor.controller.Controller`; checks a RuleSet's preconditions on its metadata first."""

    def __init__(self, scene: Any, rules: RuleSet | None = None, **settings: Any) -> None:
        try:
            from ai2thor.controller import Controller as AI2ThorController  # type: ignore[import-untyped]  # no types
        except ImportError as exc:
            raise RuntimeError(
                "env.backend=ai2thor needs the thor extra: pip install 'embodied-suite[thor]'"
            ) from exc
        self.rules = rules
        self.settings = {k: v for k, v in settings.items() if k in THOR_KEYS}
        self._ctl = AI2ThorController(scene=scene, **self.settings, **launch_settings())
        self.last_event = self._ctl.last_event

    def step(self, action: str | dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """Check the benchmark's preconditions on the last metadata, then forward the step unchanged."""
        args = dict(action) if isinstance(action, dict) else {"action": action}
        args.update(kwargs)
        name = str(args.get("action"))
        if self.rules is not None:
            world = world_from_metadata(self.last_event.metadata)
            oid = args.get("objectId") or self._pixel_target(args)
            error = self.rules.check(world, name, world.objects.get(oid) if oid else None, args)
            if error:
                self.last_event = RefusedEvent(self.last_event, name, error)
                return self.last_event
        self.last_event = self._ctl.step(**args)
        return self.last_event

    def _pixel_target(self, args: dict[str, Any]) -> str | None:
        seg = getattr(self.last_event, "instance_segmentation_frame", None)
        if seg is None or "x" not in args or "y" not in args:
            return None
        h, w = seg.shape[:2]
        return pixel_object(self.last_event, min(w - 1, int(float(args["x"]) * w)),
                            min(h - 1, int(float(args["y"]) * h)))

    def reset(self, scene: Any = None) -> Any:
        """Reset AI2-THOR to `scene` (or the current one)."""
        self.last_event = self._ctl.reset(scene) if scene is not None else self._ctl.reset()
        return self.last_event

    def stop(self) -> None:
        """Shut the Unity process down."""
        self._ctl.stop()


def launch_settings() -> dict[str, str]:
    """The Controller's launch arguments for the player named by SUITE_THOR_EXECUTABLE (none when unset).

    ai2thor's Linux launcher puts the player's X display in its environment and fails without one; the household
    player draws on no display, so where DISPLAY is unset it gets a placeholder name."""
    executable = os.environ.get(EXECUTABLE_ENV)
    if not executable:
        return {}
    return {"local_executable_path": executable, **({} if os.environ.get("DISPLAY") else {"x_display": ":0"})}


def pixel_object(event: Any, x: int, y: int) -> str | None:
    """Id of the instance under native pixel (x, y) of an event's segmentation frame, or None."""
    seg = getattr(event, "instance_segmentation_frame", None)
    if seg is None:
        return None
    h, w = seg.shape[:2]
    if not (0 <= x < w and 0 <= y < h):
        return None
    return event.color_to_object_id.get(tuple(int(c) for c in seg[y, x]))


def world_from_metadata(metadata: dict[str, Any]) -> World:
    """A World read from AI2-THOR event metadata, so RuleSet preconditions run against the real simulator."""
    objects = []
    for o in metadata["objects"]:
        if o["objectType"] not in TYPES:
            continue
        bb = o.get("axisAlignedBoundingBox") or {}
        center = bb.get("center") or o["position"]
        size = bb.get("size") or {"x": 0.1, "y": 0.1, "z": 0.1}
        parents = o.get("parentReceptacles") or []
        objects.append(
            Obj(
                id=o["objectId"],
                type=o["objectType"],
                name=o.get("name", o["objectId"]),
                center=(center["x"], center["y"], center["z"]),
                size=(size["x"], size["y"], size["z"]),
                parent=parents[0] if parents else None,
                is_open=bool(o.get("isOpen")),
                is_toggled=bool(o.get("isToggled")),
                is_dirty=bool(o.get("isDirty")),
                is_cooked=bool(o.get("isCooked")),
                is_sliced=bool(o.get("isSliced")),
                is_broken=bool(o.get("isBroken")),
                fill=o.get("fillLiquid") if o.get("isFilledWithLiquid") else None,
                temperature=o.get("temperature", "RoomTemp"),
                picked_up=bool(o.get("isPickedUp")),
                controls=tuple(o.get("controlledObjects") or ()),
            )
        )
    ids = {o.id for o in objects}
    objects = [
        o if o.parent is None or o.parent in ids else Obj(**{**_fields(o), "parent": None}) for o in objects
    ]
    agent = metadata["agent"]
    pose = Agent(
        agent["position"]["x"],
        agent["position"]["z"],
        agent["rotation"]["y"],
        agent.get("cameraHorizon", 0.0),
        agent.get("isStanding", True),
    )
    xs = [o.center[0] for o in objects] + [pose.x]
    zs = [o.center[2] for o in objects] + [pose.z]
    room = Room("room0", "Kitchen", min(xs) - 1, min(zs) - 1, max(xs) + 1, max(zs) + 1)
    return World(Scene(metadata.get("sceneName", "ai2thor"), 0, (room,), (), (), tuple(objects), pose))


def _fields(o: Obj) -> dict[str, Any]:
    return {f: getattr(o, f) for f in Obj.__slots__}
