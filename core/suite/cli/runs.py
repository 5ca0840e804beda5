"""`suite runs [DIR]`: every run folder under a directory, with its status, headline scores and progress."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, TypeGuard

from suite.cli.output import existing_dir, print_table
from suite.contract.controls import visible
from suite.contract.errors import DataError, SuiteError
from suite.contract.schemas import read_json
from suite.engine.host import PluginHost
from suite.launch.consoles import err_console
from suite.launch.reporting import host_or_none
from suite.report.results_file import RESULTS_NAME
from suite.store.run_folder import DB_NAME, STAGING_PREFIX, RunStore
from suite.store.runsdir import runs_dir


def command(args: argparse.Namespace) -> int:
    """`suite runs [DIR]`: every run folder under DIR (any depth) with its date, duration, status, headline score
    per benchmark (from its results.json) and progress; a damaged folder is listed as such (exit 2)."""
    root = existing_dir(args.root) if args.root else runs_dir()
    if not root.is_dir():
        raise SuiteError(f"{root}: no such directory (no run has been made there yet)")
    host = None
    rows = []
    damaged = 0
    for db in sorted(root.rglob(DB_NAME)):
        if any(part.startswith(STAGING_PREFIX) for part in db.relative_to(root).parts):
            continue  # a run folder being created (or whose creation died): not a run
        try:
            meta, counts, spent, status = _read(db.parent)
        except SuiteError as exc:  # one damaged folder is listed as such; the others still are
            err_console.print(f"warning: {exc}", highlight=False, markup=False, soft_wrap=True)
            rows.append([visible(str(db.parent), lines=False), "-", "-", "damaged (see above)", *["-"] * 6])
            damaged += 1
            continue
        host = host or host_or_none()
        try:
            headline = headline_scores(host, db.parent)
        except SuiteError as exc:  # results.json is a copy of what `suite report` computes: the run is whole
            err_console.print(f"warning: {exc}", highlight=False, markup=False, soft_wrap=True)
            headline = "? (results.json damaged)"
            damaged += 1
        total = sum(counts.values())
        names = [db.parent, meta.get("model") or "-", meta.get("agent", "?"), meta.get("label") or "-"]
        run, model, agent, label = (visible(str(name), lines=False) for name in names)  # each on one line
        rows.append([run, _started(meta), _duration(meta, status), status, headline, model, agent, label,
                     f"{counts.get('done', 0)}/{total}", f"{spent:.4f}"])
    if not rows:
        err_console.print(f"no run folders under {root}", highlight=False)
        return 0
    print_table(f"Runs under {root}", ["run", "started (UTC)", "duration", "status", "headline", "model", "agent",
                                       "label", "done", "cost $"], rows)
    return 2 if damaged else 0


def _read(root: Path) -> tuple[dict[str, Any], dict[str, int], float, str]:
    """A run folder's metadata, episodes per status, dollars spent and status; a SuiteError when it is damaged."""
    store = RunStore(root)
    try:
        meta, counts = store.meta(), store.counts()
        spent = sum(s.cost_usd for kinds in store.spend().values() for s in kinds.values())
        status = store.status()
    finally:
        store.close()
    return meta, counts, spent, "crashed (resume it)" if status == "crashed" else status


def _started(meta: dict[str, Any]) -> str:
    """When the run was created, UTC to the minute."""
    created = meta.get("created_at")
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(created)) if _moment(created) else "-"


def _duration(meta: dict[str, Any], status: str) -> str:
    """From creation to the last end (a resumed run: to its latest end); `-` while it runs."""
    created, finished = meta.get("created_at"), meta.get("finished_at")
    if not _moment(created) or not _moment(finished) or status == "running":
        return "-"
    seconds = max(0, int(finished - created))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def _moment(value: Any) -> TypeGuard[float]:
    """Whether a metadata value is a time (seconds since the epoch) to show; a damaged one is shown as `-`."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e11


def headline_scores(host: PluginHost | None, root: Path) -> str:
    """Each benchmark's first headline metric as the run's results.json has it (`-` before it has one); a DataError
    naming the file when it is not the report's JSON object."""
    path = root / RESULTS_NAME
    if not path.is_file():
        return "-"
    summary = read_json(path)
    rows = summary.get("rows") if isinstance(summary, dict) else None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows[:1]):
        raise DataError(path, "/rows", "the report's rows (a list of objects)")
    parts = []
    for row in rows[:1]:
        cells = row.get("benchmarks", {})
        if not isinstance(cells, dict):
            raise DataError(path, "/rows/0/benchmarks", "an object of benchmarks")
        for bench, cell in sorted(cells.items()):
            metrics = cell.get("metrics") if isinstance(cell, dict) else None
            if not isinstance(metrics, dict) or not all(isinstance(m, dict) for m in metrics.values()):
                raise DataError(path, f"/rows/0/benchmarks/{bench}/metrics", "an object of metrics (objects)")
            spec = host.registry.benchmarks.get(bench) if host else None
            name = next((m.name for m in spec.headline if m.name in metrics), None) if spec else None
            name = name or next(iter(metrics), None)
            if name is None or not isinstance(metrics[name].get("mean"), int | float):
                continue
            metric = metrics[name]
            value = 100 * metric["mean"] if metric.get("percent") else metric["mean"]
            parts.append(f"{bench} {metric.get('label', name)} {value:.1f}")
    return ";\n".join(parts) or "-"  # a cell may break after each benchmark
