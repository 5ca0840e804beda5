"""The terminal table: a headline table wider than the terminal is split at benchmark boundaries."""

from __future__ import annotations

import io

from rich.console import Console
from suite.contract.records import OUTCOMES
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
    headline = text.split("Outcomes", 1)[0]
    assert headline.count("openai/gpt-4o") == headline.count("continued") + 1  # each part repeats the row
    assert "3,000" in text and "0.7500" in text  # tokens and dollars of the row


def test_headline_that_fits_stays_one_table() -> None:
    assert "continued" not in _print(400)


def test_plain_formats_keep_one_line_headers() -> None:
    assert render(SUMMARY, "csv").splitlines()[0].startswith("model,agent,label,data_tag,benchmark,data_kind")
    assert "| alpha SR |" in render(SUMMARY, "md")


LONG = {**SUMMARY, "rows": [{"model": "gemini/gemini-3.1-pro-preview", "agent": "direct", "label": "cot-prompt",
                             "benchmarks": {"asgard": {**_group(0.5), "metrics": {
                                 name: {"label": label, "percent": True, "n": 108, "mean": 0.333, "ci_low": 0.25,
                                        "ci_high": 1.0} for name, label in (("success", "SR"),
                                                                            ("goals", "goals"),
                                                                            ("undoable", "undoable turns"),
                                                                            ("steps", "steps"))}}}}],
        "details": {"asgard": [{"title": "Success rate % per task type", "columns": [
            "model", "agent", "condition", "all", "coffee", "microwave_potato", "fry_potato_slice", "putaway_food",
            "putaway_dishes", "putaway_silverware", "slice_and_distribute", "clean_mirror"],
            "rows": [["gemini/gemini-3.1-pro-preview", "direct (cot-prompt)", "baseline",
                      *(["100.0 (n=12)"] * 9)]]}]}}


def test_at_80_columns_no_word_breaks_and_intervals_take_two_lines_at_most() -> None:
    console = Console(file=io.StringIO(), width=80, color_system=None)
    render(LONG, "table", console)
    text = console.file.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    cells = {c.strip() for line in text.splitlines() for c in line.replace("┃", "│").split("│")}
    for whole in ("gemini/gemini-3.1-pro-preview", "microwave_potato", "slice_and_distribute", "putaway_silverware",
                  "[25.0, 100.0]", "33.3"):
        assert whole in cells, whole  # never broken mid-name, an interval never cut in two
    assert "Success rate % per task type, continued (2/" in text  # the detail table is split, not squeezed
