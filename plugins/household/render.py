"""Egocentric pinhole renderer in numpy: walls by angle-table raycasting, boxes by z-buffered slab tests."""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from suite_household.catalog import TYPES
from suite_household.geometry import scene_parts
from suite_household.world import WALL_HEIGHT, Agent, World

WALL_COLOR = (228, 222, 208)
CEILING_COLOR = (246, 246, 244)
NEAR = 0.02
FAR = 50.0
_ANGLE_BINS = 4096
_FACE_SHADE = np.array([0.78, 1.0, 0.9, 0.9], dtype=np.float32)  # x faces, top, z faces, bottom


@dataclass
class Frame:
    """One rendered view: RGB, z-depth (m) and the per-pixel owner index into `ids`."""

    rgb: np.ndarray
    depth: np.ndarray
    owner: np.ndarray
    ids: list[str]


@lru_cache(maxsize=16)
def _rays(width: int, height: int, fov: float, horizon: float) -> tuple[np.ndarray, ...]:
    """Per-pixel camera-relative ray data for one pitch: (px, qz, dy, angle bin, horizontal norm, bins)."""
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
    return (
        np.ascontiguousarray(px2),
        np.ascontiguousarray(qz.astype(np.float32)),
        np.ascontiguousarray(dy),
        idx,
        hnorm,
        bins,
    )


