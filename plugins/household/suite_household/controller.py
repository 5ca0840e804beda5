"""The AI2-THOR controller protocol over the embedded world: `step(action=..., **args) -> Event`."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from suite_household.actions import ACTIONS, ActionError
from suite_household.metadata import MetadataCache, agent_metadata
from suite_household.navigation import NavGrid
from suite_household.overlay import draw_hand, draw_labels
from suite_household.render import Frame, Renderer, instance_color
from suite_household.rules import RuleSet, thor_rules
from suite_household.visibility import visible_objects
from suite_household.world import Obj, Scene, World

_COMMON = ("renderImage", "action")


class Event:
    """One step's result: `metadata` (built on first access), frames and segmentation, AI2-THOR's names."""

    def __init__(
        self,
        snapshot: World,
        base: dict[str, Any],
        frame: Frame | None,
        settings: dict[str, Any],
        entries: MetadataCache | None = None,
    ) -> None:
        self._world = snapshot
        self._entries = entries or MetadataCache()
        self._base = base
        self._frame = frame
        self._settings = settings
        self.frame: np.ndarray | None = None
        self.depth_frame: np.ndarray | None = None
        self.instance_segmentation_frame: np.ndarray | None = None
        self.object_id_to_color: dict[str, tuple[int, int, int]] = {}
        self.color_to_object_id: dict[tuple[int, int, int], str] = {}
        if frame is not None:
            self.frame = frame.rgb
            if settings["renderDepthImage"]:
                self.depth_frame = frame.depth
            if settings["renderInstanceSegmentation"]:
                colors = np.array([instance_color(i) for i in frame.ids], dtype=np.uint8)
                self.instance_segmentation_frame = np.take(colors, frame.owner, axis=0)
                self.object_id_to_color = {i: instance_color(i) for i in frame.ids}
                self.color_to_object_id = {c: i for i, c in self.object_id_to_color.items()}

    @cached_property
    def metadata(self) -> dict[str, Any]:
        """AI2-THOR's metadata dict: action outcome, agent, objects (with visibility) and inventory."""
        world, s = self._world, self._settings
        seen = visible_objects(world, s["width"], s["height"], s["fieldOfView"], s["visibilityDistance"])
        objects = self._entries.objects(world, seen)
        held = world.objects.get(world.held) if world.held else None
        inventory = [{"objectId": held.id, "objectType": held.type}] if held else []
        return {
            **self._base,
            "agent": agent_metadata(world),
            "objects": objects,
            "inventoryObjects": inventory,
        }

    @property
    def outcome(self) -> tuple[bool, str]:
        """(lastActionSuccess, errorMessage) without building the metadata (which costs ray tests)."""
        return bool(self._base["lastActionSuccess"]), str(self._base["errorMessage"])

    @cached_property
    def instance_masks(self) -> dict[str, np.ndarray]:
        """Boolean mask per object id in view (needs renderInstanceSegmentation)."""
        if self._frame is None or not self._settings["renderInstanceSegmentation"]:
            return {}
        owner = self._frame.owner
        return {self._frame.ids[i]: owner == i for i in np.unique(owner)}

    @property
    def cv2img(self) -> np.ndarray | None:
        """The RGB frame as BGR (OpenCV order)."""
        return None if self.frame is None else self.frame[..., ::-1]


