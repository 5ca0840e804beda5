"""HoloMind's free-space map: obstacles back-projected from depth, and paths on a 0.25 m lattice through the
start pose (walked in 0.05 m moves). Unknown space near the floor seen so far counts as free until seen otherwise;
a blocked move marks its lattice edge."""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np

CELL = 0.1
LATTICE = 0.25
CLEARANCE = 0.2  # the agent's radius
STRIDE = 5
MIN_H, MAX_H = 0.08, 1.9
SEARCH_RADIUS = 60  # lattice steps around the start
MARGIN = 1.0  # unknown space counts as free only this close to floor already seen


class FreeSpaceMap:
    """Obstacle cells (0.1 m) from depth, and breadth-first paths on the lattice."""

    def __init__(self, origin: tuple[float, float]) -> None:
        self.origin = origin
        self.obstacles: set[tuple[int, int]] = set()
        self.blocked_edges: set[frozenset] = set()
        self.visited: set[tuple[int, int]] = set()
        self.seen_floor: set[tuple[int, int]] = set()

    # -- building ---------------------------------------------------------------------------------------------
    def update(self, data: dict[str, Any], ignore: set[str]) -> None:
        """Add the obstacles of one depth frame (pixels of `ignore` ids and of open doors left out)."""
        depth, pose, cam = data.get("depth"), data.get("pose"), data.get("camera")
        if depth is None or pose is None:
            return
        if cam is None:  # the env sends the camera with every depth frame: without it nothing can be placed
            raise ValueError("a depth frame came without its camera (data['camera'])")
        owner, ids = data["segmentation"]
        d = depth[::STRIDE, ::STRIDE]
        o = owner[::STRIDE, ::STRIDE]
        h, w = depth.shape
        v, u = np.mgrid[0:h:STRIDE, 0:w:STRIDE]
        tv = math.tan(math.radians(cam["fov"]) / 2)
        th = tv * w / h
        xc = ((u + 0.5) / w * 2 - 1) * th
        yc = (1 - (v + 0.5) / h * 2) * tv
        yaw, pitch = math.radians(pose["yaw"]), math.radians(pose["horizon"])
        fwd = np.array([math.sin(yaw) * math.cos(pitch), -math.sin(pitch), math.cos(yaw) * math.cos(pitch)])
        right = np.array([math.cos(yaw), 0.0, -math.sin(yaw)])
        up = np.cross(fwd, right)
        rays = fwd[None, None, :] + xc[..., None] * right + yc[..., None] * up
        pts = np.array([pose["x"], cam["y"], pose["z"]]) + d[..., None] * rays
        skip = np.array([ids[int(k)] in ignore for k in range(len(ids))], dtype=bool)
        valid = np.isfinite(d) & (d > 0.05) & (d < 6.0) & ~skip[o]
        y = pts[..., 1]
        cells = np.floor(pts[..., [0, 2]] / CELL).astype(int)
        obstacle = valid & (y > MIN_H) & (y < MAX_H)
        floor = valid & (y <= MIN_H)
        self.obstacles.update(map(tuple, cells[obstacle].tolist()))
        self.seen_floor.update(map(tuple, cells[floor].tolist()))

    def clear_around(self, x: float, z: float, radius: float) -> None:
        """Forget obstacles near a point (a door that was opened)."""
        r = int(radius / CELL) + 1
        ci, cj = int(math.floor(x / CELL)), int(math.floor(z / CELL))
        for i in range(ci - r, ci + r + 1):
            for j in range(cj - r, cj + r + 1):
                self.obstacles.discard((i, j))

    def block_edge(self, a: tuple[int, int], b: tuple[int, int]) -> None:
        """A move along this lattice edge collided."""
        self.blocked_edges.add(frozenset((a, b)))

    # -- lattice ------------------------------------------------------------------------------------------------
    def pos(self, cell: tuple[int, int]) -> tuple[float, float]:
        """World (x, z) of a lattice point."""
        return (round(self.origin[0] + cell[0] * LATTICE, 4), round(self.origin[1] + cell[1] * LATTICE, 4))

    def cell(self, x: float, z: float) -> tuple[int, int]:
        """The lattice point nearest (x, z)."""
        return (round((x - self.origin[0]) / LATTICE), round((z - self.origin[1]) / LATTICE))

    def _free_point(self, x: float, z: float) -> bool:
        r = int(CLEARANCE / CELL) + 1
        ci, cj = int(math.floor(x / CELL)), int(math.floor(z / CELL))
        for i in range(ci - r, ci + r + 1):
            for j in range(cj - r, cj + r + 1):
                if (i, j) in self.obstacles and math.hypot((i + 0.5) * CELL - x, (j + 0.5) * CELL - z) < CLEARANCE:
                    return False
        return True

    def paths(self, start: tuple[int, int]) -> dict[tuple[int, int], tuple[int, int] | None]:
        """Breadth-first parents of every lattice point reachable from `start` (unknown space is free)."""
        parent: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
        free: dict[tuple[int, int], bool] = {start: True}
        bounds = self._bounds()
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nxt = (cur[0] + di, cur[1] + dj)
                if nxt in parent or abs(nxt[0]) > SEARCH_RADIUS or abs(nxt[1]) > SEARCH_RADIUS:
                    continue
                if frozenset((cur, nxt)) in self.blocked_edges:
                    continue
                if nxt not in free:
                    x, z = self.pos(nxt)
                    inside = bounds[0] <= x <= bounds[2] and bounds[1] <= z <= bounds[3]
                    free[nxt] = inside and self._free_point(x, z)
                mid = self.pos(cur), self.pos(nxt)
                if free[nxt] and self._free_point((mid[0][0] + mid[1][0]) / 2, (mid[0][1] + mid[1][1]) / 2):
                    parent[nxt] = cur
                    queue.append(nxt)
        return parent

    def _bounds(self) -> tuple[float, float, float, float]:
        """(xmin, zmin, xmax, zmax) of the floor seen so far, grown by MARGIN (the start alone at first)."""
        if not self.seen_floor:
            x, z = self.origin
            return (x - MARGIN, z - MARGIN, x + MARGIN, z + MARGIN)
        xs = [c[0] for c in self.seen_floor]
        zs = [c[1] for c in self.seen_floor]
        return (min(xs) * CELL - MARGIN, min(zs) * CELL - MARGIN, (max(xs) + 1) * CELL + MARGIN,
                (max(zs) + 1) * CELL + MARGIN)

    def frontier(self, parent: dict) -> list[tuple[int, int]]:
        """Reachable lattice points next to never-seen floor, not yet visited, nearest first."""
        out = []
        for cell in parent:
            if cell in self.visited:
                continue
            x, z = self.pos(cell)
            ci, cj = int(math.floor(x / CELL)), int(math.floor(z / CELL))
            if (ci, cj) in self.seen_floor:
                unseen = sum((ci + di, cj + dj) not in self.seen_floor for di in (-3, 0, 3) for dj in (-3, 0, 3))
                if unseen >= 3:
                    out.append(cell)
        return out
