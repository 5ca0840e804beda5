"""The household simulator as the pack generator uses it: seeded rooms, posed views, object pixels and depth."""

from __future__ import annotations

import copy
import math
import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal, overload

import numpy as np
from suite_household.catalog import TYPES
from suite_household.controller import Controller, Event
from suite_household.generator import ROOM_TYPES, generate_room
from suite_household.world import Obj, Scene

#: Pixels an object needs in a view to count as clearly visible (at 160x120; scaled with the image area).
CLEAR_PIXELS = 60
#: Types never asked about: the floor, and structures that are everywhere or hard to tell apart.
IGNORED = frozenset({"Floor", "Doorway", "Window", "Curtains", "Blinds", "LightSwitch", "Painting", "Mirror"})
SCENES_PER_ROOM = 3


def readable(object_type: str) -> str:
    """An object type in words: `CoffeeMachine` -> `coffee machine`, `TVStand` -> `tv stand`."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", object_type).lower()


@cache
def scene(room_type: str, index: int, seed: int) -> Scene:
    """One of the pack's rooms (cached: generated once per process)."""
    return generate_room(room_type, seed=seed * 100 + ROOM_TYPES.index(room_type) * 10 + index)


@cache
def reachable(room_type: str, index: int, seed: int) -> tuple[tuple[float, float], ...]:
    """Where the agent can stand in that room."""
    ctl = Controller(scene(room_type, index, seed), width=8, height=6, renderImage=False)
    return tuple(ctl.nav.reachable((ctl.world.agent.x, ctl.world.agent.z)))


