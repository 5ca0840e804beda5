"""The Python API: run, resume, load, report, validate and audit from a script or a notebook, through the code the CLI
runs (`suite.launch`, `suite.validity`); errors are the CLI's typed `suite.contract.errors`. May import every group
below it, up to `suite.validity`."""

from suite.api.calls import aresume, arun, audit, resume, run, validate
from suite.api.runs import Frames, Run, load
from suite.launch.validation import Validation

__all__ = ["Frames", "Run", "Validation", "aresume", "arun", "audit", "load", "resume", "run", "validate"]
