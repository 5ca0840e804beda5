"""`results.json` in every run folder: the report's JSON object, kept current while episodes finish and written
again when the run ends, so scripts read a run's numbers without calling `suite report` (as lm-eval's results
file)."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

RESULTS_NAME = "results.json"
log = logging.getLogger(__name__)


class ResultsFile:
    """Writes a run's `results.json` at most every `every_s` seconds as episodes finish, and on `write()`."""

    def __init__(self, host: Any, root: Path, report_cfg: Any) -> None:
        self.host, self.root, self.cfg = host, root, report_cfg
        self.every_s = float(report_cfg.get("results_every_s", 30))
        self._last = time.monotonic()

    def episode_done(self) -> None:
        """An episode was stored: rewrite the file if the last write is old enough."""
        if time.monotonic() - self._last >= self.every_s:
            self.write()

    def write(self) -> Path | None:
        """Summarise the run as `suite report RUN --format json` would and replace the file atomically; a failure
        is a warning (the episodes are stored whatever happens to this file, and `suite report` reads them)."""
        from suite.report import summarize

        cfg, path = self.cfg, self.root / RESULTS_NAME
        self._last = time.monotonic()
        try:
            summary = summarize(self.host, [self.root], int(cfg.bootstrap), float(cfg.confidence), int(cfg.seed),
                                bool(cfg.get("reference")))
            partial = path.with_name(f".{RESULTS_NAME}.{os.getpid()}.tmp")
            partial.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            os.replace(partial, path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s not written (%s); `suite report %s --format json` gives the same object", path, exc,
                        self.root)
            return None
        return path
