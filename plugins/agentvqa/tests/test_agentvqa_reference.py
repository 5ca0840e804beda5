"""The paper numbers AgentVQA ships as reference rows are Table 1 as the spec read it, without the spec's own
computed means."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.testing.reference import markdown_table, shipped_numbers
from suite_agentvqa.taxonomy import DATASET_TITLES, DOMAINS

SPEC = Path(__file__).resolve().parents[3] / ".." / "shared" / "specs" / "agentvqa.md"
TITLES = {"ScreenSpot": "Screenspot", "SS-Pro": "Screenspot-pro", "RoboRefIt": "Roborefit", "Rob": "Robotics",
          "VSI": "VSI-Bench", "PercTest": "Perception-Test", "Ego": "Egocentric", "Atari": "atari",
          "EmbSpatial": "EmbSpatial-Bench"}


def test_every_shipped_number_is_table_1_of_the_spec() -> None:
    if not SPEC.is_file():
        pytest.skip("../shared/specs is not present")
    head, rows = markdown_table(SPEC, "| Model | AitW")
    expected = {(row[0], TITLES.get(title, title), "accuracy"): float(cell)
                for row in rows for title, cell in zip(head[1:], row[1:], strict=True)
                if not title.endswith("*")}  # mean14*, meanDom*: computed by the spec, not printed in the paper
    assert len(expected) == 15 * 19 and shipped_numbers("agentvqa") == expected


def test_the_columns_are_the_detail_tables_titles() -> None:
    assert {c for (_, c, _) in shipped_numbers("agentvqa")} == set(DATASET_TITLES.values()) | {d.title for d in DOMAINS}
