"""Where runs live: `run.runs_dir`, else $SUITE_RUNS_DIR, else ./runs (as Inspect's INSPECT_LOG_DIR)."""

from __future__ import annotations

import os
from pathlib import Path

from suite.contract.errors import SuiteError

ENV = "SUITE_RUNS_DIR"


def runs_dir(configured: str | None = None) -> Path:
    """The folder new runs go into and run names are looked up in."""
    return Path(configured or os.environ.get(ENV) or "runs")


def find_run(name: str) -> Path:
    """A run folder given as a path, or by its name under the runs folder (e.g. `20261125-101500`)."""
    path = Path(name)
    if path.is_dir():
        return path
    under = runs_dir() / name
    if not path.is_absolute() and under.is_dir():
        return under
    raise SuiteError(f"{name}: no such directory (nor a run of that name in {runs_dir()})")
