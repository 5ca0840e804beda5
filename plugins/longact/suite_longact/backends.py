"""The simulators a LongAct episode runs on: the embedded household world, or AI2-THOR through the shared
adapter of plugins/household (`longact.env.backend=ai2thor`)."""

from __future__ import annotations

from typing import Any

from suite_household.controller import Controller
from suite_household.render import Frame
from suite_household.world import Scene, World


class HouseholdSim:
    """The household controller: live world, outcomes without metadata, frames on demand."""

    def __init__(self, scene: Scene, settings: dict[str, Any], rules: Any) -> None:
        self.ctl = Controller(scene, width=settings["width"], height=settings["height"],
                              fieldOfView=settings["field_of_view"],
                              visibilityDistance=settings["visibility_distance"],
                              interactionDistance=settings["interaction_distance"],
                              gridSize=settings["move_m"], rotateStepDegrees=settings["rotate_deg"],
                              rules=rules, renderImage=False)

    @property
    def world(self) -> World:
        """The live world."""
        return self.ctl.world

    def step(self, **args: Any) -> tuple[bool, str]:
        """One AI2-THOR call; (success, error message)."""
        return self.ctl.step(**args, renderImage=False).outcome

    def render_frame(self, rgb: bool = True) -> Frame:
        """Depth and the instance buffer of the current view, and its RGB unless `rgb` is False."""
        return self.ctl.renderer.render(self.ctl.world, shade_colors=rgb)

    def stop(self) -> None:
        """Release the controller."""
        self.ctl.stop()
