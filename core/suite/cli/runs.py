"""`suite runs [DIR]`: every run folder under a directory, with its status, headline scores and progress."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from suite.cli.output import existing_dir, print_table
from suite.contract.errors import SuiteError
from suite.engine.host import PluginHost
from suite.launch.consoles import err_console
from suite.launch.reporting import host_or_none
from suite.report.results_file import RESULTS_NAME
from suite.store.run_folder import DB_NAME, STAGING_PREFIX, RunStore
from suite.store.runsdir import runs_dir


def command(args: argparse.Namespace) -> int:
    """`suite runs [DIR]`: every run folder under DIR (any depth) with its date, duration, status, headline score
    per benchmark (from its results.json) and progress."""
    root = existing_dir(args.root) if args.root else runs_dir()
    if not root.is_dir():
        raise SuiteError(f"{root}: no such directory (no run has been made there yet)")
    host = None
    rows = []
    for db in sorted(root.rglob(DB_NAME)):
        if any(part.startswith(STAGING_PREFIX) for part in db.relative_to(root).parts):
            continue  # a run folder being created (or whose creation died): not a run
        store = RunStore(db.parent)
        try:
            meta, counts = store.meta(), store.counts()
            spent = sum(s.cost_usd for kinds in store.spend().values() for s in kinds.values())
            status = store.status()
            if status == "crashed":
                status = "crashed (resume it)"
        finally:
            store.close()
        host = host or host_or_none()
        total = sum(counts.values())
        rows.append([str(db.parent), _started(meta), _duration(meta, status), status, headline_scores(host, db.parent),
                     meta.get("model") or "-", meta.get("agent", "?"), meta.get("label") or "-",
                     f"{counts.get('done', 0)}/{total}", f"{spent:.4f}"])
    if not rows:
        err_console.print(f"no run folders under {root}", highlight=False)
        return 0
    print_table(f"Runs under {root}", ["run", "started (UTC)", "duration", "status", "headline", "model", "agent",
                                       "label", "done", "cost $"], rows)
    return 0


def _started(meta: dict[str, Any]) -> str:
    """When the run was created, UTC to the minute."""
    created = meta.get("created_at")
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(created)) if created else "-"


def _duration(meta: dict[str, Any], status: str) -> str:
    """From creation to the last end (a resumed run: to its latest end); `-` while it runs."""
    created, finished = meta.get("created_at"), meta.get("finished_at")
    if not created or not finished or status == "running":
        return "-"
    seconds = max(0, int(finished - created))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def headline_scores(host: PluginHost | None, root: Path) -> str:
    """Each benchmark's first headline metric as the run's results.json has it (`-` before it has one)."""


    try:
        summary = json.loads((root / RESULTS_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "-"
    parts = []
    for row in summary.get("rows", [])[:1]:
        for bench, cell in sorted(row.get("benchmarks", {}).items()):
            metrics = cell.get("metrics") or {}
            spec = host.registry.benchmarks.get(bench) if host else None
            name = next((m.name for m in spec.headline if m.name in metrics), None) if spec else None
            name = name or next(iter(metrics), None)
            if name is None or metrics[name].get("mean") is None:
                continue
            metric = metrics[name]
            value = 100 * metric["mean"] if metric.get("percent") else metric["mean"]
            parts.append(f"{bench} {metric.get('label', name)} {value:.1f}")
    return ";\n".join(parts) or "-"  # a cell may break after each benchmark