class Controller:
    """An embedded, deterministic stand-in for `ai2thor.controller.Controller`."""

    def __init__(
        self,
        scene: Scene,
        width: int = 300,
        height: int = 300,
        fieldOfView: float = 90.0,
        visibilityDistance: float = 1.5,
        interactionDistance: float | None = None,
        renderDepthImage: bool = False,
        renderInstanceSegmentation: bool = False,
        renderImage: bool = True,
        gridSize: float = 0.25,
        rotateStepDegrees: float = 90.0,
        rules: RuleSet | None = None,
        handOpacity: float = 0.0,
        showLabels: bool = False,
    ) -> None:
        self.scene = scene
        self.width, self.height, self.fov = int(width), int(height), float(fieldOfView)
        self.visibility_distance = float(visibilityDistance)
        self.interaction_distance = float(
            interactionDistance if interactionDistance is not None else visibilityDistance
        )
        self.grid_size, self.rotate_step = float(gridSize), float(rotateStepDegrees)
        self.rules = rules if rules is not None else thor_rules()
        self.hand_opacity, self.show_labels = float(handOpacity), bool(showLabels)
        self.settings: dict[str, Any] = {
            "width": self.width,
            "height": self.height,
            "fieldOfView": self.fov,
            "visibilityDistance": self.visibility_distance,
            "renderDepthImage": renderDepthImage,
            "renderInstanceSegmentation": renderInstanceSegmentation,
            "renderImage": renderImage,
        }
        self.renderer = Renderer(self.width, self.height, self.fov)
        self.entries = MetadataCache()
        self.reset(scene)

    def reset(self, scene: Scene | None = None) -> Event:
        """Start the scene (or a new one) over from its initial state."""
        self.scene = scene or self.scene
        self.world = World(self.scene)
        self.nav = NavGrid(self.world)
        self._pick: tuple[int, Frame] | None = None
        self.current_action = "Initialize"
        self.last_event = self._event("Initialize", True, "", None, self.settings["renderImage"])
        return self.last_event

    def step(self, action: str | dict[str, Any] | None = None, **kwargs: Any) -> Event:
        """Run one action; any failure (unknown action or argument too) is `lastActionSuccess` False."""
        args = dict(action) if isinstance(action, dict) else {"action": action}
        args.update(kwargs)
        name = args.get("action")
        render = bool(args.get("renderImage", self.settings["renderImage"]))
        self.collided: list[str] = []
        self.current_action = str(name)  # what `_event` reports as lastAction too
        success, error, ret = True, "", None
        try:
            if name not in ACTIONS:
                raise ActionError(f"Invalid action: {name}")
            handler, accepted, mutates = ACTIONS[name]
            unknown = sorted(k for k in args if k not in accepted and k not in _COMMON)
            if unknown:
                raise ActionError(f"{name} does not take argument(s): {', '.join(unknown)}")
            params = {k: v for k, v in args.items() if k not in _COMMON}
            if "objectId" not in accepted and (err := self.rules.check(self.world, name, None, params)):
                raise ActionError(err)
            ret = handler(self, params)
            if mutates:
                self.rules.settle(self.world)
        except ActionError as exc:
            success, error = False, str(exc)
        except (TypeError, ValueError, KeyError) as exc:
            success, error = False, f"{name}: invalid argument ({exc})"
        self.last_event = self._event(str(name), success, error, ret, render)
        return self.last_event

    def check(self, obj: Obj, args: dict[str, Any]) -> None:
        """Run the benchmark's preconditions for the current action on its resolved target."""
        error = self.rules.check(self.world, self.current_action, obj, args)
        if error:
            raise ActionError(error)

    def object_at(self, x: float, y: float) -> str | None:
        """Id of the object under the normalised pixel (x, y), or None for walls, ceiling or nothing."""
        x, y = float(x), float(y)
        if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
            raise ActionError("x and y must be within [0, 1]")
        if self._pick is None or self._pick[0] != self.world.version:
            self._pick = (self.world.version, self.renderer.render(self.world, shade_colors=False))
        frame = self._pick[1]
        j = min(self.width - 1, int(x * self.width))
        i = min(self.height - 1, int(y * self.height))
        oid = frame.ids[int(frame.owner[i, j])]
        return oid if oid in self.world.objects else None

    def _event(self, name: str, success: bool, error: str, ret: Any, render: bool) -> Event:
        base = {
            "lastAction": name,
            "lastActionSuccess": success,
            "errorMessage": error,
            "actionReturn": ret,
            "sceneName": self.scene.name,
            "screenWidth": self.width,
            "screenHeight": self.height,
            "fov": self.fov,
            "cameraPosition": dict(zip("xyz", self.world.agent.camera, strict=True)),
            "collided": bool(self.collided if hasattr(self, "collided") else False),
            "collidedObjects": list(getattr(self, "collided", [])),
            "agentId": 0,
            "sceneBounds": dict(zip(("xmin", "zmin", "xmax", "zmax"), self.scene.bounds, strict=True)),
        }
        frame = None
        if render:
            frame = self.renderer.render(self.world)
            self._pick = (self.world.version, frame)
            if self.hand_opacity > 0 and self.world.held:
                frame.rgb = draw_hand(frame.require_rgb(), self.hand_opacity)
            if self.show_labels:
                frame.rgb = draw_labels(frame.require_rgb(), frame, self.world)
        return Event(self.world.snapshot(), base, frame, self.settings, self.entries)

    def stop(self) -> None:
        """Release the simulator (nothing to free for the embedded world)."""
