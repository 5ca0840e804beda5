"""`suite report --format latex`: one booktabs table per benchmark (its headline metrics in the plugin's order, a row
per model, agent and label, the paper's rows under a rule with --reference), then the benchmark's own detail tables
in its paper's layout, and the paired differences. Numbers are those of `--format json`, one decimal, rates in %."""

from __future__ import annotations

import re
from typing import Any

from suite.contract.controls import visible
from suite.report.reference import headline_rows, printed

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
            ">": r"\textgreater{}"}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))


def tex(text: Any) -> str:
    """`text` as literal LaTeX: every special character escaped, line breaks as spaces, control characters shown."""
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], visible(" ".join(str(text).splitlines())))


def interval(m: dict[str, Any], scale: float) -> str:
    """`mean [low, high]` of a metric or difference, one decimal, in its unit (rates times 100)."""
    mean = m.get("mean", m.get("mean_diff"))
    if mean is None:
        return "-"
    if m["ci_low"] is None:
        return f"{mean * scale:.1f} ({m.get('no_interval') or 'no interval'})"
    return f"{mean * scale:.1f} [{m['ci_low'] * scale:.1f}, {m['ci_high'] * scale:.1f}]"


def _table(caption: str, columns: list[str], rows: list[list[str]], split: int | None = None) -> list[str]:
    """A booktabs table of already-escaped cells; a rule before row `split` (the paper's rows)."""
    lines = [r"\begin{table}[ht]", r"\centering\small", rf"\caption{{{caption}}}",
             r"\begin{tabular}{" + "l" * len(columns) + "}", r"\toprule", " & ".join(columns) + r" \\", r"\midrule"]
    for i, row in enumerate(rows):
        if i == split and i:
            lines.append(r"\midrule")
        lines.append(" & ".join(row) + r" \\")
    return lines + [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]


def _name(row: dict[str, Any]) -> tuple[str, str]:
    agent = row["agent"] + (f" ({row['label']})" if row.get("label") else "")
    return tex(row["model"] or "-"), tex(agent + (f" [data {row['data_tag']}]" if row.get("data_tag") else ""))


def _headline(summary: dict[str, Any], bench: str) -> list[str]:
    rows = [r for r in summary["rows"] if bench in r["benchmarks"]]
    names: dict[str, dict[str, Any]] = {}
    for r in rows:
        for name, m in r["benchmarks"][bench]["metrics"].items():
            names.setdefault(name, m)
    columns = ["model", "agent", *(tex(m["label"]) + (r" (\%)" if m["percent"] else "") for m in names.values()), "n"]
    cells = []
    for r in rows:
        group = r["benchmarks"][bench]
        cells.append([*_name(r), *(tex(interval(group["metrics"][n], 100 if m["percent"] else 1))
                                   if n in group["metrics"] else "-" for n, m in names.items()),
                      str(group["episodes"])])
    split = len(cells)
    for paper in headline_rows(summary.get("reference", {})):
        if paper["benchmark"] == bench:
            cells.append([tex(paper["model"]), tex(paper["condition"]),
                          *(tex(printed(paper["metrics"].get(n))) for n in names), "-"])
    conf = round(summary["confidence"] * 100)
    caption = tex(f"{bench}: headline metrics, mean [{conf}% CI] over finished episodes; n = episodes")
    return _table(caption, columns, cells, split)


def _detail(bench: str, table: dict[str, Any]) -> list[str]:
    cells = [[tex("-" if c is None else f"{c:.1f}" if isinstance(c, float) else c) for c in row]
             for row in table["rows"]]
    reference = [[tex(c) for c in row] for row in table.get("reference_rows", [])]
    return _table(tex(f"{bench}: {table['title']}"), [tex(c) for c in table["columns"]], cells + reference, len(cells))


def _comparisons(summary: dict[str, Any]) -> list[str]:
    base = summary["rows"][0]
    cells = []
    for c in summary["comparisons"]:
        other = summary["rows"][c["other_row"]] if "other_row" in c else c["other"]
        unit = "points" if c["percent"] else c["label"]
        cells.append([*_name(other), tex(c["benchmark"]), tex(c["label"]), tex(unit),
                      tex(interval(c, 100 if c["percent"] else 1)), str(c["pairs"])])
    caption = "Paired differences against " + " / ".join(_name(base)) + ": other minus baseline; n = pairs"
    return _table(caption, ["model", "agent", "benchmark", "metric", "unit", "difference [CI]", "n"], cells)


def to_latex(summary: dict[str, Any]) -> str:
    """The report as LaTeX tables (needs `\\usepackage{booktabs}`)."""
    lines = ["% embodied-suite report; needs \\usepackage{booktabs}", ""]
    for bench in sorted({b for r in summary["rows"] for b in r["benchmarks"]}):
        lines += _headline(summary, bench)
        for table in summary.get("details", {}).get(bench, []):
            lines += _detail(bench, table)
    if summary.get("comparisons"):
        lines += _comparisons(summary)
    return "\n".join(lines)
