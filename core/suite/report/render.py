"""Render a report summary as a rich table, Markdown, CSV (typed columns), JSON or LaTeX."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from rich.console import Console

from suite.contract.controls import visible
from suite.contract.records import OUTCOMES
from suite.report import escape
from suite.report.cells import bench_items, bench_order, cell_text
from suite.report.latex import to_latex
from suite.report.protocol import protocol_note
from suite.report.reference import headline_rows, printed
from suite.report.selection import fixes_note, selection_note
from suite.report.terminal import Grid, fit, key_columns

#: how the notes under the tables name each kind of data (suite.data.datadirs.DataChoice.kind)
DATA_KINDS = {"generated": "GENERATED pack (not the official data)",
              "official": "official data (every file matches the official release)",
              "user": "USER data (neither a generated pack nor verified as the official release)"}
PLAIN_WIDTH = 160  # the width of the plain-text copy `render` returns


def _interval(m: dict[str, Any], mean: float, scale: float, sign: str = "") -> str:
    """`mean [low, high]` of a metric or difference (its JSON `m`), with `(n=K)` after the mean when the interval
    rests on fewer than `ci.min_reliable_n` tasks, or the reason why there is none; the `\\n` is where a narrow
    terminal puts the interval on a second line."""
    if m["ci_low"] is None:
        return f"{mean * scale:{sign}.1f}\n({m.get('no_interval') or 'no interval'})"
    few = f" (n={m.get('tasks', m.get('n', m.get('pairs')))})" if m.get("small_n") else ""
    return f"{mean * scale:{sign}.1f}{few}\n[{m['ci_low'] * scale:{sign}.1f}, {m['ci_high'] * scale:{sign}.1f}]"


def _fmt(m: dict[str, Any]) -> str:
    if m["mean"] is None:
        return "-"
    text = _interval(m, m["mean"], 100 if m["percent"] else 1)
    return text + (f"\n{_vs_paper(m['paper']['diff'])}" if m.get("paper") else "")


def _vs_paper(diff: float) -> str:
    """The difference of the user's number to the paper's, beside the user's number."""
    return f"(paper {diff:+.1f})"


def _agent(row: dict[str, Any]) -> str:
    """The agent cell: the agent, the run label when there is one, the data letter when the report mixes data."""
    text = f"{row['agent']} ({row['label']})" if row.get("label") else str(row["agent"])
    text = visible(text, lines=False)  # a label is one line: a line break in it is shown, not made
    return f"{text} [data {row['data_tag']}]" if row.get("data_tag") else text


def _headline_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    benches = bench_order(summary)
    columns = ["model", "agent"]
    metric_names: dict[str, list[tuple[str, str]]] = {}
    for bench in benches:
        names: dict[str, str] = {}
        for row in summary["rows"]:
            for name, m in row["benchmarks"].get(bench, {}).get("metrics", {}).items():
                names.setdefault(name, m["label"])
        metric_names[bench] = list(names.items())
        columns += [f"{bench}\n{label}" for _, label in metric_names[bench]] + [f"{bench}\nn", f"{bench}\ninfra"]
    cached = any(g.get("cached_tokens") for row in summary["rows"] for g in row["benchmarks"].values())
    columns += ["tokens", *(["cached tokens"] if cached else []), "cost $"]
    rows = []
    for row in summary["rows"]:
        cells = [row["model"] or "-", _agent(row)]
        for bench in benches:
            group = row["benchmarks"].get(bench)
            if group is None:
                cells += ["-"] * (len(metric_names[bench]) + 2)
                continue
            cells += [_fmt(group["metrics"][n]) if n in group["metrics"] else "-" for n, _ in metric_names[bench]]
            n = str(group["episodes"]) + (f" (+{group['unfinished']} unfinished)" if group["unfinished"] else "")
            cells += [n, str(group["infra_failures"])]
        groups = row["benchmarks"].values()
        cells += [f"{sum(g['tokens'] for g in groups):,}"]
        if cached:  # served from the response cache: not spent, so apart from the tokens column
            cells += [f"{sum(g.get('cached_tokens', 0) for g in groups):,}"]
        cells += [f"{sum(g['cost_usd'] for g in groups):.4f}"]
        rows.append(cells)
    for paper in headline_rows(summary.get("reference", {})):
        cells = [paper["model"], paper["condition"]]
        for bench in benches:
            values = paper["metrics"] if bench == paper["benchmark"] else {}
            cells += [printed(values.get(n)) for n, _ in metric_names[bench]] + ["-", "-"]
        rows.append([*cells, "-", "-"])
    return columns, rows



def _outcome_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    columns = ["model", "agent", "benchmark", *OUTCOMES]
    rows = []
    for row in summary["rows"]:
        for bench, group in bench_items(summary, row):
            rows.append([row["model"] or "-", _agent(row), bench, *(str(group["outcomes"][o]) for o in OUTCOMES)])
    return columns, rows


