"""Egocentric pinhole renderer in numpy: walls by angle-table raycasting, boxes by z-buffered slab tests."""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from suite_household.catalog import TYPES
from suite_household.geometry import scene_parts
from suite_household.world import WALL_HEIGHT, Agent, Wall, World

WALL_COLOR = (228, 222, 208)
CEILING_COLOR = (246, 246, 244)
NEAR = 0.02
FAR = 50.0
_ANGLE_BINS = 4096
_FACE_SHADE = np.array([0.78, 1.0, 0.9, 0.9], dtype=np.float32)  # x faces, top, z faces, bottom
_X_FACE, _Z_FACE = np.int8(0), np.int8(2)
_CLIP_MARGIN = 1e-3  # metres a box cut by the near plane grows by for its pixel window
_CORNER_SIGN = np.array([(a, b, c) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=np.float64)
_EDGES = np.array([(i, i | bit) for bit in (1, 2, 4) for i in range(8) if not i & bit])  # corner pairs
_CHECKER = (np.arange(256, dtype=np.uint8) * 0.9).astype(np.uint8)  # darker floor tiles
_LIGHTS_OFF = (np.arange(256, dtype=np.uint8) * 0.45).astype(np.uint8)


@dataclass
class Frame:
    """One rendered view: RGB, z-depth (m) and the per-pixel owner index into `ids`."""

    rgb: np.ndarray | None  # None when rendered with shade_colors=False
    depth: np.ndarray
    owner: np.ndarray
    ids: list[str]

    def require_rgb(self) -> np.ndarray:
        """The RGB image; RuntimeError when the frame was rendered without it (shade_colors=False)."""
        if self.rgb is None:
            raise RuntimeError("this frame was rendered with shade_colors=False and has no RGB image")
        return self.rgb


@dataclass(frozen=True)
class _Rays:
    """Camera-relative ray data for one size, field of view and pitch: ray = forward + px right + py up."""

    px: np.ndarray  # (1, w) rightward component per column
    qz: np.ndarray  # (h, 1) forward component in the horizontal plane per row
    dy: np.ndarray  # (h, w) vertical component (constant along a row)
    y_face: np.ndarray  # (h, 1) face code of a horizontal face a row's rays meet: 1 top, 3 bottom
    idx: np.ndarray  # (h, w) angle bin of each pixel
    hnorm: np.ndarray  # (h, w) horizontal length of each ray
    bins: np.ndarray  # (_ANGLE_BINS,) centre angle of each bin


@lru_cache(maxsize=16)
def _rays(width: int, height: int, fov: float, horizon: float) -> _Rays:
    """Per-pixel camera-relative ray data for one pitch."""
    tv = math.tan(math.radians(fov) / 2)
    th = tv * width / height
    px = ((np.arange(width, dtype=np.float32) + 0.5) / width * 2 - 1) * th
    py = (1 - (np.arange(height, dtype=np.float32) + 0.5) / height * 2) * tv
    phi = math.radians(horizon)
    px2 = np.broadcast_to(px[None, :], (height, width))
    qz = np.broadcast_to((math.cos(phi) + py * math.sin(phi))[:, None], (height, width))
    dy = np.broadcast_to((-math.sin(phi) + py * math.cos(phi))[:, None], (height, width)).astype(np.float32)
    alpha = np.arctan2(px2, qz)
    lo, hi = float(alpha.min()), float(alpha.max())
    bins = lo + (np.arange(_ANGLE_BINS) + 0.5) * (hi - lo + 1e-9) / _ANGLE_BINS
    idx = np.clip(((alpha - lo) / (hi - lo + 1e-9) * _ANGLE_BINS).astype(np.int32), 0, _ANGLE_BINS - 1)
    hnorm = np.sqrt(px2 * px2 + qz * qz).astype(np.float32)
    return _Rays(
        px=px[None, :],
        qz=np.ascontiguousarray(qz[:, :1]),
        dy=np.ascontiguousarray(dy),
        y_face=np.where(dy[:, :1] < 0, 1, 3).astype(np.int8),
        idx=idx,
        hnorm=hnorm,
        bins=bins,
    )


@lru_cache(maxsize=16)
def _floor_ceiling(
    width: int, height: int, fov: float, horizon: float, cam_y: float
) -> tuple[np.ndarray, ...]:
    """Per-pixel distance to the floor or ceiling plane, its face code and whether it is the floor."""
    dy = _rays(width, height, fov, horizon).dy
    with np.errstate(divide="ignore"):
        t = np.where(dy < 0, -cam_y / dy, np.where(dy > 0, (WALL_HEIGHT - cam_y) / dy, FAR))
    return np.minimum(t, FAR).astype(np.float32), np.where(dy < 0, 1, 3).astype(np.int8), dy < 0


@lru_cache(maxsize=4096)
def instance_color(object_id: str) -> tuple[int, int, int]:
    """A stable segmentation colour for an id (same in every process)."""
    h = zlib.crc32(object_id.encode())
    return ((h >> 16) & 255, (h >> 8) & 255, h & 255)


class Renderer:
    """Renders a world from its agent's camera."""

    def __init__(self, width: int, height: int, fov: float) -> None:
        self.width, self.height, self.fov = width, height, fov

    def render(self, world: World, shade_colors: bool = True) -> Frame:
        """Draw the world now; `shade_colors=False` skips the RGB pass (depth and owners only)."""
        agent = world.agent
        h, w = self.height, self.width
        rays = _rays(w, h, self.fov, agent.horizon)
        yaw = math.radians(agent.yaw)
        sy, cy_ = math.sin(yaw), math.cos(yaw)
        dx = rays.qz * sy + rays.px * cy_
        dz = rays.qz * cy_ - rays.px * sy
        cam = agent.camera
        depth, owner, face, ids = self._structure(world, agent, rays, dx, dz)
        boxes, colors, owners = scene_parts(world)
        ids_index = {oid: i for i, oid in enumerate(ids)}
        for oid in owners:
            if oid and oid not in ids_index:
                ids_index[oid] = len(ids)
                ids.append(oid)
        part_owner = np.array([ids_index[o] if o else ids_index["fixture"] for o in owners], dtype=np.int32)
        part = np.full((h, w), -1, dtype=np.int32)
        box_array = np.array(boxes, dtype=np.float32).reshape(-1, 6)
        self._boxes(box_array, part_owner, cam, agent, rays, dx, dz, depth, owner, part, face)
        rgb = (
            self._compose(world, ids, owner, part, face, colors, depth, dx, rays.dy, dz, cam)
            if shade_colors
            else None
        )
        return Frame(rgb=rgb, depth=depth, owner=owner, ids=ids)

    def _structure(
        self, world: World, agent: Agent, rays: _Rays, dx: np.ndarray, dz: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
        """Per-pixel depth, owner index and face code of walls, floors and ceiling, and the ids indexed."""
        cx, cy, cz = agent.camera
        walls = world.scene.walls
        which, dist, xface = _wall_hits(walls, cx, cz, math.radians(agent.yaw) + rays.bins)
        t_fc, face_fc, below = _floor_ceiling(self.width, self.height, self.fov, agent.horizon, cy)
        depth = np.take(dist, rays.idx)  # to the wall; the floor or ceiling where the ray misses it
        depth /= rays.hnorm
        y_wall = depth * rays.dy
        y_wall += cy
        off_wall = ~((y_wall >= 0) & (y_wall <= WALL_HEIGHT))
        np.copyto(depth, t_fc, where=off_wall)
        ids = ["ceiling", "fixture"] + [f"wall|{i}" for i in range(len(walls))]
        floors = [o for o in world.objects.values() if o.type == "Floor"]
        ids += [f.id for f in floors]
        floor_px = below & off_wall
        owner = np.take((2 + which).astype(np.int32), rays.idx)
        np.copyto(owner, 0, where=off_wall)
        np.copyto(owner, 2 + len(walls), where=floor_px)
        if len(floors) > 1:
            fi = np.flatnonzero(floor_px)
            fx = cx + depth.ravel()[fi] * dx.ravel()[fi]
            fz = cz + depth.ravel()[fi] * dz.ravel()[fi]
            flat = owner.ravel()
            for k, f in enumerate(floors[1:], start=1):
                x0, _, z0, x1, _, z1 = f.box
                inside = (fx >= x0) & (fx < x1) & (fz >= z0) & (fz < z1)
                flat[fi[inside]] = 2 + len(walls) + k
        face = np.take(xface, rays.idx)
        np.copyto(face, face_fc, where=off_wall)
        return depth, owner, face, ids

    def _boxes(
        self,
        boxes: np.ndarray,
        part_owner: np.ndarray,
        cam: tuple,
        agent: Agent,
        rays: _Rays,
        dx: np.ndarray,
        dz: np.ndarray,
        depth: np.ndarray,
        owner: np.ndarray,
        part: np.ndarray,
        face: np.ndarray,
    ) -> None:
        """Z-buffer the boxes front to back: a pixel takes the nearest hit's depth, part, owner and face."""
        if not len(boxes):
            return
        cx, cy, cz = cam
        rel = boxes - np.array([cx, cy, cz, cx, cy, cz], dtype=np.float32)
        order, zmin, windows = _box_windows(rel, agent, self.fov, self.width, self.height)
        with np.errstate(divide="ignore"):
            for k, (i0, i1, j0, j1) in zip(order, windows, strict=True):
                sl = (slice(i0, i1), slice(j0, j1))
                zb = depth[sl]
                if zmin[k] >= zb.max():
                    continue
                bx0, by0, bz0, bx1, by1, bz1 = rel[k]
                tminx, tmaxx = _slab(bx0, bx1, 1.0 / dx[sl])
                tminy, tmaxy = _slab(by0, by1, 1.0 / rays.dy[i0:i1, :1])
                tminz, tmaxz = _slab(bz0, bz1, 1.0 / dz[sl])
                tn = np.maximum(np.maximum(tminx, tminy), tminz)
                tf = np.minimum(np.minimum(tmaxx, tmaxy), tmaxz)
                hit = (tn <= tf) & (tn > NEAR) & (tn < zb)
                if not hit.any():
                    continue
                np.copyto(zb, tn, where=hit)
                np.copyto(part[sl], k, where=hit)
                np.copyto(owner[sl], part_owner[k], where=hit)
                fc = np.where(tn == tminy, rays.y_face[i0:i1], np.where(tn == tminx, _X_FACE, _Z_FACE))
                np.copyto(face[sl], fc, where=hit)

    def _compose(
        self,
        world: World,
        ids: list[str],
        owner: np.ndarray,
        part: np.ndarray,
        face: np.ndarray,
        colors: list,
        depth: np.ndarray,
        dx: np.ndarray,
        dy: np.ndarray,
        dz: np.ndarray,
        cam: tuple,
    ) -> np.ndarray:
        """Shade each pixel by owner or part colour and face, then floor tiles, dirt, cracks and lighting."""
        n_struct = len(world.scene.walls) + 2
        struct = [CEILING_COLOR, (120, 95, 70)] + [WALL_COLOR] * (n_struct - 2)
        struct += [TYPES["Floor"].color] * (len(ids) - n_struct)
        table = np.array(struct + list(colors), dtype=np.float32)
        shaded = np.clip(table[:, None, :] * _FACE_SHADE[None, :, None], 0, 255).astype(np.uint8)
        no_part = part < 0
        cidx = part + len(ids)
        np.copyto(cidx, owner, where=no_part)
        cidx *= len(_FACE_SHADE)
        cidx += face
        rgb = np.take(shaded.reshape(-1, 3), cidx, axis=0)
        cx, cy, cz = cam
        floor = np.flatnonzero((no_part & (face == 1)).ravel())
        px = cx + depth.ravel()[floor] * dx.ravel()[floor]
        pz = cz + depth.ravel()[floor] * dz.ravel()[floor]
        flat = rgb.reshape(-1, 3)
        dark = floor[(np.floor(px * 2) + np.floor(pz * 2)) % 2 == 0]
        flat[dark] = np.take(_CHECKER, flat[dark])
        for i, oid in enumerate(ids):
            obj = world.objects.get(oid)
            if obj is None or not (obj.is_dirty or obj.is_broken):
                continue
            sel = np.flatnonzero((owner == i).ravel())
            d = depth.ravel()[sel]
            wx, wy, wz = cx + d * dx.ravel()[sel], cy + d * dy.ravel()[sel], cz + d * dz.ravel()[sel]
            if obj.is_dirty:
                cell = (np.floor(wx * 60) * 7 + np.floor(wy * 60) * 13 + np.floor(wz * 60) * 17).astype(
                    np.int64
                )
                flat[sel[(cell * 2654435761 % 1000) < 300]] = (96, 82, 52)
            if obj.is_broken:
                flat[sel[np.abs(np.sin((wx + wz) * 40 + wy * 25)) < 0.12]] = (25, 25, 25)
        room = world.room_at(world.agent.x, world.agent.z)
        lights = [o for o in world.objects.values() if o.type == "LightSwitch" and o.room == room]
        if lights and not any(o.is_toggled for o in lights):
            rgb = np.take(_LIGHTS_OFF, rgb)
        return rgb


def _wall_hits(
    walls: tuple[Wall, ...], cx: float, cz: float, beta: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per horizontal ray angle: nearest wall's index, distance (capped at FAR) and face code (0 x, 2 z)."""
    ux, uz = np.sin(beta)[:, None], np.cos(beta)[:, None]
    wb = np.array([wl.box for wl in walls], dtype=np.float64).reshape(-1, 6)
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (wb[None, :, 0] - cx) / ux
        t2 = (wb[None, :, 3] - cx) / ux
        t3 = (wb[None, :, 2] - cz) / uz
        t4 = (wb[None, :, 5] - cz) / uz
    tx = np.minimum(t1, t2)
    tn = np.maximum(tx, np.minimum(t3, t4))
    tf = np.minimum(np.maximum(t1, t2), np.maximum(t3, t4))
    tn = np.where((tn <= tf) & (tf > 0), np.maximum(tn, 0), np.inf)
    which = np.argmin(tn, axis=1)
    rows = np.arange(len(beta))
    dist = np.minimum(tn[rows, which], FAR).astype(np.float32)
    xface = np.where(np.isclose(tn[rows, which], tx[rows, which]), 0, 2).astype(np.int8)
    return which, dist, xface


def _box_windows(
    rel: np.ndarray, agent: Agent, fov: float, width: int, height: int
) -> tuple[np.ndarray, np.ndarray, list[list[int]]]:
    """Boxes in front of the camera, nearest first, their nearest depths and windows (i0, i1, j0, j1)."""
    h, w = height, width
    corners = np.stack([rel[:, [a, b, c]] for a in (0, 3) for b in (1, 4) for c in (2, 5)], axis=1)
    yaw, pitch = math.radians(agent.yaw), math.radians(agent.horizon)
    fwd = np.array([math.sin(yaw) * math.cos(pitch), -math.sin(pitch), math.cos(yaw) * math.cos(pitch)])
    right = np.array([math.cos(yaw), 0.0, -math.sin(yaw)])
    up = np.array([math.sin(yaw) * math.sin(pitch), math.cos(pitch), math.cos(yaw) * math.sin(pitch)])
    zc = corners @ fwd
    tv = math.tan(math.radians(fov) / 2)
    th = tv * w / h
    with np.errstate(divide="ignore", invalid="ignore"):
        u = (corners @ right) / zc / th
        v = (corners @ up) / zc / tv
    behind = (zc <= NEAR).any(axis=1)
    j0 = np.where(behind, 0, np.floor((u.min(axis=1) + 1) / 2 * w)).clip(0, w).astype(int)
    j1 = np.where(behind, w, np.ceil((u.max(axis=1) + 1) / 2 * w) + 1).clip(0, w).astype(int)
    i0 = np.where(behind, 0, np.floor((1 - v.max(axis=1)) / 2 * h)).clip(0, h).astype(int)
    i1 = np.where(behind, h, np.ceil((1 - v.min(axis=1)) / 2 * h) + 1).clip(0, h).astype(int)
    front = (zc > NEAR).any(axis=1)
    cut = behind & front
    if cut.any():
        i0[cut], i1[cut], j0[cut], j1[cut] = _cut_windows(corners[cut], fwd, right, up, th, tv, w, h)
    zmin = np.maximum(zc.min(axis=1), NEAR)
    keep = front & (j1 > j0) & (i1 > i0)
    order = np.flatnonzero(keep)[np.argsort(zmin[keep], kind="stable")]
    return order, zmin, np.stack([i0, i1, j0, j1], axis=1)[order].tolist()


def _cut_windows(
    corners: np.ndarray,
    fwd: np.ndarray,
    right: np.ndarray,
    up: np.ndarray,
    th: float,
    tv: float,
    w: int,
    h: int,
) -> tuple[np.ndarray, ...]:
    """Pixel windows (i0, i1, j0, j1) of boxes the near plane cuts: their part in front of it, projected.

    The boxes are grown by _CLIP_MARGIN and cut that much nearer, and the windows padded by a pixel, so every
    pixel whose float32 slab test hits (rounding moves a hit by micrometres) lies inside.
    """
    grown = corners.astype(np.float64) + _CORNER_SIGN * _CLIP_MARGIN
    pts = np.stack([grown @ right, grown @ up, grown @ fwd], axis=-1)
    near = NEAR - _CLIP_MARGIN
    a, b = pts[:, _EDGES[:, 0]], pts[:, _EDGES[:, 1]]
    crosses = (a[..., 2] < near) != (b[..., 2] < near)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(crosses, (near - a[..., 2]) / (b[..., 2] - a[..., 2]), 0.0)
    pts = np.concatenate([pts, a + s[..., None] * (b - a)], axis=1)
    ok = np.concatenate([pts[:, :8, 2] >= near, crosses], axis=1)
    z = np.where(ok, pts[..., 2], 1.0)
    u = np.clip(pts[..., 0] / z / th, -2, 2)
    v = np.clip(pts[..., 1] / z / tv, -2, 2)
    j0 = np.floor((np.where(ok, u, 2).min(axis=1) + 1) / 2 * w) - 1
    j1 = np.ceil((np.where(ok, u, -2).max(axis=1) + 1) / 2 * w) + 1
    i0 = np.floor((1 - np.where(ok, v, -2).max(axis=1)) / 2 * h) - 1
    i1 = np.ceil((1 - np.where(ok, v, 2).min(axis=1)) / 2 * h) + 1
    return tuple(x.clip(0, n).astype(int) for x, n in ((i0, h), (i1, h), (j0, w), (j1, w)))


def _slab(lo: np.float32, hi: np.float32, inv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entry and exit ray parameters of one axis slab, from the inverse ray components."""
    a, b = lo * inv, hi * inv
    return np.minimum(a, b), np.maximum(a, b, out=b)
