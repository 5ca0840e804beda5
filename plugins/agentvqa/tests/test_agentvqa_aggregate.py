"""Aggregation against the paper: per-dataset accuracies in, the printed domain columns out; the macro headline."""

from __future__ import annotations

from typing import Any

import pytest
from suite.report.stats import bootstrap_macro_ci
from suite_agentvqa.aggregate import domain_scores, overall, percent_text
from suite_agentvqa.tables import detail_tables
from suite_agentvqa.taxonomy import DATASETS

# Table 1 of the paper (spec section 7.1): the 14 dataset accuracies, then the printed domain columns.
PAPER = {
    "GPT-5 thinking-high": (
        [61.9, 51.6, 72.2, 48.5, 41.9, 58.9, 46.3, 48.3, 65.7, 75.0, 64.9, 55.4, 59.8, 83.2],
        {"web_agents": "55.2", "robotics": "51.2", "egocentric_videos": "70.4", "games": "60.2",
         "spatial_understanding": "71.5"}),
    "GPT-4o": (
        [40.5, 29.6, 57.9, 35.1, 39.4, 40.7, 32.1, 33.5, 33.3, 56.4, 26.5, 36.3, 42.5, 59.7],
        {"web_agents": "40.5", "robotics": "35.4", "egocentric_videos": "44.9", "games": "31.4",
         "spatial_understanding": "51.1"}),
    "Qwen2.5-VL (72B)": (
        [51.4, 48.8, 65.5, 76.5, 44.5, 39.5, 50.0, 65.0, 38.5, 64.5, 40.5, 40.4, 49.0, 73.0],
        {"web_agents": "57.3", "robotics": "51.5", "egocentric_videos": "51.5", "games": "40.5",
         "spatial_understanding": "61.0"}),
}


@pytest.mark.parametrize("model", sorted(PAPER))
def test_paper_domain_columns(model: str) -> None:
    accuracies, printed = PAPER[model]
    domains = domain_scores(dict(zip(DATASETS, accuracies, strict=True)))
    assert {k: percent_text(v) for k, v in domains.items()} == printed


def test_paper_overall_is_the_mean_of_datasets() -> None:
    accuracies, _ = PAPER["GPT-5 thinking-high"]
    assert percent_text(overall(dict(zip(DATASETS, accuracies, strict=True)))) == "59.5"


def test_percent_text_rounds_halves_up() -> None:
    assert [percent_text(x) for x in (70.35, 44.85, 0.05, 100.0, None)] == ["70.4", "44.9", "0.1", "100.0", "-"]


def _record(dataset: str, domain: str, correct: bool | None, outcome: str = "success") -> dict[str, Any]:
    metrics = {"correct": bool(correct), "correct_evaluated": correct, "unevaluated": correct is None,
               "dataset": dataset, "domain": domain, "category": "tap" if domain == "web_agents" else "task_estimation",
               "protocol": "file order", "generated": False}
    return {"model": "m", "agent": "direct", "outcome": outcome, "metrics": metrics}


def test_detail_tables_count_unevaluated_both_ways() -> None:
    records = ([_record("aitw", "web_agents", True)] * 3 + [_record("aitw", "web_agents", None)]
               + [_record("erqa", "robotics", True), _record("erqa", "robotics", False)]
               + [_record("erqa", "robotics", False, outcome="model_error")])
    excluded, strict, categories, unevaluated = detail_tables(records)
    row = dict(zip(strict.columns, strict.rows[0], strict=True))
    assert (row["AitW"], row["Web"], row["ERQA"], row["Robotics"], row["overall"], row["n"]) == (
        "75.0", "75.0", "50.0", "50.0", "62.5", 6)
    assert row["micro"] == "66.7"
    row = dict(zip(excluded.columns, excluded.rows[0], strict=True))
    assert (row["AitW"], row["overall"], row["n"]) == ("100.0", "75.0", 5)
    row = dict(zip(unevaluated.columns, unevaluated.rows[0], strict=True))
    assert (row["questions"], row["unevaluated"], row["Web"], row["Robotics"]) == (6, 1, 1, 0)
    assert categories.columns[3:] == ["Tap", "Web", "TE", "Robotics"]
    assert "GENERATED" not in strict.title


def test_category_table_closes_each_domain_with_its_table_1_score() -> None:
    """Table 4: the categories' own accuracies, then the domain as the mean of its datasets (not of categories)."""
    def rec(dataset: str, category: str, correct: bool) -> dict[str, Any]:
        record = _record(dataset, "web_agents", correct)
        record["metrics"]["category"] = category
        return record

    records = ([rec("aitw", "tap", True)] * 3 + [rec("aitw", "tap", False), rec("aitw", "scroll", True),
                                                  rec("monday", "tap", False)])
    table = detail_tables(records)[2]
    row = dict(zip(table.columns, table.rows[0], strict=True))
    assert table.columns[3:] == ["Tap", "Scroll", "Web"]
    assert (row["Tap"], row["Scroll"], row["Web"]) == ("60.0", "100.0", "40.0")  # Web = mean(AitW 80, MONDAY 0)
    assert "Table 4" in table.title


def test_macro_bootstrap_weighs_groups_equally() -> None:
    mean, low, high = bootstrap_macro_ci({"big": [1.0] * 90 + [0.0] * 10, "small": [0.0] * 10}, 200, 0.95, 0)
    assert mean == pytest.approx(0.45) and low <= mean <= high
    assert bootstrap_macro_ci({}, 10)[0] != bootstrap_macro_ci({}, 10)[0]  # NaN when there is nothing
