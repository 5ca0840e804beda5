"""For plugin tests: read a spec's Markdown table and a plugin's shipped reference numbers, to check one against
the other."""

from __future__ import annotations

from pathlib import Path

from suite.engine.host import build_host
from suite.report.reference import load_reference


def _cells(line: str) -> list[str]:
    return [c.strip().replace("**", "") for c in line.strip().strip("|").split("|")]


def markdown_table(path: Path, header_start: str) -> tuple[list[str], list[list[str]]]:
    """The header cells and rows of the first Markdown table in `path` whose header line starts with
    `header_start` (bold markers dropped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(_cells(line))
    return _cells(lines[start]), rows


def shipped_numbers(benchmark: str) -> dict[tuple[str, str, str], float]:
    """(paper model, column, metric) -> value of every entry of the benchmark's declared reference file."""
    spec = build_host().registry.benchmarks[benchmark]
    if spec.reference is None:
        raise AssertionError(f"{benchmark} declares no reference file")
    ref = load_reference(spec.reference)
    return {(e["model"], e["column"], e["metric"]): e["value"] for t in ref["tables"] for e in t["entries"]}