def _node_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Per row, benchmark and Ray node: its episodes, their outcomes and the GPUs they held (none without Ray)."""
    columns = ["model", "agent", "benchmark", "node", "episodes", "outcomes", "GPUs"]
    rows = []
    for row in summary["rows"]:
        for bench, group in bench_items(summary, row):
            for node, seen in sorted(group.get("nodes", {}).items()):
                outcomes = ", ".join(f"{o} {n}" for o, n in sorted(seen["outcomes"].items()))
                rows.append([row["model"] or "-", _agent(row), bench, node, str(seen["episodes"]), outcomes,
                             ", ".join(seen["gpus"]) or "-"])
    return columns, rows


def _comparison_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    columns = ["model", "agent", "benchmark", "metric", "difference [CI]", "pairs", "unpaired"]
    rows = []
    for c in summary.get("comparisons", []):
        cell = "-"
        if c["mean_diff"] is not None:
            low, high = c["ci_low"], c["ci_high"]
            # a zero-width CI estimates no spread
            marker = " *" if low is not None and (low > 0 or high < 0) and low < high else ""
            cell = _interval(c, c["mean_diff"], 100 if c["percent"] else 1, "+") + marker
        other = summary["rows"][c["other_row"]] if "other_row" in c else c["other"]
        rows.append([c["other"]["model"] or "-", _agent(other), c["benchmark"], c["label"], cell,
                     str(c["pairs"]), str(c["unpaired"])])
    return columns, rows


def _notes(summary: dict[str, Any]) -> list[str]:
    """The lines under the tables: mixed data, small samples, then each benchmark's data and task selection."""
    notes = list(summary.get("notes", []))
    ci = summary.get("ci", {})
    small = any(m.get("small_n") for row in summary["rows"] for g in row["benchmarks"].values()
                for m in g["metrics"].values()) or any(c.get("small_n") for c in summary.get("comparisons", []))
    if small:
        notes.append(f"(n=K) marks an interval over fewer than {ci.get('min_reliable_n', 10)} tasks (the repeats of a "
                     "task count once): a bootstrap of so few is too narrow to trust, and a zero-width one only means "
                     "that the K tasks agreed within each stratum")
    for row in summary["rows"]:
        for bench, group in bench_items(summary, row):
            if group.get("truncated_steps"):
                share = f"{100 * group['truncated_share']:.0f}% of steps ({group['truncated_steps']}/{group['steps']})"
                notes.append(f"TRUNCATED replies: {row['model'] or row['agent']} / {bench}: {share} cut at the token "
                             "limit (finish_reason length): raise model.max_tokens or the server's context")
    data = []
    for run in summary["runs"]:
        if run.get("status") not in ("complete", None):
            data.append(f"run {run['path']}: {run['status']}")
        for bench, d in sorted(run.get("data", {}).items()):
            kind = DATA_KINDS.get(str(d.get("kind")), f"{d.get('kind')} data")
            digest = f" (sha256 {d['sha256'][:12]})" if d.get("sha256") else ""
            data.append(f"data: {bench}: {kind} at {d.get('path')}{digest}")
        for bench, sel in sorted((run.get("selection") or {}).items()):
            data.append(f"tasks: {selection_note(bench, sel)} [{run['path']}]")
        for bench, fixes in sorted((run.get("fixes") or {}).items()):
            data.append(fixes_note(bench, fixes))
        for bench, label in (run.get("protocol") or {}).items():
            data.append(protocol_note(bench, label, run["path"]))
    return notes + sorted(set(data), key=data.index)


def _grids(summary: dict[str, Any]) -> list[Grid]:
    ci = summary.get("ci", {})
    conf = int(round(summary["confidence"] * 100))
    method = f"{conf}% CI, {ci.get('method', 'percentile bootstrap')}" + (
        f" of {ci['resamples']} resamples" if ci.get("resamples") else "")
    grids = [Grid(f"Headline metrics (mean [{method}]; n = finished episodes; infra failures excluded)",
                  *_headline_rows(summary), grouped=True),
             Grid("Outcomes (failure taxonomy)", *_outcome_rows(summary), keep=3)]
    columns, by_node = _node_rows(summary)
    if by_node:
        grids.append(Grid("Where episodes ran (Ray nodes)", columns, by_node, keep=4))
    if summary.get("comparisons"):
        base = summary["rows"][0] if summary["rows"] else summary["comparisons"][0]["baseline"]
        title = (f"Paired differences against {base['model'] or '-'} / {_agent(base)} (same episodes on the same "
                 f"data; mean [{method}]; * where a CI of some width excludes 0)")
        grids.append(Grid(title, *_comparison_rows(summary), keep=4))
    for bench, details in summary["details"].items():
        for t in details:
            diffs = t.get("reference_diff") or [[None] * len(r) for r in t["rows"]]
            rows = [[cell_text(c) + (f"\n{_vs_paper(d)}" if d is not None else "") for c, d in zip(r, dr, strict=True)]
                    for r, dr in zip(t["rows"], diffs, strict=True)]
            grids.append(Grid(f"{bench}: {t['title']}", t["columns"], rows + t.get("reference_rows", []),
                              keep=key_columns(t)))
    return grids


