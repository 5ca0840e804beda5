"""Summarize finished episodes per (model, agent) and benchmark: headline metrics with CIs, outcomes."""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suite.contract.records import INFRA_OUTCOMES, OUTCOMES
from suite.contract.registry import Cell
from suite.report.cells import cell_text, in_row_order
from suite.report.compare import RowKey, compare_rows, metric_value, row_id
from suite.report.protocol import row_protocol, run_protocol
from suite.report.reference import add_reference
from suite.report.rows import Row, data_identity, place, tag_rows
from suite.report.selection import run_fixes, run_selection
from suite.report.stats import CI_METHOD, MIN_RELIABLE_N, NO_INTERVAL, bootstrap_macro_ci, finite_or_none, task_of
from suite.store.run_folder import SPEND_KINDS, RunStore, distinct_runs
from suite.store.traces import NODE_LOST, Spend

if TYPE_CHECKING:
    from suite.engine.host import PluginHost

REPORT_FORMAT = "embodied-suite.report/1"
log = logging.getLogger("suite.report")


def _metric_values(records: list[dict[str, Any]], name: str,
                   group: str | None = None) -> tuple[dict[str, list[float]], dict[str, list[str]]]:
    """Numeric values of `metrics[name]` (infra failures excluded) by `metrics[group]` (one group if None), and the
    task of each (`task_of`)."""
    values: dict[str, list[float]] = defaultdict(list)
    tasks: dict[str, list[str]] = defaultdict(list)
    for rec in records:
        value = metric_value(rec, name)
        if value is not None:
            key = str(rec["metrics"].get(group)) if group else ""
            values[key].append(value)
            tasks[key].append(task_of(rec["episode_id"]))
    return values, tasks


def summarize_benchmark(host: PluginHost | None, bench: str, records: list[dict[str, Any]], unfinished: int,
                        resamples: int, confidence: float, seed: int, spend: dict[str, Spend]) -> dict[str, Any]:
    """One benchmark's column group: headline metrics with CIs, outcome counts, data sources, and what it spent
    (`spend`: finished, retried and cut-off attempts, see RunStore.spend)."""
    spend = {kind: spend.get(kind, Spend()) for kind in SPEND_KINDS}
    spec = host.registry.benchmarks.get(bench) if host else None
    outcomes = dict.fromkeys(OUTCOMES, 0)
    for rec in records:
        outcomes[rec["outcome"]] += 1
    metrics = {}
    for metric in spec.headline if spec else []:
        groups, tasks = _metric_values(records, metric.name, metric.macro_by)
        mean, low, high = bootstrap_macro_ci(groups, resamples, confidence, seed, tasks)
        n = sum(len(v) for v in groups.values())
        units = sum(len(set(v)) for v in tasks.values())
        metrics[metric.name] = {
            "label": metric.label, "percent": metric.percent, "n": n, "tasks": units,
            "small_n": 0 < units < MIN_RELIABLE_N,
            "mean": finite_or_none(mean), "ci_low": finite_or_none(low), "ci_high": finite_or_none(high),
            "no_interval": NO_INTERVAL if units == 1 else None,
        }
    steps = sum(int(r.get("steps", 0)) for r in records)
    truncated = sum(int(r.get("truncated_steps", 0)) for r in records)
    return {
        "episodes": len(records),
        "steps": steps,
        "truncated_steps": truncated,  # steps whose reply was cut at the token limit (finish_reason `length`)
        "truncated_share": truncated / steps if steps else 0.0,
        "unfinished": unfinished,
        "data_sources": sorted({r["data_source"] for r in records}),
        "metrics": metrics,
        "outcomes": outcomes,
        "infra_failures": sum(outcomes[o] for o in INFRA_OUTCOMES),
        "cost_usd": round(sum(s.cost_usd for s in spend.values()), 6),
        "tokens": sum(s.tokens for s in spend.values()),
        "cached_tokens": sum(s.cached_tokens for s in spend.values()),
        # replies an earlier run stored in the response cache, reused with --cache (model.cache=true)
        "earlier_run_replies": sum(s.earlier_run_replies for s in spend.values()),
        "spend": {kind: {**asdict(s), "cost_usd": round(s.cost_usd, 6)} for kind, s in spend.items()},
        **({"nodes": by_node(records)} if any(r.get("placement") for r in records) else {}),
    }


