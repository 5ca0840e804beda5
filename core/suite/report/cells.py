"""How every report format writes a detail-table cell, and the one order of rows and benchmarks all formats keep:
the command line's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def cell_text(value: Any) -> str:
    """A detail-table cell as the tables print it: a float to one decimal, a count (an int) whole, None as `-`."""
    if isinstance(value, float):
        return f"{value:.1f}"
    return "-" if value is None else str(value)


def in_row_order(columns: Sequence[str], rows: list[list[Any]], names: Sequence[tuple[str, str]]) -> list[list[Any]]:
    """A plugin's detail rows in the report's row order (`names`: each report row's model cell, `-` when it has no
    model, and agent cell, as the plugins write them), the plugin's order kept within a report row. A detail row
    belongs to the report row of its model whose agent cell is the longest start of its own (a plugin may add to
    the agent, e.g. Vigil's ` +FB`); a table without `model` and `agent` columns, or a row of no report row, keeps
    its place relative to the others (rows of no report row go last)."""
    if "model" not in columns or "agent" not in columns:
        return rows
    m, a = list(columns).index("model"), list(columns).index("agent")

    def rank(row: list[Any]) -> int:
        model, agent = str(row[m] if row[m] is not None else "-"), str(row[a])
        fits = [(len(name[1]), -i) for i, name in enumerate(names) if name[0] == model and agent.startswith(name[1])]
        return -max(fits)[1] if fits else len(names)

    return sorted(rows, key=rank)


def bench_order(summary: dict[str, Any]) -> list[str]:
    """The report's benchmarks in the command line's order (`benchmarks`: the first run's, then those later runs add);
    those of a report written before the order was recorded by name."""
    seen = {b for row in summary["rows"] for b in row["benchmarks"]}
    listed = [b for b in summary.get("benchmarks", []) if b in seen]
    return listed + sorted(seen - set(listed))


def bench_items(summary: dict[str, Any], row: dict[str, Any]) -> list[tuple[str, Any]]:
    """A report row's benchmark groups in the report's order of benchmarks."""
    return [(b, row["benchmarks"][b]) for b in bench_order(summary) if b in row["benchmarks"]]