def render(summary: dict[str, Any], fmt: str = "table", console: Console | None = None) -> str:
    """Render the summary; `table` prints through rich and returns the plain text."""
    if fmt == "json":
        return json.dumps(summary, indent=2, sort_keys=True)
    if fmt == "csv":
        return _csv(summary)
    if fmt == "md":
        return _markdown(summary)
    if fmt == "latex":
        return to_latex(summary)
    if fmt != "table":
        raise ValueError(f"unknown report format {fmt!r}")
    if console is not None:
        _print(summary, console)
    text = io.StringIO()
    _print(summary, Console(file=text, width=PLAIN_WIDTH, color_system=None))
    return text.getvalue()


def _print(summary: dict[str, Any], console: Console) -> None:
    for grid in _grids(summary):
        for table in fit(grid, console.width):
            console.print(table, highlight=False)
    for note in _notes(summary):
        console.print(escape.terminal(note), highlight=False)


def _markdown(summary: dict[str, Any]) -> str:
    parts = []
    for grid in _grids(summary):
        parts.append(f"### {escape.markdown(grid.title)}\n")
        parts.append("| " + " | ".join(escape.markdown(c) for c in grid.columns) + " |")
        parts.append("|" + "---|" * len(grid.columns))
        parts += ["| " + " | ".join(escape.markdown(c) for c in r) + " |" for r in grid.rows]
        parts.append("")
    parts += [f"- {escape.markdown(n)}" for n in _notes(summary)]
    return "\n".join(parts) + "\n"


#: `--format csv`: one row per report row, benchmark and headline metric, every number in a column of its own
CSV_COLUMNS = ["model", "agent", "label", "data_tag", "benchmark", "data_kind", "data_sha256", "data_path", "metric",
               "metric_label", "percent", "mean", "ci_low", "ci_high", "n", "tasks", "small_n", "no_interval",
               "ci_method", "confidence",
               "episodes", "unfinished", "infra_failures", "tokens", "cached_tokens", "earlier_run_replies", "cost_usd",
               "reference",
               "condition", "column", "paper_value", "paper_diff", "source"]


def csv_records(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline table as typed records (the CSV's rows): means and bounds as fractions for percent metrics."""
    ci = summary.get("ci", {})
    out = []
    for row in summary["rows"]:
        for bench, group in bench_items(summary, row):
            data = row.get("data", {}).get(bench, {})
            base = {"model": row["model"], "agent": row["agent"], "label": row.get("label"),
                    "data_tag": row.get("data_tag"), "benchmark": bench, "data_kind": data.get("kind"),
                    "data_sha256": data.get("id") if data.get("id") != data.get("path") else None,
                    "data_path": data.get("path"), "ci_method": ci.get("method", "percentile bootstrap"),
                    "confidence": summary["confidence"], "episodes": group["episodes"],
                    "unfinished": group["unfinished"], "infra_failures": group["infra_failures"],
                    "tokens": group["tokens"], "cached_tokens": group.get("cached_tokens", 0),
                    "earlier_run_replies": group.get("earlier_run_replies", 0),
                    "cost_usd": group["cost_usd"]}
            for name, m in group["metrics"].items():
                paper = m.get("paper") or {}
                out.append({**base, "reference": False, "metric": name, "metric_label": m["label"],
                            "percent": m["percent"], "mean": m["mean"], "ci_low": m["ci_low"], "ci_high": m["ci_high"],
                            "n": m["n"], "tasks": m.get("tasks"), "small_n": m.get("small_n", False),
                            "no_interval": m.get("no_interval"), "paper_value": paper.get("value"),
                            "paper_diff": paper.get("diff")})
    for bench, ref in sorted(summary.get("reference", {}).items()):
        for e in ref["entries"]:
            source = e["source"]
            out.append({"reference": True, "model": f"paper: {e['model']}", "benchmark": bench, "data_kind": "paper",
                        "metric": e["metric"], "metric_label": e["column"], "condition": e["condition"],
                        "column": e["column"], "paper_value": e["value"],
                        "source": f"{source['paper']}, {source['table']}, arXiv {source['arxiv'] or '-'}"
                                  f"{source['arxiv_version'] or ''}"})
    return out


def _csv(summary: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for record in csv_records(summary):
        writer.writerow({k: escape.csv_value(record.get(k)) for k in CSV_COLUMNS})
    return out.getvalue()
