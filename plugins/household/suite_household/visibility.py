"""Which objects the agent sees: in the view frustum, within the visibility distance, not occluded."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from functools import lru_cache

import numpy as np

from suite_household.geometry import scene_parts
from suite_household.world import Agent, World

#: The nearest a sample point may be in front of the camera (m) to be in view.
NEAR = 0.05


@lru_cache(maxsize=16384)
def _sample_points(box: tuple) -> np.ndarray:
    """Points on an object's box that the view tests (read-only: shared by every caller with that box)."""
    x0, y0, z0, x1, y1, z1 = box
    nx = max(2, min(6, int(math.ceil((x1 - x0) / 0.4)) + 1))
    nz = max(2, min(6, int(math.ceil((z1 - z0) / 0.4)) + 1))
    ny = max(2, min(6, int(math.ceil((y1 - y0) / 0.4)) + 1))
    xs = np.linspace(x0 + 0.1 * (x1 - x0), x1 - 0.1 * (x1 - x0), nx)
    zs = np.linspace(z0 + 0.1 * (z1 - z0), z1 - 0.1 * (z1 - z0), nz)
    ys = np.linspace(y0 + 0.1 * (y1 - y0), y1 - 0.02 * (y1 - y0), ny)
    top = np.array([(x, y1 - 0.02 * (y1 - y0), z) for x in xs for z in zs])
    sides = np.array(
        [
            (x, y, z)
            for y in ys
            for x in (x0 + 0.1 * (x1 - x0), x1 - 0.1 * (x1 - x0))
            for z in (z0 + 0.1 * (z1 - z0), z1 - 0.1 * (z1 - z0))
        ]
    )
    points = np.concatenate([top, sides, [((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2)]])
    points.flags.writeable = False
    return points


def horizontal_distance(world: World, object_id: str) -> float:
    """Distance from the agent's vertical axis to the nearest point of the object's box."""
    x0, _, z0, x1, _, z1 = world.objects[object_id].box
    ax, az = world.agent.x, world.agent.z
    return math.hypot(max(x0 - ax, 0, ax - x1), max(z0 - az, 0, az - z1))


#: A camera's forward, right and up vectors, and the tangents of its horizontal and vertical half-angles.
ViewAxes = tuple[np.ndarray, np.ndarray, np.ndarray, float, float]


def view_axes(agent: Agent, width: int, height: int, fov: float) -> ViewAxes:
    """The camera's forward, right and up vectors, and the tangents of its horizontal and vertical half-angles."""
    yaw, pitch = math.radians(agent.yaw), math.radians(agent.horizon)
    fwd = np.array([math.sin(yaw) * math.cos(pitch), -math.sin(pitch), math.cos(yaw) * math.cos(pitch)])
    right = np.array([math.cos(yaw), 0.0, -math.sin(yaw)])
    up = np.array(
        [
            fwd[1] * right[2] - fwd[2] * right[1],
            fwd[2] * right[0] - fwd[0] * right[2],
            fwd[0] * right[1] - fwd[1] * right[0],
        ]
    )
    tv = math.tan(math.radians(fov) / 2)
    return fwd, right, up, tv * width / height, tv


def in_view(pts: np.ndarray, axes: ViewAxes) -> np.ndarray:
    """Which points (relative to the camera) are in the view frustum, beyond `NEAR`."""
    fwd, right, up, th, tv = axes
    z = pts @ fwd
    return (z > NEAR) & (np.abs(pts @ right) <= z * th) & (np.abs(pts @ up) <= z * tv)


def visible_objects(
    world: World, width: int, height: int, fov: float, distance: float, only: Collection[str] | None = None
) -> dict[str, bool]:
    """Visibility of every object (or of `only`), as AI2-THOR defines it: in view, near, unobstructed."""
    agent = world.agent
    cam = np.array(agent.camera)
    axes = view_axes(agent, width, height, fov)
    out = {oid: False for oid in world.objects}
    held = {world.held, *world.descendants(world.held)} if world.held else set()
    for oid in held:
        out[oid] = True
    room = world.room_at(agent.x, agent.z)
    ax, az = agent.x, agent.z
    view = _ViewBounds(agent.camera, axes)
    cands: list[tuple[str, np.ndarray]] = []
    for oid, obj in world.objects.items():
        if oid in held or (only is not None and oid not in only):
            continue
        if obj.type == "Floor":
            out[oid] = obj.room == room
            continue
        (x, _, z), (sx, _, sz) = obj.center, obj.size
        dx = max(x - sx / 2 - ax, 0, ax - (x + sx / 2))
        dz = max(z - sz / 2 - az, 0, az - (z + sz / 2))
        if math.hypot(dx, dz) > distance or world.enclosed(oid) or view.misses(obj.box):
            continue
        pts = _sample_points(obj.box) - cam
        ok = in_view(pts, axes)
        if ok.any():
            cands.append((oid, pts[ok]))
    if not cands:
        return out
    boxes, _, owners = scene_parts(world)
    walls = [w.box for w in world.scene.walls]
    all_boxes = np.array(boxes + walls, dtype=np.float64) - np.concatenate([cam, cam])
    all_owner = np.array(owners + [""] * len(walls), dtype=object)
    reach = distance + 1.0
    near = (np.maximum(np.maximum(all_boxes[:, 0], -all_boxes[:, 3]), 0) < reach) & (
        np.maximum(np.maximum(all_boxes[:, 2], -all_boxes[:, 5]), 0) < reach
    )
    all_boxes, all_owner = all_boxes[near], all_owner[near]
    for oid, pts in cands:
        skip = {oid, *world.descendants(oid), *held}
        skip |= set(world.ancestors(oid))
        mask = np.array([o not in skip for o in all_owner], dtype=bool)
        bx = all_boxes[mask]
        if not len(bx):
            out[oid] = True
            continue
        out[oid] = bool(_any_clear(pts, bx))
    return out


#: How far (m) a whole box must be on the wrong side of a view limit for `_ViewBounds.misses` to rule it out: far
#: above the rounding of the per-point test, so ruling out never changes a result.
_VIEW_MARGIN = 1e-9


class _ViewBounds:
    """The view's limits as half-spaces in camera coordinates: a point `d` (relative to the camera) passes the
    per-point test only if d.fwd > NEAR, |d.right| <= th d.fwd and |d.up| <= tv d.fwd."""

    def __init__(self, cam: Sequence[float], axes: ViewAxes) -> None:
        vectors, (th, tv) = axes[:3], axes[3:]
        fwd, right, up = (v.tolist() for v in vectors)
        self.cam, self.fwd = cam, fwd
        # each side limit as n.d <= 0
        self.sides = [[sign * a - t * f for a, f in zip(axis, fwd, strict=True)]
                      for axis, t in ((right, th), (up, tv)) for sign in (1.0, -1.0)]

    def misses(self, box: Sequence[float]) -> bool:
        """Whether no point of the axis-aligned `box` can pass the per-point test (exact bounds over the box, with
        `_VIEW_MARGIN`); False says nothing."""
        x0, y0, z0, x1, y1, z1 = box
        center = ((x0 + x1) / 2 - self.cam[0], (y0 + y1) / 2 - self.cam[1], (z0 + z1) / 2 - self.cam[2])
        half = ((x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2)
        ahead, spread = _over_box(self.fwd, center, half)
        if ahead + spread < NEAR - _VIEW_MARGIN:  # its farthest point ahead is still behind the near limit
            return True
        return any(dot - spread > _VIEW_MARGIN for dot, spread in (_over_box(n, center, half) for n in self.sides))


def _over_box(n: Sequence[float], center: Sequence[float], half: Sequence[float]) -> tuple[float, float]:
    """n.d at a box's centre and how far it varies over the box (centre and half sizes relative to the camera):
    n.d over the box spans [dot - spread, dot + spread]."""
    return (sum(a * c for a, c in zip(n, center, strict=True)),
            sum(abs(a) * h for a, h in zip(n, half, strict=True)))


def _any_clear(pts: np.ndarray, boxes: np.ndarray) -> bool:
    """Whether some segment camera(origin)->point misses every box."""
    d = pts[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
        t1 = boxes[None, :, 0:3] * inv
        t2 = boxes[None, :, 3:6] * inv
    tmin = np.nanmax(np.minimum(t1, t2), axis=2)
    tmax = np.nanmin(np.maximum(t1, t2), axis=2)
    blocked = (tmin <= tmax) & (tmax > 1e-4) & (tmin < 0.995)
    return bool((~blocked.any(axis=1)).any())
