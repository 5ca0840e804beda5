"""What lifecycle hooks learn about a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class RunInfo:
    """A run's identity and settings, as passed to `on_run_start`, `on_episode_end` and `on_run_end`: `meta` is the
    run's stored metadata (versions, data and its SHA-256, selection), `config` the run's resolved config as a plain
    dict with every credential redacted (`suite.contract.secrets`), a resumed run's with the resume's changes."""

    run_id: str
    path: Path
    benchmarks: list[str]
    agent: str
    model: str | None
    seed: int
    meta: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
