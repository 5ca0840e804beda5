"""HoloMind's own pose estimate when the observation gives no pose (the paper's inputs): dead reckoning from the
actions it issued and whether each succeeded, in a frame that starts at (0, 0), facing 0 degrees, camera level."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from suite_longact.vocabulary import LOOKS, MOVES, ROTATIONS


@dataclass
class Odometry:
    """The pose (x, z, yaw, horizon) after the actions that succeeded; move and turn sizes are the action space's."""

    move_m: float = 0.05
    rotate_deg: float = 30.0
    look_deg: float = 30.0
    pose: dict[str, float] = field(default_factory=lambda: {"x": 0.0, "z": 0.0, "yaw": 0.0, "horizon": 0.0})

    def apply(self, action: dict[str, Any] | None, succeeded: bool) -> None:
        """Move the estimate by one action that the feedback says succeeded (a failed action changes nothing)."""
        name = (action or {}).get("action")
        p = self.pose
        if not succeeded or name is None:
            return
        if name in MOVES:
            rad = math.radians(p["yaw"] + MOVES[name])
            p["x"] = round(p["x"] + self.move_m * math.sin(rad), 4)
            p["z"] = round(p["z"] + self.move_m * math.cos(rad), 4)
        elif name in ROTATIONS:
            p["yaw"] = round((p["yaw"] + (self.rotate_deg if name == "RotateRight" else -self.rotate_deg)) % 360, 4)
        elif name in LOOKS:
            p["horizon"] = round(p["horizon"] + (self.look_deg if name == "LookDown" else -self.look_deg), 4)
