"""Where objects can rest in or on a receptacle: support surfaces and free-spot search."""

from __future__ import annotations

import numpy as np

from suite_household.catalog import is_enclosing
from suite_household.world import Obj, World

Rect = tuple[float, float, float, float]  # x0, z0, x1, z1

# Open-topped receptacles hold their contents sunk by this fraction of their own height.
_SUNK = {
    "Bowl": 0.5,
    "Pot": 0.6,
    "Mug": 0.6,
    "Cup": 0.6,
    "Pan": 0.5,
    "GarbageCan": 0.4,
    "LaundryHamper": 0.4,
    "Toaster": 0.35,
    "Bathtub": 0.6,
    "Box": 0.0,
}
# Receptacles with several shelves: support heights as fractions of their height.
_LEVELS = {"Fridge": (0.04, 0.5), "ShelvingUnit": (0.33, 0.66, 1.0)}
_WALL = 0.03
_STEP = 0.025


def surfaces(rec: Obj) -> list[tuple[float, float, Rect]]:
    """Support surfaces of a receptacle: (support height, free height above it, rectangle) per level."""
    x0, _, z0, x1, _, z1 = rec.box
    h = rec.size[1]
    if is_enclosing(rec.type):
        rect = (x0 + _WALL, z0 + _WALL, x1 - _WALL, z1 - _WALL)
        levels = _LEVELS.get(rec.type, (0.0,))
        ys = [rec.bottom + _WALL + f * (h - 2 * _WALL) for f in levels]
        tops = ys[1:] + [rec.top - _WALL]
        return [(y, top - y, rect) for y, top in zip(ys, tops, strict=True)]
    if rec.type in _LEVELS:
        ys = [rec.bottom + f * h for f in _LEVELS[rec.type]]
        return [(y, (ys[i + 1] - y) if i + 1 < len(ys) else 2.0, (x0, z0, x1, z1)) for i, y in enumerate(ys)]
    if rec.type == "CoffeeMachine":
        fx, fz = rec.front
        cx, _, cz = rec.center
        sx, _, sz = rec.size
        px, pz = cx + fx * sx * 0.3, cz + fz * sz * 0.3
        hw, hd = (sx * 0.2, sz * 0.45) if fx else (sx * 0.45, sz * 0.2)
        return [(rec.bottom + 0.02, h * 0.6, (px - hw, pz - hd, px + hw, pz + hd))]
    y = rec.top - _SUNK.get(rec.type, 0.0) * h
    return [(y, 2.0, (x0 + 0.01, z0 + 0.01, x1 - 0.01, z1 - 0.01))]


def find_spot(
    world: World,
    rec: Obj,
    size: tuple[float, float, float],
    ignore: str | None = None,
    prefer: tuple[float, float] | None = None,
) -> tuple[float, float, float] | None:
    """The centre at which an object of `size` fits in/on `rec` without overlapping its contents, or None."""
    sx, sy, sz = size
    for y, free_h, (x0, z0, x1, z1) in surfaces(rec):
        if sy > free_h + 0.02:
            continue
        xs = _axis(x0, x1, sx)
        zs = _axis(z0, z1, sz)
        if xs is None or zs is None:
            continue
        gx, gz = np.meshgrid(xs, zs, indexing="ij")
        gx, gz = gx.ravel(), gz.ravel()
        ok = np.ones(gx.shape, dtype=bool)
        for s in _resting_on(world, y, (x0, z0, x1, z1), (rec.id, ignore)):
            bx0, _, bz0, bx1, _, bz1 = s.box
            ok &= ~(
                (gx - sx / 2 < bx1 - 0.005)
                & (gx + sx / 2 > bx0 + 0.005)
                & (gz - sz / 2 < bz1 - 0.005)
                & (gz + sz / 2 > bz0 + 0.005)
            )
        if not ok.any():
            continue
        px, pz = prefer if prefer is not None else ((x0 + x1) / 2, (z0 + z1) / 2)
        dist = np.round((gx - px) ** 2 + (gz - pz) ** 2, 6)
        idx = np.flatnonzero(ok)
        best = idx[np.lexsort((gz[idx], gx[idx], dist[idx]))[0]]
        return (round(float(gx[best]), 4), round(y + sy / 2, 4), round(float(gz[best]), 4))
    return None


def _resting_on(world: World, y: float, rect: Rect, skip: tuple[str | None, ...]) -> list[Obj]:
    x0, z0, x1, z1 = rect
    out = []
    for o in world.objects.values():
        if abs(o.bottom - y) > 0.03 or o.id in skip or o.picked_up:
            continue
        bx0, _, bz0, bx1, _, bz1 = o.box
        if bx0 < x1 and bx1 > x0 and bz0 < z1 and bz1 > z0:
            out.append(o)
    return out


def _axis(lo: float, hi: float, extent: float) -> np.ndarray | None:
    overhang = 0.25 * extent
    a, b = lo + extent / 2 - overhang, hi - extent / 2 + overhang
    if a > b + 1e-9:
        return None
    if b - a < _STEP:
        return np.array([(a + b) / 2])
    n = int((b - a) / _STEP) + 1
    return a + np.arange(n) * _STEP + (b - a - (n - 1) * _STEP) / 2