@lru_cache(maxsize=16)
def _floor_ceiling(
    width: int, height: int, fov: float, horizon: float, cam_y: float
) -> tuple[np.ndarray, ...]:
    """Per-pixel distance to the floor or ceiling plane and its face code, for one pitch and camera height."""
    dy = _rays(width, height, fov, horizon)[2]
    with np.errstate(divide="ignore"):
        t = np.where(dy < 0, -cam_y / dy, np.where(dy > 0, (WALL_HEIGHT - cam_y) / dy, FAR))
    return np.minimum(t, FAR).astype(np.float32), np.where(dy < 0, 1, 3).astype(np.int8)


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
        px, qz, dy, idx, hnorm, bins = _rays(w, h, self.fov, agent.horizon)
        yaw = math.radians(agent.yaw)
        sy, cy_ = math.sin(yaw), math.cos(yaw)
        dx = qz * sy + px * cy_
        dz = qz * cy_ - px * sy
        cam = agent.camera
        depth, owner, face, ids = self._structure(world, agent, dy, idx, hnorm, bins, dx, dz)
        boxes, colors, owners = scene_parts(world)
        ids_index = {oid: i for i, oid in enumerate(ids)}
        for oid in owners:
            if oid and oid not in ids_index:
                ids_index[oid] = len(ids)
                ids.append(oid)
        part_owner = np.array([ids_index[o] if o else ids_index["fixture"] for o in owners], dtype=np.int32)
        part = np.full((h, w), -1, dtype=np.int32)
        self._boxes(
            np.array(boxes, dtype=np.float32).reshape(-1, 6), cam, agent, dx, dy, dz, depth, part, face
        )
        hit = part >= 0
        owner[hit] = part_owner[part[hit]]
        rgb = (
            self._compose(world, ids, owner, part, face, colors, depth, dx, dy, dz, cam)
            if shade_colors
            else None
        )
        return Frame(rgb=rgb, depth=depth, owner=owner, ids=ids)

    def _structure(
        self,
        world: World,
        agent: Agent,
        dy: np.ndarray,
        idx: np.ndarray,
        hnorm: np.ndarray,
        bins: np.ndarray,
        dx: np.ndarray,
        dz: np.ndarray,
    ) -> tuple:
        cx, cy, cz = agent.camera
        walls = world.scene.walls
        beta = math.radians(agent.yaw) + bins
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
        rows = np.arange(len(bins))
        dist = np.minimum(tn[rows, which], FAR).astype(np.float32)
        xface = np.where(np.isclose(tn[rows, which], tx[rows, which]), 0, 2).astype(np.int8)
        t_fc, face_fc = _floor_ceiling(self.width, self.height, self.fov, agent.horizon, cy)
        t_wall = dist[idx] / hnorm
        y_wall = cy + t_wall * dy
        is_wall = (y_wall >= 0) & (y_wall <= WALL_HEIGHT)
        depth = np.where(is_wall, t_wall, t_fc)
        ids = ["ceiling", "fixture"] + [f"wall|{i}" for i in range(len(walls))]
        floors = [o for o in world.objects.values() if o.type == "Floor"]
        ids += [f.id for f in floors]
        floor_px = ~is_wall & (face_fc == 1)
        owner = np.where(is_wall, (2 + which.astype(np.int32))[idx], np.where(floor_px, 2 + len(walls), 0))
        if len(floors) > 1:
            fi = np.flatnonzero(floor_px)
            fx = cx + depth.ravel()[fi] * dx.ravel()[fi]
            fz = cz + depth.ravel()[fi] * dz.ravel()[fi]
            flat = owner.ravel()
            for k, f in enumerate(floors[1:], start=1):
                x0, _, z0, x1, _, z1 = f.box
                inside = (fx >= x0) & (fx < x1) & (fz >= z0) & (fz < z1)
                flat[fi[inside]] = 2 + len(walls) + k
        face = np.where(is_wall, xface[idx], face_fc)
        return depth.astype(np.float32), owner.astype(np.int32), face, ids

    def _boxes(
        self,
        boxes: np.ndarray,
        cam: tuple,
        agent: Agent,
        dx: np.ndarray,
        dy: np.ndarray,
        dz: np.ndarray,
        depth: np.ndarray,
        part: np.ndarray,
        face: np.ndarray,
    ) -> None:
        if not len(boxes):
            return
        h, w = depth.shape
        cx, cy, cz = cam
        with np.errstate(divide="ignore"):
            ix, iy, iz = 1.0 / dx, 1.0 / dy, 1.0 / dz
        rel = boxes - np.array([cx, cy, cz, cx, cy, cz], dtype=np.float32)
        corners = np.stack([rel[:, [a, b, c]] for a in (0, 3) for b in (1, 4) for c in (2, 5)], axis=1)
        yaw, pitch = math.radians(agent.yaw), math.radians(agent.horizon)
        fwd = np.array([math.sin(yaw) * math.cos(pitch), -math.sin(pitch), math.cos(yaw) * math.cos(pitch)])
        right = np.array([math.cos(yaw), 0.0, -math.sin(yaw)])
        up = np.array([math.sin(yaw) * math.sin(pitch), math.cos(pitch), math.cos(yaw) * math.sin(pitch)])
        zc = corners @ fwd
        tv = math.tan(math.radians(self.fov) / 2)
        th = tv * w / h
        with np.errstate(divide="ignore", invalid="ignore"):
            u = (corners @ right) / zc / th
            v = (corners @ up) / zc / tv
        behind = (zc <= NEAR).any(axis=1)
        j0 = np.where(behind, 0, np.floor((u.min(axis=1) + 1) / 2 * w)).clip(0, w).astype(int)
        j1 = np.where(behind, w, np.ceil((u.max(axis=1) + 1) / 2 * w) + 1).clip(0, w).astype(int)
        i0 = np.where(behind, 0, np.floor((1 - v.max(axis=1)) / 2 * h)).clip(0, h).astype(int)
        i1 = np.where(behind, h, np.ceil((1 - v.min(axis=1)) / 2 * h) + 1).clip(0, h).astype(int)
        zmin = np.maximum(zc.min(axis=1), NEAR)
        keep = (zc > NEAR).any(axis=1) & (j1 > j0) & (i1 > i0)
        for k in np.flatnonzero(keep)[np.argsort(zmin[keep], kind="stable")]:
            sl = (slice(i0[k], i1[k]), slice(j0[k], j1[k]))
            zb = depth[sl]
            if zmin[k] >= zb.max():
                continue
            bx0, by0, bz0, bx1, by1, bz1 = rel[k]
            a, b = bx0 * ix[sl], bx1 * ix[sl]
            tminx, tmaxx = np.minimum(a, b), np.maximum(a, b)
            a, b = by0 * iy[sl], by1 * iy[sl]
            tminy, tmaxy = np.minimum(a, b), np.maximum(a, b)
            a, b = bz0 * iz[sl], bz1 * iz[sl]
            tminz, tmaxz = np.minimum(a, b), np.maximum(a, b)
            tn = np.maximum(np.maximum(tminx, tminy), tminz)
            tf = np.minimum(np.minimum(tmaxx, tmaxy), tmaxz)
            hit = (tn <= tf) & (tn > NEAR) & (tn < zb)
            if not hit.any():
                continue
            zb[hit] = tn[hit]
            part[sl][hit] = k
            fc = np.where(tn == tminy, np.where(dy[sl] < 0, 1, 3), np.where(tn == tminx, 0, 2))
            face[sl][hit] = fc[hit]

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
        n_struct = len(world.scene.walls) + 2
        struct = [CEILING_COLOR, (120, 95, 70)] + [WALL_COLOR] * (n_struct - 2)
        struct += [TYPES["Floor"].color] * (len(ids) - n_struct)
        table = np.array(struct + list(colors), dtype=np.float32)
        shaded = np.clip(table[:, None, :] * _FACE_SHADE[None, :, None], 0, 255).astype(np.uint8)
        hit = part >= 0
        cidx = np.where(hit, part + len(ids), owner)
        rgb = shaded[cidx, face]
        cx, cy, cz = cam
        floor = np.flatnonzero(((~hit) & (face == 1)).ravel())
        px = cx + depth.ravel()[floor] * dx.ravel()[floor]
        pz = cz + depth.ravel()[floor] * dz.ravel()[floor]
        flat = rgb.reshape(-1, 3)
        dark = floor[(np.floor(px * 2) + np.floor(pz * 2)) % 2 == 0]
        flat[dark] = (flat[dark] * 0.9).astype(np.uint8)
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
            rgb = (rgb * 0.45).astype(np.uint8)
        return rgb
