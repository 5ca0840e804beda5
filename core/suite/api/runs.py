"""A run folder in Python: how it ended, its episodes, its report (the `suite report --format json` object, the HTML
site) and both as pandas DataFrames."""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from suite.contract.extras import Requirement, check_requirements
from suite.launch.reporting import report_summary
from suite.report import render
from suite.report.export import episode_rows
from suite.report.html import build_site
from suite.report.render import csv_records
from suite.store.run_folder import RunStore
from suite.store.runsdir import find_run


class Frames(NamedTuple):
    """A run's pandas tables: one row per finished episode, and the headline table's typed records."""

    episodes: Any
    headline: Any


@dataclass(frozen=True)
class Run:
    """A run folder (made by `suite run`, `suite.run` or `suite.arun`, or loaded with `suite.load`)."""

    root: Path

    @property
    def meta(self) -> dict[str, Any]:
        """The run's stored metadata (benchmarks, model, agent, seed, data, status, ...)."""
        store = RunStore(self.root)
        try:
            return store.meta()
        finally:
            store.close()

    @property
    def status(self) -> str | None:
        """How the run ended: complete, stopped (the cost budget), interrupted; running while a process runs it."""
        return self.meta.get("status")

    @property
    def stop_cause(self) -> str | None:
        """Why the run stopped before its end (a permanent model error), or None."""
        return self.meta.get("stop_cause")

    def records(self) -> list[dict[str, Any]]:
        """Every finished episode's record, with the run folder under `run` (the rows of `suite export`)."""
        return list(episode_rows([self.root]))

    def report(self, *others: Run | str | Path, reference: bool | None = None) -> dict[str, Any]:
        """The cross-benchmark report of this run (the baseline) and `others`, as `suite report --format json` prints
        it; `reference` adds the papers' numbers (None: the run's `report.reference`)."""
        return json.loads(render(self._summary(others, reference), "json"))

    def to_pandas(self, *others: Run | str | Path, reference: bool | None = None) -> Frames:
        """The episodes (one row each, metrics as `metric.<name>` columns) and the headline table (one row per run
        group, benchmark and metric, as `suite report --format csv`) as DataFrames; needs the `pandas` extra."""
        pandas = _pandas()
        roots = [self.root, *(run_folder(o) for o in others)]
        episodes = [_flat(r) for r in episode_rows(roots)]
        headline = csv_records(self._summary(others, reference))
        return Frames(pandas.DataFrame.from_records(episodes), pandas.DataFrame.from_records(headline))

    def site(self, out: str | Path, *others: Run | str | Path, reference: bool | None = None) -> Path:
        """Write the HTML report of this run and `others` into the folder `out`, as `suite report --format html --out`
        does; returns its page (index.html)."""
        roots = [self.root, *(run_folder(o) for o in others)]
        host, summary = report_summary(roots, reference)
        return build_site(host, summary, roots, Path(out))

    def _summary(self, others: tuple[Run | str | Path, ...], reference: bool | None) -> dict[str, Any]:
        return report_summary([self.root, *(run_folder(o) for o in others)], reference)[1]


def load(path: str | Path) -> Run:
    """The run folder at `path` (or of that name under the runs folder); a SuiteError when it is not one."""
    root = find_run(str(path))
    RunStore(root).close()  # a SuiteError when the folder holds no run database
    return Run(root)


def run_folder(run: Run | str | Path) -> Path:
    """The folder of a `Run`, or of the run folder at a path (or of that name under the runs folder)."""
    return run.root if isinstance(run, Run) else load(run).root


def _flat(record: dict[str, Any]) -> dict[str, Any]:
    """A record with its metrics as `metric.<name>` columns (as `suite export --format csv` writes them)."""
    metrics = record.get("metrics") or {}
    return {**{k: v for k, v in record.items() if k != "metrics"}, **{f"metric.{k}": v for k, v in metrics.items()}}


def _pandas() -> Any:
    """pandas, or a ConfigError naming the extra that installs it (imported here, never by `import suite`)."""
    check_requirements([Requirement("Run.to_pandas()", "pandas", "pandas")])
    return importlib.import_module("pandas")
