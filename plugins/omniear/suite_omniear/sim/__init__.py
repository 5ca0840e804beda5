"""The OmniEAR text simulator (a reimplementation of the reference EAR-Sim / OmniSimulator behaviour)."""

from suite_omniear.sim.centralized import ActionResult
from suite_omniear.sim.simulator import MAX_STEPS, OmniSim, StepOutcome

__all__ = ["MAX_STEPS", "ActionResult", "OmniSim", "StepOutcome"]
