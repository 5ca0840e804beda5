"""`suite report --format latex`: one booktabs table per benchmark (its headline metrics in the plugin's order, a row
per model, agent and label, the paper's rows under a rule with --reference), then the benchmark's own detail tables
in its paper's layout, and the paired differences. Numbers are those of `--format json`, one decimal, rates in %.

The output is plain ASCII that pdflatex compiles with booktabs and graphicx: symbols in math (`$\\Delta$`), accents
as commands, a score curve as a row of rules; a table wider than about a page's line is split into parts that repeat
its key columns, and each part is scaled down to the line width if it is still wider."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

from suite.contract.controls import visible
from suite.report.cells import bench_order, cell_text
from suite.report.reference import headline_rows, printed
from suite.report.terminal import key_columns

PACKAGES = ("booktabs", "graphicx")
#: how many characters of `\small` text (and 3 per column for its padding) a table part holds: an article's line holds
#: about 88, so a part is at most scaled to 80 %; wider tables are split into parts that repeat the key columns
PART_WIDTH = 110
_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
            ">": r"\textgreater{}", "|": r"$|$"}
_SYMBOLS = {"±": r"$\pm$", "¬": r"$\neg$", "×": r"$\times$", "÷": r"$\div$", "≤": r"$\leq$", "≥": r"$\geq$",
            "≠": r"$\neq$", "≈": r"$\approx$", "→": r"$\rightarrow$", "←": r"$\leftarrow$", "·": r"$\cdot$",
            "•": r"$\bullet$", "°": r"$^\circ$", "∞": r"$\infty$", "−": r"$-$", "√": r"$\surd$", "µ": r"$\mu$",
            "–": "--", "—": "---", "…": r"\ldots{}", "§": r"\S{}", "¶": r"\P{}", "“": "``", "”": "''", "‘": "`",
            "’": "'", "«": r"$\ll$", "»": r"$\gg$", "\u00a0": "~", "ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}",
            "ø": r"\o{}", "Ø": r"\O{}", "œ": r"\oe{}", "Œ": r"\OE{}", "ł": r"\l{}", "Ł": r"\L{}", "ı": r"\i{}",
            "†": r"$^\dagger$", "¿": "?`", "¡": "!`", "©": r"\copyright{}", "£": r"\pounds{}"}
_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u", "\u0307": ".",
            "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0327": "c", "\u0328": "k"}
#: Greek capitals that LaTeX writes as Latin letters (the others have commands: $\Delta$)
_GREEK_LATIN = {"ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H", "IOTA": "I", "KAPPA": "K",
                "MU": "M", "NU": "N", "OMICRON": "O", "RHO": "P", "TAU": "T", "CHI": "X"}
_BLOCKS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"  # a score curve's bars, an eighth to a whole
_CURVE = re.compile(f"[ {_BLOCKS}]*[{_BLOCKS}][ {_BLOCKS}]*")


def tex(text: Any) -> str:
    """`text` as literal LaTeX in plain ASCII: special characters escaped, symbols in math, accented letters as
    accent commands, a curve of block characters as rules, line breaks as spaces, control characters shown, and
    anything else as its code point (`[U+4E2D]`)."""
    flat = visible(" ".join(str(text).splitlines()))
    out, at = [], 0
    for curve in _CURVE.finditer(flat):
        out += [*map(_char, flat[at:curve.start()]), _curve(curve.group())]
        at = curve.end()
    return "".join(out + [*map(_char, flat[at:])])


@cache
def _char(c: str) -> str:
    if c in _SPECIAL:
        return _SPECIAL[c]
    if c.isascii():
        return c
    if c in _SYMBOLS:
        return _SYMBOLS[c]
    greek = re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER (\w+)", unicodedata.name(c, ""))
    if greek:
        case, name = greek.groups()
        if case == "CAPITAL":
            return _GREEK_LATIN.get(name) or rf"$\{name.capitalize()}$"
        return "o" if name == "OMICRON" else r"$\varsigma$" if name == "FINAL" else rf"$\{name.lower()}$"
    decomposed = unicodedata.normalize("NFD", c)
    base, marks = decomposed[0], decomposed[1:]
    if base.isascii() and base.isalpha() and marks and all(m in _ACCENTS for m in marks):
        for mark in marks:
            base = rf"\{_ACCENTS[mark]}{{{base}}}"
        return base
    return f"[U+{ord(c):04X}]"


def _curve(text: str) -> str:
    """A curve of block characters as a row of bars (a blank as an empty bar), each .2em wide."""
    bars = (r"\rule{.2em}{%.2fex}" % (0.25 * (_BLOCKS.index(c) + 1) if c != " " else 0) for c in text)
    return r"\mbox{" + "".join(bars) + "}"


def interval(m: dict[str, Any], scale: float) -> str:
    """`mean [low, high]` of a metric or difference, one decimal, in its unit (rates times 100), or why there is no
    interval."""
    mean = m.get("mean", m.get("mean_diff"))
    if mean is None:
        return "-"
    if m["ci_low"] is None:
        return f"{mean * scale:.1f} ({m.get('no_interval') or 'no interval'})"
    return f"{mean * scale:.1f} [{m['ci_low'] * scale:.1f}, {m['ci_high'] * scale:.1f}]"


def _parts(columns: list[str], rows: list[list[str]], keys: int) -> list[list[int]]:
    """Column indices of each part of a table: the key columns, then as many others as fit in PART_WIDTH."""
    width = [max(map(_width, [columns[i], *(r[i] for r in rows)])) + 3 for i in range(len(columns))]
    base = sum(width[:keys])
    parts: list[list[int]] = [[]]
    for i in range(keys, len(columns)):
        if parts[-1] and base + sum(width[j] for j in parts[-1]) + width[i] > PART_WIDTH:
            parts.append([])
        parts[-1].append(i)
    return [list(range(keys)) + part for part in parts]


def _width(text: str) -> float:
    """About how many characters wide a cell's text prints (a curve's bar is half of one)."""
    return len(text) - sum(text.count(c) for c in _BLOCKS) / 2


def _table(caption: str, columns: list[str], rows: list[list[str]], keys: int, split: int | None = None) -> list[str]:
    """A booktabs table of text cells (escaped here) with a rule before row `split` (the paper's rows), in parts
    that fit a line (`_parts`), each scaled down to the line width if it is still wider."""
    parts = _parts(columns, rows, keys)
    head = [tex(c) for c in columns]
    lines = []
    for number, cols in enumerate(parts, 1):
        title = tex(caption) + (f" (part {number} of {len(parts)})" if len(parts) > 1 else "")
        lines += [r"\begin{table}[htbp]", r"\centering\small", rf"\caption{{{title}}}",
                  r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
                  r"\begin{tabular}{" + "l" * len(cols) + "}", r"\toprule", " & ".join(head[i] for i in cols) + r" \\",
                  r"\midrule"]
        for i, row in enumerate(rows):
            if i == split and i:
                lines.append(r"\midrule")
            lines.append(" & ".join(tex(row[c]) for c in cols) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}}", r"\end{table}", ""]
    return lines


def _name(row: dict[str, Any]) -> tuple[str, str]:
    agent = row["agent"] + (f" ({row['label']})" if row.get("label") else "")
    return row["model"] or "-", agent + (f" [data {row['data_tag']}]" if row.get("data_tag") else "")


def _headline(summary: dict[str, Any], bench: str) -> list[str]:
    rows = [r for r in summary["rows"] if bench in r["benchmarks"]]
    names: dict[str, dict[str, Any]] = {}
    for r in rows:
        for name, m in r["benchmarks"][bench]["metrics"].items():
            names.setdefault(name, m)
    columns = ["model", "agent", *(m["label"] + (" (%)" if m["percent"] else "") for m in names.values()), "n"]
    cells, departures = [], []
    for r in rows:
        group = r["benchmarks"][bench]
        model, agent = _name(r)
        label = (r.get("protocol") or {}).get(bench)
        if label is not None and not label["follows"]:
            departures.append(f"{model} / {agent}: {'; '.join(label['differs'])}")
            agent += " †"
        cells.append([model, agent, *(interval(group["metrics"][n], 100 if m["percent"] else 1)
                                      if n in group["metrics"] else "-" for n, m in names.items()),
                      str(group["episodes"])])
    split = len(cells)
    for paper in headline_rows(summary.get("reference", {})):
        if paper["benchmark"] == bench:
            cells.append([paper["model"], paper["condition"], *(printed(paper["metrics"].get(n)) for n in names), "-"])
    conf = round(summary["confidence"] * 100)
    caption = f"{bench}: headline metrics, mean [{conf}% CI] over finished episodes; n = episodes"
    if departures:
        caption += ". † not the paper's protocol (" + "; ".join(departures) + ")"
    return _table(caption, columns, cells, 2, split)


def _detail(bench: str, table: dict[str, Any]) -> list[str]:
    cells = [[cell_text(c) for c in row] for row in table["rows"]]
    return _table(f"{bench}: {table['title']}", table["columns"], cells + table.get("reference_rows", []),
                  key_columns(table), len(cells))


def _comparisons(summary: dict[str, Any]) -> list[str]:
    base = summary["rows"][0]
    cells = []
    for c in summary["comparisons"]:
        other = summary["rows"][c["other_row"]] if "other_row" in c else c["other"]
        unit = "points" if c["percent"] else c["label"]
        cells.append([*_name(other), c["benchmark"], c["label"], unit, interval(c, 100 if c["percent"] else 1),
                      str(c["pairs"])])
    caption = "Paired differences against " + " / ".join(_name(base)) + ": other minus baseline; n = pairs"
    return _table(caption, ["model", "agent", "benchmark", "metric", "unit", "difference [CI]", "n"], cells, 2)


def to_latex(summary: dict[str, Any]) -> str:
    """The report as LaTeX tables (needs `\\usepackage{booktabs,graphicx}`)."""
    lines = [f"% embodied-suite report; needs \\usepackage{{{','.join(PACKAGES)}}}", ""]
    for bench in bench_order(summary):
        lines += _headline(summary, bench)
        for table in summary.get("details", {}).get(bench, []):
            lines += _detail(bench, table)
    if summary.get("comparisons"):
        lines += _comparisons(summary)
    return "\n".join(lines)