def by_node(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per node a Ray run placed episodes on: how many, their outcomes, and the GPUs they held."""
    nodes: dict[str, dict[str, Any]] = {}
    for rec in records:
        where = rec.get("placement") or {}
        node = nodes.setdefault(where.get("node", "unknown"), {"episodes": 0, "outcomes": {}, "gpus": []})
        node["episodes"] += 1
        node["outcomes"][rec["outcome"]] = node["outcomes"].get(rec["outcome"], 0) + 1
        node["gpus"] = sorted(set(node["gpus"]) | set(where.get("gpus", [])))
    return nodes


def summarize(host: PluginHost | None, run_dirs: list[Path], resamples: int = 1000, confidence: float = 0.95,
              seed: int = 0, reference: bool = False) -> dict[str, Any]:
    """The whole report as a JSON-ready dict (format `embodied-suite.report/1`, see docs/report.md); with
    `reference`, each benchmark's published numbers under `reference` and beside the tables they belong to."""
    groups: dict[RowKey, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    unfinished: dict[RowKey, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    spend: dict[RowKey, dict[str, dict[str, Spend]]] = defaultdict(lambda: defaultdict(dict))
    runs: list[dict[str, Any]] = []
    placed: list[Row] = []
    members: dict[RowKey, list[RunStore]] = defaultdict(list)
    run_index: dict[RowKey, list[int]] = defaultdict(list)
    listed: list[str] = []  # the benchmarks in the command line's order, run after run
    for run_dir in distinct_runs(run_dirs):
        store = RunStore(run_dir)
        meta = store.meta()
        listed += [b for b in meta.get("benchmarks", []) if b not in listed]
        data = {b: data_identity(d) for b, d in meta.get("data", {}).items()}
        row = place(placed, (str(meta.get("model")), str(meta.get("agent")), str(meta.get("label") or "")), data)
        members[row.key].append(store)
        run_index[row.key].append(len(runs))
        runs.append({"path": str(run_dir), "model": meta.get("model"), "agent": meta.get("agent"),
                     "status": store.status(), "data": meta.get("data", {}), "counts": store.counts(),
                     "superseded": len(store.superseded()), "selection": run_selection(run_dir, meta),
                     "fixes": run_fixes(run_dir, list(meta.get("benchmarks", []))),
                     "protocol": run_protocol(host, run_dir, list(meta.get("benchmarks", [])))})
    notes = tag_rows(placed)
    all_records: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in placed:
        _collect(row, members[row.key], groups[row.key], unfinished[row.key], spend[row.key], all_records)
    seen = {b for row in placed for b in [*groups[row.key], *unfinished[row.key]]}
    order = [b for b in listed if b in seen] + sorted(seen - set(listed))
    rows = []
    for row in placed:
        benches = groups[row.key]
        names = sorted(set(benches) | set(unfinished[row.key]), key=order.index)
        rows.append({
            **row_id(row.key), "data": {b: row.data[b] for b in sorted(row.data)}, "data_tag": row.tag,
            "runs": run_index[row.key],
            "protocol": row_protocol([runs[i].get("protocol") or {} for i in run_index[row.key]]),
            "benchmarks": {b: summarize_benchmark(host, b, benches.get(b, []), unfinished[row.key][b],
                                                  resamples, confidence, seed, spend[row.key][b]) for b in names},
        })
    notes += _earlier_run_notes(rows) + _node_loss_notes(rows)
    details = {}
    row_names = [("-" if row.key[0] == "None" else row.key[0], row.key[1] + _agent_suffix(row)) for row in placed]
    for bench, records in sorted(all_records.items(), key=lambda item: order.index(item[0])):
        spec = host.registry.benchmarks.get(bench) if host else None
        if spec and spec.detail_tables:
            details[bench] = [_detail_json({**vars(t), "rows": in_row_order(t.columns, t.rows, row_names)})
                              for t in spec.detail_tables(records)]
    data_ids = {row.key: {b: d["id"] for b, d in row.data.items()} for row in placed}
    comparisons = compare_rows(host, {row.key: groups[row.key] for row in placed}, data_ids, resamples, confidence,
                               seed)
    comparisons.sort(key=lambda c: (c["other_row"], order.index(c["benchmark"])))  # a metric's order kept
    summary = {"format": REPORT_FORMAT, "confidence": confidence, "outcomes": list(OUTCOMES),
               "ci": {"method": CI_METHOD, "resamples": resamples, "confidence": confidence, "seed": seed,
                      "min_reliable_n": MIN_RELIABLE_N},
               "benchmarks": order, "runs": runs, "rows": rows, "details": details, "comparisons": comparisons,
               "notes": notes}
    if reference:
        add_reference(host, summary)
    return summary


def _earlier_run_notes(rows: list[dict[str, Any]]) -> list[str]:
    """A line per row and benchmark some of whose replies came from an earlier run's cached replies (`--cache`):
    those replies are that run's samples, not new ones."""
    notes = []
    for row in rows:
        for bench, group in row["benchmarks"].items():
            if group["earlier_run_replies"]:
                name = f"{row['model'] or '-'} / {row['agent']}" + (f" ({row['label']})" if row.get("label") else "")
                notes.append(f"REUSED replies: {name} / {bench}: {group['earlier_run_replies']} model replies came "
                             "from the response cache of an earlier run (--cache), not from new requests")
    return notes


def _node_loss_notes(rows: list[dict[str, Any]]) -> list[str]:
    """A spend line per row and benchmark some of whose attempts a Ray node loss cut off: the model calls in flight
    then were paid for twice (billed, their replies lost, their cost unknown; the retry made them again)."""
    notes = []
    for row in rows:
        for bench, group in row["benchmarks"].items():
            lost = group["spend"][NODE_LOST]
            if lost["attempts"]:
                name = f"{row['model'] or '-'} / {row['agent']}" + (f" ({row['label']})" if row.get("label") else "")
                notes.append(f"PAID TWICE after a node loss: {name} / {bench}: up to {lost['attempts']} model call(s) "
                             f"in flight when {lost['attempts']} attempt(s) were cut off by their Ray node leaving "
                             f"(billed, replies lost, cost unknown); the {lost['steps']} call(s) those attempts had "
                             f"finished ({lost['prompt_tokens'] + lost['completion_tokens']:,} tokens, "
                             f"${lost['cost_usd']:.4f}) are in the cost once, their replies reused by the retries "
                             "from the run's response cache")
    return notes


def _collect(row: Row, stores: list[RunStore], groups: dict[str, list[dict[str, Any]]], unfinished: dict[str, int],
             spend: dict[str, dict[str, Spend]], all_records: dict[str, list[dict[str, Any]]]) -> None:
    """Read a row's runs into its benchmark groups (and the plugins' detail tables) and what they spent, warning of
    shared episodes."""
    seen: dict[str, Path] = {}
    shared: dict[tuple[Path, Path], int] = defaultdict(int)
    suffix = _agent_suffix(row)
    for store in stores:
        for rec in store.records():
            earlier = seen.setdefault(rec["episode_id"], store.root)
            if earlier != store.root:
                shared[(earlier, store.root)] += 1
            groups[rec["benchmark"]].append(rec)
            all_records[rec["benchmark"]].append({**rec, "agent": f"{rec['agent']}{suffix}"} if suffix else rec)
        query = "SELECT benchmark, COUNT(*) FROM episodes WHERE status!='done' GROUP BY 1"
        for bench, count in store.db.execute(query):
            unfinished[bench] += count
        for bench, kinds in store.spend().items():
            for kind, spent in kinds.items():
                spend[bench].setdefault(kind, Spend()).add(spent)
        store.close()
    for (first, second), count in shared.items():
        log.warning("%d episode(s) of %s are also in %s, with the same model, agent, label and data: both copies "
                    "are counted in one row (give the runs a --label to keep them apart)", count, second, first)


def _agent_suffix(row: Row) -> str:
    """What follows the agent in a plugin's detail rows: plugins' detail tables group by model and agent, so a
    report row's label and data letter go with the agent."""
    return (f" ({row.key[2]})" if row.key[2] else "") + (f" [data {row.tag}]" if row.tag else "")


def _detail_json(table: dict[str, Any]) -> dict[str, Any]:
    """A plugin's detail table as JSON: `rows` as the tables show them, `values` the same grid with numbers (a cell
    holding several numbers as an object of them), `text` every cell as the tables print it (counts whole)."""
    values = [[c.values if isinstance(c, Cell) else c for c in row] for row in table["rows"]]
    return {**table, "rows": [[str(c) if isinstance(c, Cell) else c for c in row] for row in table["rows"]],
            "values": values, "text": [[cell_text(c) for c in row] for row in table["rows"]]}
