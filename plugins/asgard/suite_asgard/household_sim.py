"""What the action layer asks of a simulator, on the embedded household world (`env.backend=household`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from suite_household.catalog import can_hold
from suite_household.controller import Controller
from suite_household.geometry import facing_pose
from suite_household.placement import find_spot
from suite_household.visibility import horizontal_distance, visible_objects
from suite_household.world import Obj, World

from suite_asgard.action_layer import SMALL_RECEPTACLE

FIND_RADIUS = 1.25
FIND_CANDIDATES = 48


class HouseholdSim:
    """Visibility, teleporting, low-level steps and frames on a household `Controller`."""

    #: `fits` is exact: it says whether a PUT will find room.
    exact_room = True

    def __init__(self, ctl: Controller) -> None:
        self.ctl = ctl
        self._reach: tuple[int, frozenset[str]] | None = None
        self._cells: list[tuple[float, float]] | None = None

    @property
    def world(self) -> World:
        """The live world."""
        return self.ctl.world

    def in_reach(self) -> frozenset[str]:
        """Ids of the objects in view and within interaction distance (the held object counts)."""
        world = self.world
        if self._reach is None or self._reach[0] != world.version:
            ctl = self.ctl
            seen = visible_objects(world, ctl.width, ctl.height, ctl.fov, ctl.visibility_distance)
            ids = frozenset(oid for oid, ok in seen.items() if ok and self._near(oid))
            self._reach = (world.version, ids)
        return self._reach[1]

    def _near(self, object_id: str) -> bool:
        world = self.world
        return object_id == world.held or world.objects[object_id].picked_up or (
            horizontal_distance(world, object_id) <= self.ctl.interaction_distance)

    def sees(self, ids: list[str]) -> dict[str, bool]:
        """Whether each of these objects is in view and within reach now (cheaper than `in_reach`)."""
        ctl = self.ctl
        seen = visible_objects(self.world, ctl.width, ctl.height, ctl.fov, ctl.visibility_distance, only=set(ids))
        return {i: seen[i] and self._near(i) for i in ids}

    def step(self, action: str, object_id: str) -> str | None:
        """One AI2-THOR action on an object the layer has checked is in reach (hence `forceAction`); the error
        message, or None. A refused step changes nothing, so the event's metadata (visibility of every
        object) is only built on failure."""
        version = self.world.version
        event = self.ctl.step(action=action, objectId=object_id, forceAction=True, renderImage=False)
        return None if self.world.version != version else str(event.metadata["errorMessage"])

    def set_state(self, object_id: str, **changes: Any) -> None:
        """Change an object's state directly (what DRINK does: no AI2-THOR action does it)."""
        self.world.set(object_id, **changes)

    def fits(self, rec: Obj, item: Obj) -> bool:
        """Whether the receptacle accepts the item and has room for it."""
        return can_hold(rec.type, item.type) and find_spot(self.world, rec, item.size, ignore=item.id) is not None

    def go_to(self, object_id: str, need_contents: bool = False) -> bool:
        """Teleport to a reachable spot from which the object is in view and within reach.

        For a small receptacle (a toaster, a pan, a plate...) a spot that also sees everything in it is
        preferred, so what was put in stays in view; with `need_contents` no other spot will do.
        """
        world = self.world
        obj = world.objects[object_id]
        start = world.agent
        cx, cy, cz = obj.center
        stances = (True, False) if cy > 0.55 else (False, True)
        small = max(obj.size[0], obj.size[2]) <= SMALL_RECEPTACLE
        contents = [c for c in world.children(object_id) if not world.enclosed(c)] if small else []
        fallback = None
        for x, z in self._candidate_cells(obj):
            for standing in stances:
                pose = facing_pose(x, z, (cx, cy, cz), standing)
                world.set_agent(pose)
                seen = self.sees([object_id, *contents])
                if not seen[object_id]:
                    continue
                if all(seen[c] for c in contents):
                    return True
                fallback = fallback or pose
        if need_contents:
            fallback = None
        world.set_agent(fallback or start)
        return fallback is not None

    def _candidate_cells(self, obj: Obj) -> list[tuple[float, float]]:
        if self._cells is None:
            a = self.world.agent
            self._cells = list(self.ctl.nav.reachable((a.x, a.z), self.ctl.grid_size))
        x0, _, z0, x1, _, z1 = obj.box
        scored = []
        for x, z in self._cells:
            d = math.hypot(max(x0 - x, 0, x - x1), max(z0 - z, 0, z - z1))
            if d <= FIND_RADIUS:
                scored.append((round(abs(d - 0.6), 3), x, z))
        scored.sort()
        return [(x, z) for _, x, z in scored[:FIND_CANDIDATES]]

    def move_object(self, object_id: str, center: tuple[float, float, float]) -> None:
        """Move an object (and what is on it) so its box centre is `center`, in the receptacle it is in."""
        x, y, z = self.world.objects[object_id].center
        self.world.translate(object_id, center[0] - x, center[1] - y, center[2] - z)

    def frame(self) -> np.ndarray:
        """The current RGB view."""
        return self.ctl.renderer.render(self.world).require_rgb()

    def close(self) -> None:
        """Release the controller."""
        self.ctl.stop()
