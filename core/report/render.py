"""Render a report summary as a rich table, Markdown, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from rich.console import Console
from rich.table import Table
from suite.records import OUTCOMES

PLAIN_WIDTH = 160  # the width of the plain-text copy `render` returns


def _fmt(m: dict[str, Any]) -> str:
    if m["mean"] is None:
        return "-"
    scale = 100 if m["percent"] else 1
    return f"{m['mean'] * scale:.1f} [{m['ci_low'] * scale:.1f}, {m['ci_high'] * scale:.1f}]"


def _headline_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    benches = sorted({b for row in summary["rows"] for b in row["benchmarks"]})
    columns = ["model", "agent"]
    metric_names: dict[str, list[tuple[str, str]]] = {}
    for bench in benches:
        names: dict[str, str] = {}
        for row in summary["rows"]:
            for name, m in row["benchmarks"].get(bench, {}).get("metrics", {}).items():
                names.setdefault(name, m["label"])
        metric_names[bench] = list(names.items())
        columns += [f"{bench}\n{label}" for _, label in metric_names[bench]] + [f"{bench}\nn", f"{bench}\ninfra"]
    columns += ["tokens", "cost $"]
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
        cells += [f"{sum(g['tokens'] for g in groups):,}", f"{sum(g['cost_usd'] for g in groups):.4f}"]
        rows.append(cells)
    return columns, rows


def _outcome_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    columns = ["model", "agent", "benchmark", *OUTCOMES]
    rows = []
    for row in summary["rows"]:
        for bench, group in sorted(row["benchmarks"].items()):
            rows.append([row["model"] or "-", _agent(row), bench, *(str(group["outcomes"][o]) for o in OUTCOMES)])
    return columns, rows


def _comparison_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    columns = ["model", "agent", "benchmark", "metric", "difference [CI]", "pairs", "unpaired"]
    rows = []
    for c in summary.get("comparisons", []):
        cell = "-"
        if c["mean_diff"] is not None:
            scale = 100 if c["percent"] else 1
            low, high = c["ci_low"] * scale, c["ci_high"] * scale
            marker = " *" if (low > 0 or high < 0) and low < high else ""  # a zero-width CI estimates no spread
            cell = f"{c['mean_diff'] * scale:+.1f} [{low:+.1f}, {high:+.1f}]{marker}"
        rows.append([c["other"]["model"] or "-", _agent(c["other"]), c["benchmark"], c["label"], cell,
                     str(c["pairs"]), str(c["unpaired"])])
    return columns, rows


def _data_note(summary: dict[str, Any]) -> list[str]:
    notes = []
    for run in summary["runs"]:
        for bench, data in sorted(run.get("data", {}).items()):
            kind = "GENERATED pack (not the official data)" if data.get("kind") == "generated" else "official data"
            notes.append(f"{bench}: {kind} at {data.get('path')}")
    return sorted(set(notes))


def _tables(summary: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    conf = int(round(summary["confidence"] * 100))
    tables = [(f"Headline metrics (mean [{conf}% bootstrap CI]; infra failures excluded)", *_headline_rows(summary)),
              ("Outcomes (failure taxonomy)", *_outcome_rows(summary))]
    if summary.get("comparisons"):
        base = summary["comparisons"][0]["baseline"]
        title = (f"Paired differences against {base['model'] or '-'} / {_agent(base)} (same episodes; mean "
                 f"[{conf}% bootstrap CI]; * where a CI of some width excludes 0)")
        tables.append((title, *_comparison_rows(summary)))
    for bench, details in summary["details"].items():
        for t in details:
            tables.append((f"{bench}: {t['title']}", t["columns"], [[_cell(c) for c in r] for r in t["rows"]]))
    return tables


def _agent(row: dict[str, Any]) -> str:
    """The agent cell: the agent, and the run label when there is one."""
    return f"{row['agent']} ({row['label']})" if row.get("label") else str(row["agent"])


def _one_line(column: str) -> str:
    """A column name for formats without multi-line headers (`omniear\nSR` -> `omniear SR`)."""
    return column.replace("\n", " ")


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1f}"
    return "-" if value is None else str(value)


def render(summary: dict[str, Any], fmt: str = "table", console: Console | None = None) -> str:
    """Render the summary; `table` prints through rich and returns the plain text."""
    if fmt == "json":
        return json.dumps(summary, indent=2, sort_keys=True)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        columns, rows = _headline_rows(summary)
        writer.writerow([_one_line(c) for c in columns])
        writer.writerows(rows)
        return out.getvalue()
    if fmt == "md":
        parts = []
        for title, columns, rows in _tables(summary):
            parts.append(f"### {title}\n")
            parts.append("| " + " | ".join(_one_line(c) for c in columns) + " |")
            parts.append("|" + "---|" * len(columns))
            parts += ["| " + " | ".join(r) + " |" for r in rows]
            parts.append("")
        parts += [f"- {n}" for n in _data_note(summary)]
        return "\n".join(parts) + "\n"
    if fmt != "table":
        raise ValueError(f"unknown report format {fmt!r}")
    if console is not None:
        for item in _renderables(summary, console.width):
            console.print(item, highlight=False)
    plain = Console(file=io.StringIO(), width=PLAIN_WIDTH, color_system=None)
    for item in _renderables(summary, PLAIN_WIDTH):
        plain.print(item, highlight=False)
    return plain.file.getvalue()


def _renderables(summary: dict[str, Any], width: int) -> list[Any]:
    """Rich tables (the headline one split into parts that fit `width`), then the data notes."""
    out: list[Any] = []
    for index, (title, columns, rows) in enumerate(_tables(summary)):
        parts = _fit(columns, rows, width) if index == 0 else [(columns, rows)]
        for number, (cols, part_rows) in enumerate(parts, 1):
            table = Table(title=title if number == 1 else f"{title}, continued ({number}/{len(parts)})",
                          title_justify="left")
            for col in cols:
                table.add_column(col, overflow="fold")
            for r in part_rows:
                table.add_row(*r)
            out.append(table)
    return out + [f"data: {note}" for note in _data_note(summary)]


def _fit(columns: list[str], rows: list[list[str]], width: int,
         keep: int = 2) -> list[tuple[list[str], list[list[str]]]]:
    """Split a table's column groups (columns sharing the header's first line) into tables no wider than `width`,
    each repeating the first `keep` columns; one table when it fits or a group alone is too wide."""
    def natural(i: int) -> int:
        return max([*(len(line) for line in columns[i].split("\n")), *(len(r[i]) for r in rows)]) + 3

    groups: list[list[int]] = []
    for i in range(keep, len(columns)):
        head = columns[i].split("\n", 1)[0] if "\n" in columns[i] else None
        if groups and head is not None and columns[groups[-1][0]].split("\n", 1)[0] == head:
            groups[-1].append(i)
        else:
            groups.append([i])
    base = sum(natural(i) for i in range(keep)) + 1
    chunks: list[list[int]] = [[]]
    used = base
    for group in groups:
        size = sum(natural(i) for i in group)
        if chunks[-1] and used + size > width:
            chunks.append([])
            used = base
        chunks[-1] += group
        used += size
    picked = [list(range(keep)) + chunk for chunk in chunks]
    return [([columns[i] for i in cols], [[r[i] for i in cols] for r in rows]) for cols in picked]
