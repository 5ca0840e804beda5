"""One view of either backend for benchmarks that act by pixel: world state, visibility, pixel -> instance.

`SimAdapter` wraps a controller from `thor_backend.make_controller` (the embedded `Controller` or
`ThorController`): the world is the live one on the embedded backend and one read from the last event's
metadata on AI2-THOR; the instance under a pixel comes from the last event's segmentation on both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from suite_household.controller import Controller
from suite_household.thor_backend import pixel_object, world_from_metadata
from suite_household.visibility import horizontal_distance, visible_objects
from suite_household.world import World


class SimAdapter:
    """World, visibility, distances and pixel lookup over an embedded or an AI2-THOR controller."""

    def __init__(self, ctl: Any) -> None:
        self.ctl = ctl
        self.embedded = isinstance(ctl, Controller)
        self._cached: tuple[int, World] | None = None
        #: False: embedded steps skip the RGB/segmentation render (privileged agents); lookups render lazily
        self.render = True

    @property
    def event(self) -> Any:
        """The last step's event."""
        return self.ctl.last_event

    @property
    def world(self) -> World:
        """The current state: live (embedded) or read from the last metadata (AI2-THOR)."""
        if self.embedded:
            return self.ctl.world
        event = self.ctl.last_event
        if self._cached is None or self._cached[0] != id(event):
            self._cached = (id(event), world_from_metadata(event.metadata))
        return self._cached[1]

    def step(self, action: str, **args: Any) -> tuple[bool, str]:
        """One controller step: (success, error message)."""
        if self.embedded and not self.render:
            args["renderImage"] = False
        event = self.ctl.step(action=action, **args)
        if self.embedded:
            return event.outcome
        return bool(event.metadata["lastActionSuccess"]), str(event.metadata.get("errorMessage") or "")

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the frames."""
        s = self.ctl.settings
        return int(s["width"]), int(s["height"])

    def visible(self, ids: set[str]) -> dict[str, bool]:
        """Whether each object is visible now, as the simulator defines it (in view, near, unobstructed)."""
        if self.embedded:
            c = self.ctl
            return visible_objects(c.world, c.width, c.height, c.fov, c.visibility_distance, only=ids)
        meta = {o["objectId"]: bool(o.get("visible")) for o in self.event.metadata["objects"]}
        return {i: meta.get(i, False) for i in ids}

    def distance(self, object_id: str) -> float:
        """Horizontal distance from the agent to the nearest point of the object's box (metres)."""
        return horizontal_distance(self.world, object_id)

    def object_at(self, x: int, y: int) -> str | None:
        """The object under native pixel (x, y) of the current frame (segmentation; the embedded backend
        renders an instance buffer when the last step skipped rendering)."""
        if getattr(self.event, "instance_segmentation_frame", None) is None and self.embedded:
            c = self.ctl
            return c.object_at((x + 0.5) / c.width, (y + 0.5) / c.height)
        oid = pixel_object(self.event, x, y)
        return oid if oid in self.world.objects else None

    def frame(self) -> np.ndarray:
        """The RGB frame of the last event (the embedded backend renders one when the step skipped it)."""
        frame = getattr(self.event, "frame", None)
        if frame is None and self.embedded:
            frame = self.ctl.renderer.render(self.ctl.world).require_rgb()
        if frame is None:
            raise RuntimeError("the last AI2-THOR event has no RGB frame (was the step run with renderImage=False?)")
        return frame

    def close(self) -> None:
        """Release the controller."""
        self.ctl.stop()
