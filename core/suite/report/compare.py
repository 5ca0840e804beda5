"""Paired comparisons between report rows: each row against the first, on the episodes both finished."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from suite.contract.records import INFRA_OUTCOMES
from suite.report.stats import MIN_RELIABLE_N, NO_INTERVAL, bootstrap_macro_ci, finite_or_none, task_of

if TYPE_CHECKING:
    from suite.contract.registry import Metric
    from suite.engine.host import PluginHost

Records = list[dict[str, Any]]
log = logging.getLogger("suite.report")
RowKey = tuple[str, str, str, str]  # (model, agent, label, variant) as text; "None" and "" when absent; variant
#: numbers rows of one model, agent and label kept apart because they ran on different data


def metric_value(record: dict[str, Any], name: str) -> float | None:
    """A record's numeric metric (booleans as 0/1); None for infra failures and missing or non-numeric values."""
    if record["outcome"] in INFRA_OUTCOMES:
        return None
    value = record["metrics"].get(name)
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, int | float) else None


def _by_episode(records: Records, name: str, group: str | None) -> dict[str, tuple[str, float]]:
    """episode id -> (macro group, value) for the records that have the metric."""
    out = {}
    for rec in records:
        value = metric_value(rec, name)
        if value is not None:
            out[rec["episode_id"]] = (str(rec["metrics"].get(group)) if group else "", value)
    return out


def paired_differences(base: Records, other: Records, name: str,
                       group: str | None = None) -> tuple[dict[str, list[float]], dict[str, list[str]], int]:
    """Per-episode `other - base` of metric `name` by macro group, the task of each (`task_of`), and how many
    episodes only one side has."""
    a, b = _by_episode(base, name, group), _by_episode(other, name, group)
    diffs: dict[str, list[float]] = defaultdict(list)
    tasks: dict[str, list[str]] = defaultdict(list)
    for episode in sorted(a.keys() & b.keys()):
        diffs[a[episode][0]].append(b[episode][1] - a[episode][1])
        tasks[a[episode][0]].append(task_of(episode))
    return diffs, tasks, len(a.keys() ^ b.keys())


def compare_rows(host: PluginHost | None, groups: Mapping[RowKey, Mapping[str, Records]],
                 data: Mapping[RowKey, Mapping[str, str]], resamples: int, confidence: float,
                 seed: int) -> list[dict[str, Any]]:
    """Every later row against the first: per benchmark both ran on the same data (`data`: row -> benchmark -> data
    identity) and headline metric, the mean paired difference with a bootstrap CI over episodes (within each group
    for macro metrics). Episodes of different data are never paired, whatever their ids."""
    keys = list(groups)
    if len(keys) < 2 or host is None:
        return []
    base_key, out = keys[0], []
    if not any(groups[base_key].values()):
        log.warning("the first row (%s) has no finished episodes: there is nothing to pair the other rows with",
                    " / ".join(str(v) for v in row_id(base_key).values() if v))
    for index, key in enumerate(keys[1:], 1):
        for bench in sorted(groups[base_key].keys() & groups[key].keys()):
            if data[base_key].get(bench) != data[key].get(bench):
                continue
            spec = host.registry.benchmarks.get(bench)
            for metric in spec.headline if spec else []:
                diffs, tasks, unpaired = paired_differences(groups[base_key][bench], groups[key][bench],
                                                            metric.name, metric.macro_by)
                mean, low, high = bootstrap_macro_ci(diffs, resamples, confidence, seed, tasks)
                pairs = sum(len(v) for v in diffs.values())
                units = sum(len(set(v)) for v in tasks.values())
                out.append({
                    "baseline": row_id(base_key), "other": row_id(key), "baseline_row": 0, "other_row": index,
                    "benchmark": bench, "unit": metric_unit(metric),
                    "metric": metric.name, "label": metric.label, "percent": metric.percent,
                    "pairs": pairs, "unpaired": unpaired, "tasks": units, "small_n": units < MIN_RELIABLE_N,
                    "mean_diff": finite_or_none(mean), "ci_low": finite_or_none(low), "ci_high": finite_or_none(high),
                    "no_interval": NO_INTERVAL if units == 1 else None,
                })
    return out


def metric_unit(metric: Metric) -> str:
    """What a headline metric's differences are in: percentage points for a rate, else its declared unit (e.g.
    `steps`), else its label."""
    return "percentage points" if metric.percent else metric.unit or metric.label


def row_id(key: RowKey) -> dict[str, str | None]:
    """A report row's identity as JSON: model (None for model-less agents), agent, label (None if unset)."""
    return {"model": None if key[0] == "None" else key[0], "agent": key[1], "label": key[2] or None}
