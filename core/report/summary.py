"""Summarize finished episodes per (model, agent) and benchmark: headline metrics with CIs, outcomes."""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path
from typing import Any

from suite.plugins import PluginHost
from suite.records import INFRA_OUTCOMES, OUTCOMES
from suite.report.compare import RowKey, compare_rows, metric_value, row_id
from suite.report.stats import bootstrap_ci, bootstrap_macro_ci, finite_or_none
from suite.store import RunStore, distinct_runs

REPORT_FORMAT = "embodied-suite.report/1"
log = logging.getLogger("suite.report")


def _metric_values(records: list[dict[str, Any]], name: str, group: str | None = None) -> dict[str, list[float]]:
    """Numeric values of `metrics[name]` (infra failures excluded), by `metrics[group]` (one group if None)."""
    values: dict[str, list[float]] = defaultdict(list)
    for rec in records:
        value = metric_value(rec, name)
        if value is not None:
            values[str(rec["metrics"].get(group)) if group else ""].append(value)
    return values


def summarize_benchmark(host: PluginHost | None, bench: str, records: list[dict[str, Any]], unfinished: int,
                        resamples: int, confidence: float, seed: int) -> dict[str, Any]:
    """One benchmark's column group: headline metrics with CIs, outcome counts, data sources."""
    spec = host.registry.benchmarks.get(bench) if host else None
    outcomes = dict.fromkeys(OUTCOMES, 0)
    for rec in records:
        outcomes[rec["outcome"]] += 1
    metrics = {}
    for metric in spec.headline if spec else []:
        groups = _metric_values(records, metric.name, metric.macro_by)
        if metric.macro_by:
            mean, low, high = bootstrap_macro_ci(groups, resamples, confidence, seed)
        else:
            mean, low, high = bootstrap_ci(groups.get("", []), resamples, confidence, seed)
        metrics[metric.name] = {
            "label": metric.label, "percent": metric.percent, "n": sum(len(v) for v in groups.values()),
            "mean": finite_or_none(mean), "ci_low": finite_or_none(low), "ci_high": finite_or_none(high),
        }
    return {
        "episodes": len(records),
        "unfinished": unfinished,
        "data_sources": sorted({r["data_source"] for r in records}),
        "metrics": metrics,
        "outcomes": outcomes,
        "infra_failures": sum(outcomes[o] for o in INFRA_OUTCOMES),
        "cost_usd": round(sum(r["cost_usd"] for r in records), 6),
        "tokens": sum(r["prompt_tokens"] + r["completion_tokens"] for r in records),
    }


def summarize(host: PluginHost | None, run_dirs: list[Path], resamples: int = 1000, confidence: float = 0.95,
              seed: int = 0) -> dict[str, Any]:
    """The whole report as a JSON-ready dict (format `embodied-suite.report/1`, see docs/report.md)."""
    groups: dict[RowKey, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    unfinished: dict[RowKey, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    runs, all_records = [], defaultdict(list)
    seen: dict[RowKey, dict[str, Path]] = defaultdict(dict)
    shared: dict[tuple[Path, Path], int] = defaultdict(int)
    order: dict[RowKey, None] = {}  # rows in the order of their first run, finished episodes or not
    for run_dir in distinct_runs(run_dirs):
        store = RunStore(run_dir)
        meta = store.meta()
        key = (str(meta.get("model")), str(meta.get("agent")), str(meta.get("label") or ""))
        order.setdefault(key)
        for rec in store.records():
            earlier = seen[key].setdefault(rec["episode_id"], run_dir)
            if earlier != run_dir:
                shared[(earlier, run_dir)] += 1
            groups[key][rec["benchmark"]].append(rec)
            # plugins' detail tables group by model and agent: a labelled run's rows carry the label with the agent
            all_records[rec["benchmark"]].append({**rec, "agent": f"{rec['agent']} ({key[2]})"} if key[2] else rec)
        for row in store.db.execute("SELECT benchmark, COUNT(*) FROM episodes WHERE status!='done' GROUP BY 1"):
            unfinished[key][row[0]] += row[1]
        runs.append({"path": str(run_dir), "model": meta.get("model"), "agent": meta.get("agent"),
                     "status": meta.get("status"), "data": meta.get("data", {}), "counts": store.counts(),
                     "superseded": len(store.superseded())})
        store.close()
    for (first, second), count in shared.items():
        log.warning("%d episode(s) of %s are also in %s, with the same model, agent and label: both copies are "
                    "counted in one row (give the runs a --label to keep them apart)", count, second, first)
    rows = []
    for key in order:
        benches = groups[key]
        names = sorted(set(benches) | set(unfinished[key]))
        rows.append({
            **row_id(key),
            "benchmarks": {b: summarize_benchmark(host, b, benches.get(b, []), unfinished[key][b],
                                                  resamples, confidence, seed) for b in names},
        })
    details = {}
    for bench, records in sorted(all_records.items()):
        spec = host.registry.benchmarks.get(bench) if host else None
        if spec and spec.detail_tables:
            details[bench] = [vars(t) for t in spec.detail_tables(records)]
    comparisons = compare_rows(host, {key: groups[key] for key in order}, resamples, confidence, seed)
    return {"format": REPORT_FORMAT, "confidence": confidence, "runs": runs, "rows": rows, "details": details,
            "comparisons": comparisons}