@dataclass
class Shot:
    """One rendered view: RGB, depth, a mask per object in view, and the world's objects at that moment."""

    rgb: np.ndarray
    depth: np.ndarray
    masks: dict[str, np.ndarray]
    objects: dict[str, Obj]

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.rgb.shape[1], self.rgb.shape[0]

    def pixels(self, object_id: str) -> int:
        """How many pixels the object covers in this view."""
        mask = self.masks.get(object_id)
        return 0 if mask is None else int(mask.sum())

    def clear_threshold(self) -> int:
        """The pixel count that makes an object clearly visible at this image size."""
        width, height = self.size
        return max(CLEAR_PIXELS, CLEAR_PIXELS * width * height // (160 * 120))

    def clear(self) -> list[str]:
        """Ids of the objects clearly visible here whose type is the only one of its kind anywhere in view."""
        seen_types = [self.objects[i].type for i in self.masks if i in self.objects]
        return sorted(i for i in self.masks if i in self.objects and self.objects[i].type not in IGNORED
                      and seen_types.count(self.objects[i].type) == 1 and self.pixels(i) >= self.clear_threshold())

    def type_of(self, object_id: str) -> str:
        """The object's type."""
        return self.objects[object_id].type

    def median_depth(self, object_id: str) -> float:
        """The object's median distance from the camera plane over its pixels (m)."""
        return float(np.median(self.depth[self.masks[object_id]]))


class Stage:
    """A fresh controller over one of the pack's rooms, posed and stepped by a question maker."""

    def __init__(self, rng: random.Random, seed: int, size: tuple[int, int] = (160, 120),
                 room_types: tuple[str, ...] = ROOM_TYPES) -> None:
        self.room_type = rng.choice(room_types)
        self.index = rng.randrange(SCENES_PER_ROOM)
        self.seed = seed
        self.scene = scene(self.room_type, self.index, seed)
        self.size = size
        self.ctl = Controller(self.scene, width=size[0], height=size[1], renderDepthImage=True,
                              renderInstanceSegmentation=True, renderImage=False, visibilityDistance=1.5)
        self.event: Event = self.ctl.last_event
        self.ok = True

    def again(self, pose: tuple[float, float, float, float]) -> Stage:
        """A fresh stage over the same room (the world as generated, none of this one's changes) standing at `pose`
        (x, z, yaw, horizon): where a twin question replays what happens differently."""
        twin = copy.copy(self)
        twin.ctl = Controller(self.scene, width=self.size[0], height=self.size[1], renderDepthImage=True,
                              renderInstanceSegmentation=True, renderImage=False, visibilityDistance=1.5)
        twin.event, twin.ok = twin.ctl.last_event, True
        twin.teleport(*pose, render=False)
        return twin

    def pose(self, rng: random.Random, horizons: tuple[int, ...] = (0, 30)) -> Shot:
        """Teleport to a random reachable spot, heading (multiple of 30 degrees) and camera pitch."""
        x, z = rng.choice(reachable(self.room_type, self.index, self.seed))
        return self.teleport(x, z, 30 * rng.randrange(12), rng.choice(horizons))

    # The view comes back exactly when `render` is True (the default); the overloads let callers that render
    # get a `Shot` and callers that pass `render=False` get None, without a check at every call.
    @overload
    def teleport(self, x: float, z: float, yaw: float, horizon: float, render: Literal[True] = True) -> Shot: ...
    @overload
    def teleport(self, x: float, z: float, yaw: float, horizon: float, render: Literal[False]) -> None: ...
    @overload
    def teleport(self, x: float, z: float, yaw: float, horizon: float, render: bool) -> Shot | None: ...

    def teleport(self, x: float, z: float, yaw: float, horizon: float, render: bool = True) -> Shot | None:
        """Stand at (x, z) facing `yaw` with the camera at `horizon` (the view, unless `render` is False)."""
        return self.step("TeleportFull", render, position={"x": x, "y": 0.9, "z": z}, rotation={"y": yaw},
                         horizon=horizon, standing=True)

    # As for `teleport`: a `Shot` when rendered, None when `render` is False. A caller that passes controller
    # arguments as `**dict` names `render` too, or the dict could (for the checker) be the one that sets it.
    @overload
    def step(self, action: str, render: Literal[True] = True, **args: object) -> Shot: ...
    @overload
    def step(self, action: str, render: Literal[False], **args: object) -> None: ...
    @overload
    def step(self, action: str, render: bool, **args: object) -> Shot | None: ...

    def step(self, action: str, render: bool = True, **args: object) -> Shot | None:
        """Run one controller action; `ok` says whether it succeeded (changed the world). Returns the view after
        it, unless `render` is False (restoring a pose needs no picture)."""
        version = self.ctl.world.version
        self.event = self.ctl.step(action=action, renderImage=render, **args)
        self.ok = self.ctl.world.version != version
        return self.shot() if render else None

    def shot(self) -> Shot:
        """The view now (the last action must have been rendered)."""
        ev = self.event
        if ev.frame is None or ev.depth_frame is None:
            raise RuntimeError("no view to take: the last action was not rendered (render=False)")
        return Shot(ev.frame.copy(), ev.depth_frame.copy(), dict(ev.instance_masks), dict(self.ctl.world.objects))

    def pose_now(self) -> tuple[float, float, float, float]:
        """(x, z, yaw, horizon) of the agent."""
        a = self.ctl.world.agent
        return a.x, a.z, a.yaw, a.horizon

    def tap_target(self, point: tuple[int, int]) -> str | None:
        """The object under a pixel of the current view (what a tap there addresses)."""
        width, height = self.ctl.width, self.ctl.height
        return self.ctl.object_at((point[0] + 0.5) / width, (point[1] + 0.5) / height)

    def relative_bearing(self, object_id: str) -> float:
        """Horizontal angle of the object from the heading, degrees in (-180, 180]; positive is to the right."""
        a = self.ctl.world.agent
        obj = self.ctl.world.objects[object_id]
        bearing = math.degrees(math.atan2(obj.center[0] - a.x, obj.center[2] - a.z))
        return (bearing - a.yaw + 180) % 360 - 180

    def camera_distance(self, object_id: str) -> float:
        """Straight-line distance from the camera to the object's centre (m)."""
        obj = self.ctl.world.objects[object_id]
        return math.dist(self.ctl.world.agent.camera, obj.center)

    def distance_to(self, object_id: str) -> float:
        """Horizontal distance from the agent to the object's centre (m)."""
        a = self.ctl.world.agent
        obj = self.ctl.world.objects[object_id]
        return math.hypot(obj.center[0] - a.x, obj.center[2] - a.z)


def _erode(mask: np.ndarray) -> np.ndarray:
    out = mask.copy()
    out[1:, :] &= mask[:-1, :]
    out[:-1, :] &= mask[1:, :]
    out[:, 1:] &= mask[:, :-1]
    out[:, :-1] &= mask[:, 1:]
    out[0, :] = out[-1, :] = False
    out[:, 0] = out[:, -1] = False
    return out


def interior_point(mask: np.ndarray) -> tuple[int, int]:
    """The (x, y) pixel deepest inside the mask (nearest its centre among the deepest), for an unambiguous tap."""
    core = mask
    while True:
        inner = _erode(core)
        if not inner.any():
            break
        core = inner
    ys, xs = np.nonzero(core)
    cx, cy = xs.mean(), ys.mean()
    best = int(np.argmin((xs - cx) ** 2 + (ys - cy) ** 2))
    return int(xs[best]), int(ys[best])


def bbox(mask: np.ndarray) -> tuple[int, int, int, int]:
    """The mask's bounding box (x1, y1, x2, y2), inclusive pixel coordinates."""
    ys, xs = np.nonzero(mask)
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two inclusive pixel boxes."""
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]) + 1)
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]) + 1)
    inter = ix * iy
    area = (a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - inter
    return inter / area


def interactable(object_type: str) -> list[tuple[str, str, str]]:
    """(verb in words, controller action, state field it changes) that apply to an object of this type."""
    spec = TYPES[object_type]
    out = []
    if spec.pickupable:
        out.append(("pick up", "PickupObject", "picked_up"))
    if spec.openable:
        out.append(("open", "OpenObject", "is_open"))
    if spec.toggleable:
        out.append(("turn on", "ToggleObjectOn", "is_toggled"))
    return out


#: A window of a larger render is what a twin of a grounding question shows: this many times the screen's size.
WIDE = 2


def windows(rng: random.Random, anchor: tuple[int, int], screen: tuple[int, int], wide: tuple[int, int],
            low: tuple[int, int] = (0, 0), gap: int = 12, tries: int = 200) -> list[tuple[int, int]] | None:
    """Four points of the screen, at least `gap` pixels apart (Chebyshev), each the place where `anchor` (a pixel of
    the `wide` render) lands in some window of the render the screen's size; a point at least `low` from the
    screen's right and bottom edges. None when four do not fit."""
    span = [(max(0, anchor[a] - (wide[a] - screen[a])), min(screen[a] - 1 - low[a], anchor[a])) for a in (0, 1)]
    if any(lo > hi for lo, hi in span):
        return None
    points: list[tuple[int, int]] = []
    for _ in range(tries):
        p = (rng.randint(*span[0]), rng.randint(*span[1]))
        if all(max(abs(p[0] - q[0]), abs(p[1] - q[1])) >= gap for q in points):
            points.append(p)
            if len(points) == 4:
                return points
    return None


def window(shot: Shot, anchor: tuple[int, int], point: tuple[int, int], screen: tuple[int, int]) -> np.ndarray:
    """The screen-sized window of `shot` in which the render's pixel `anchor` lands at `point`."""
    x, y = anchor[0] - point[0], anchor[1] - point[1]
    return shot.rgb[y:y + screen[1], x:x + screen[0]].copy()
