"""The terminal table: a headline table wider than the terminal is split at benchmark boundaries."""

from __future__ import annotations

import io

from rich.console import Console
from suite.records import OUTCOMES
from suite.report import render


def _group(mean: float) -> dict:
    metric = {"label": "SR", "percent": True, "n": 10, "mean": mean, "ci_low": mean - 0.1, "ci_high": mean + 0.1}
    return {"episodes": 10, "unfinished": 0, "data_sources": [], "metrics": {"success": metric, "goals": {
        **metric, "label": "goal conditions"}}, "outcomes": dict.fromkeys(OUTCOMES, 0), "infra_failures": 0,
            "cost_usd": 0.25, "tokens": 1000}


SUMMARY = {"format": "embodied-suite.report/1", "confidence": 0.95, "runs": [], "details": {}, "comparisons": [],
           "rows": [{"model": "openai/gpt-4o", "agent": "direct",
                     "benchmarks": {b: _group(0.5) for b in ("alpha", "beta", "gamma")}}]}


def _print(width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    render(SUMMARY, "table", console)
    return console.file.getvalue()


def test_wide_headline_is_split_into_parts_that_fit() -> None:
    text = _print(100)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "(2/3)" in text and "continued (3/3)" in text
    assert text.count("openai/gpt-4o") == 3  # each part repeats the row (the outcome table folds the name)
    assert "3,000" in text and "0.7500" in text  # tokens and dollars of the row


def test_headline_that_fits_stays_one_table() -> None:
    assert "continued" not in _print(400)


def test_plain_formats_keep_one_line_headers() -> None:
    assert render(SUMMARY, "csv").splitlines()[0].startswith("model,agent,alpha SR,alpha goal conditions,alpha n")
    assert "| alpha SR |" in render(SUMMARY, "md")
