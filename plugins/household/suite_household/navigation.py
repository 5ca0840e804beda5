"""Where the agent can stand: an occupancy grid of walls, doors and furniture, the scene's movable obstacles
(looked up live), collision and reachability."""

from __future__ import annotations

import math

import numpy as np

from suite_household.catalog import TYPES
from suite_household.obstacles import OBSTACLES, obstacle_at
from suite_household.world import AGENT_RADIUS, WALL_THICKNESS, World

RES = 0.05
GRID_SIZE = 0.25


class NavGrid:
    """A 5 cm occupancy grid of one world; doors and movable obstacles are looked up in the world, so their state
    and place count."""

    def __init__(self, world: World) -> None:
        self.world = world
        x0, z0, x1, z1 = world.scene.bounds
        self.x0, self.z0 = x0 - 0.5, z0 - 0.5
        self.nx = int(math.ceil((x1 - x0 + 1.0) / RES)) + 1
        self.nz = int(math.ceil((z1 - z0 + 1.0) / RES)) + 1
        self.names: list[str] = ["", "Wall"]
        self.owner = np.ones((self.nx, self.nz), dtype=np.int32)
        gx = self.x0 + np.arange(self.nx) * RES
        gz = self.z0 + np.arange(self.nz) * RES
        margin = WALL_THICKNESS / 2 + AGENT_RADIUS
        for r in world.scene.rooms:
            ix = (gx >= r.x0 + margin) & (gx <= r.x1 - margin)
            iz = (gz >= r.z0 + margin) & (gz <= r.z1 - margin)
            self.owner[np.ix_(ix, iz)] = 0
        for fx in world.scene.fixtures:
            self._block(fx.box, "Wall", gx, gz)
        for o in world.objects.values():
            t = TYPES[o.type]
            if t.pickupable or o.type in ("Floor", "Doorway") or o.bottom >= 1.0 or o.parent is not None:
                continue
            self._block(o.box, o.id, gx, gz)
        self.obstacles = bool(world.scene.meta.get(OBSTACLES))
        self.doors: list[str] = []
        self.door_cell = np.full((self.nx, self.nz), -1, dtype=np.int32)
        for o in world.objects.values():
            if o.type == "Doorway":
                self._door(o.id, o.box, gx, gz)

    def _block(self, box: tuple, name: str, gx: np.ndarray, gz: np.ndarray) -> None:
        bx0, _, bz0, bx1, _, bz1 = box
        r = AGENT_RADIUS
        ix = (gx > bx0 - r) & (gx < bx1 + r)
        iz = (gz > bz0 - r) & (gz < bz1 + r)
        if ix.any() and iz.any():
            self.names.append(name)
            sub = self.owner[np.ix_(ix, iz)]
            sub[sub == 0] = len(self.names) - 1
            self.owner[np.ix_(ix, iz)] = sub

    def _door(self, door_id: str, box: tuple, gx: np.ndarray, gz: np.ndarray) -> None:
        bx0, _, bz0, bx1, _, bz1 = box
        r = AGENT_RADIUS
        reach = WALL_THICKNESS / 2 + r + RES
        if bx1 - bx0 > bz1 - bz0:  # wall along x: pass through in z
            ix = (gx >= bx0 + r) & (gx <= bx1 - r)
            iz = np.abs(gz - (bz0 + bz1) / 2) <= reach
        else:
            iz = (gz >= bz0 + r) & (gz <= bz1 - r)
            ix = np.abs(gx - (bx0 + bx1) / 2) <= reach
        self.doors.append(door_id)
        self.door_cell[np.ix_(ix, iz)] = len(self.doors) - 1
        self.owner[np.ix_(ix, iz)] = 0

    def _cell(self, x: float, z: float) -> tuple[int, int] | None:
        i, j = int(round((x - self.x0) / RES)), int(round((z - self.z0) / RES))
        if 0 <= i < self.nx and 0 <= j < self.nz:
            return i, j
        return None

    def blocker(self, x: float, z: float) -> str | None:
        """Name of what blocks the agent standing at (x, z), or None when the spot is free."""
        cell = self._cell(x, z)
        if cell is None:
            return "Wall"
        owner = int(self.owner[cell])
        if owner:
            return self.names[owner]
        if self.obstacles and (hit := obstacle_at(self.world, x, z)) is not None:
            return hit
        door = int(self.door_cell[cell])
        if door >= 0 and not self.world.objects[self.doors[door]].is_open:
            return self.doors[door]
        return None

    def path_blocker(self, x0: float, z0: float, x1: float, z1: float) -> str | None:
        """What first blocks a straight move from (x0, z0) to (x1, z1), or None."""
        n = max(1, int(math.ceil(math.hypot(x1 - x0, z1 - z0) / (RES / 2))))
        for k in range(1, n + 1):
            t = k / n
            hit = self.blocker(x0 + (x1 - x0) * t, z0 + (z1 - z0) * t)
            if hit is not None:
                return hit
        return None

    def free_cells(self) -> list[tuple[float, float]]:
        """Every free cell centre on the 25 cm lattice of the scene (doors as they are now)."""
        step = int(round(GRID_SIZE / RES))
        out = []
        for i in range(0, self.nx, step):
            for j in range(0, self.nz, step):
                x, z = round(self.x0 + i * RES, 3), round(self.z0 + j * RES, 3)
                if self.blocker(x, z) is None:
                    out.append((x, z))
        return out

    def reachable(
        self, start: tuple[float, float], grid_size: float = GRID_SIZE
    ) -> list[tuple[float, float]]:
        """Positions on the lattice through `start` that the agent can walk to, sorted."""
        sx, sz = start
        if self.blocker(sx, sz) is not None:
            return []
        seen = {(0, 0)}
        frontier = [(0, 0)]
        while frontier:
            nxt = []
            for i, j in frontier:
                x, z = sx + i * grid_size, sz + j * grid_size
                for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    key = (i + di, j + dj)
                    if key in seen:
                        continue
                    if self.path_blocker(x, z, x + di * grid_size, z + dj * grid_size) is None:
                        seen.add(key)
                        nxt.append(key)
            frontier = nxt
        return sorted((round(sx + i * grid_size, 4), round(sz + j * grid_size, 4)) for i, j in seen)
