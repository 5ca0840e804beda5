"""The paper numbers AgentVQA ships as reference rows: Table 1 and Table 4 as the spec read them (without the spec's
own computed means; Table 4's swapped Web averages as printed, with the note), the constant-letter baseline and
Figure 5's history deltas."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.report.reference import load_reference
from suite.testing.reference import markdown_table
from suite_agentvqa.taxonomy import CATEGORIES, DATASET_TITLES, DOMAINS

SPEC = Path(__file__).resolve().parents[3] / ".." / "shared" / "specs" / "agentvqa.md"
TITLES = {"ScreenSpot": "Screenspot", "SS-Pro": "Screenspot-pro", "RoboRefIt": "Roborefit", "Rob": "Robotics",
          "VSI": "VSI-Bench", "PercTest": "Perception-Test", "Ego": "Egocentric", "Atari": "atari",
          "EmbSpatial": "EmbSpatial-Bench"}


REFERENCE = Path(__file__).resolve().parents[1] / "suite_agentvqa" / "reference.json"
NAMES = {"GPT-5 thinking-minimal": "GPT-5 thinking-min", "Llama-4-Scout": "Llama 4 Scout",
         "Llama-4-Maverick": "Llama 4 Maverick"}


def shipped_numbers(source: str) -> dict[tuple[str, str, str], float]:
    """(model, column, metric) -> value of the shipped entries of one source."""
    return {(e["model"], e["column"], e["metric"]): e["value"] for t in load_reference(REFERENCE)["tables"]
            if t["source"] == source for e in t["entries"]}


def test_every_shipped_number_is_table_1_of_the_spec() -> None:
    if not SPEC.is_file():
        pytest.skip("../shared/specs is not present")
    head, rows = markdown_table(SPEC, "| Model | AitW")
    expected = {(row[0], TITLES.get(title, title), "accuracy"): float(cell)
                for row in rows for title, cell in zip(head[1:], row[1:], strict=True)
                if not title.endswith("*")}  # mean14*, meanDom*: computed by the spec, not printed in the paper
    assert len(expected) == 15 * 19 and shipped_numbers("Table 1") == expected


def test_table_4_as_printed_with_the_swapped_web_averages_noted() -> None:
    if not SPEC.is_file():
        pytest.skip("../shared/specs is not present")
    expected = {}
    for start in ("| Model | Tap |", "| Model | WM |"):
        head, rows = markdown_table(SPEC, start)
        for row in rows:
            model = row[0].rstrip(" †")
            for title, cell in zip(head[1:], row[1:], strict=True):
                expected[(NAMES.get(model, model), TITLES.get(title, title), "accuracy")] = float(cell)
    assert len(expected) == 15 * 30 and shipped_numbers("Table 4") == expected
    assert expected[("Gemini 2.5 Pro", "Web", "accuracy")] == 50.3  # as printed (Table 1: 45.6)
    table = next(t for t in load_reference(REFERENCE)["tables"] if t["source"] == "Table 4")
    assert "swapped" in table["note"]


def test_the_constant_letter_baseline_and_the_history_deltas() -> None:
    assert shipped_numbers("Section 5 (prose), the constant-letter baseline") == {
        ("Constant letter", "overall acc", "correct_evaluated"): 24.9}
    assert shipped_numbers("Figure 5 (prose), the action history") == {
        ("4-model average", "AitW", "history_delta"): 8.5, ("4-model average", "Mind2Web", "history_delta"): 3.1,
        ("4-model average", "MONDAY", "history_delta"): -0.4}


def test_the_columns_are_the_detail_tables_titles() -> None:
    assert {c for (_, c, _) in shipped_numbers("Table 1")} == set(DATASET_TITLES.values()) | {d.title for d in DOMAINS}
    assert {c for (_, c, _) in shipped_numbers("Table 4")} == {c.abbr for c in CATEGORIES.values()} | {
        d.title for d in DOMAINS}
