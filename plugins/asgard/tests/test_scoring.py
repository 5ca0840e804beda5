"""The report's tables on hand-made episode records: Table 6's column order and the harness's denominator."""

from __future__ import annotations

from typing import Any

from suite_asgard.scoring import detail_tables


def record(outcome: str, condition: str = "baseline", repeat: int = 1, task_type: str = "coffee") -> dict[str, Any]:
    """A stored episode record with the metrics the tables read."""
    metrics = {"success": outcome == "success", "condition": condition, "repeat": repeat, "task_type": task_type,
               "steps": 10, "step_ratio": 1.0 if outcome == "success" else None, "end_reason": "max_steps",
               "extension": "none"}
    return {"model": "m", "agent": "direct", "outcome": outcome, "metrics": metrics, "task_category": task_type}


def table(records: list[dict[str, Any]], starts: str) -> Any:
    return next(t for t in detail_tables(records) if t.title.startswith(starts))


def test_table_6_lists_the_conditions_in_the_papers_order() -> None:
    names = ["text_only_no_feedback", "baseline", "my_own", "no_hand", "current_image_only", "detailed_feedback",
             "text_only", "no_memory", "no_feedback", "text_only_detailed"]
    found = table([record("success", c) for c in names], "Success rate % per condition (the paper's")
    assert found.columns == ["model", "agent", "baseline", "detailed_feedback", "no_feedback", "no_hand",
                             "no_memory", "current_image_only", "text_only", "text_only_detailed",
                             "text_only_no_feedback", "my_own"]


def test_the_harness_denominator_counts_model_errors_as_failed_tasks() -> None:
    # 3 successes, 1 agent failure, 1 model error, 1 env error: ours 3/4, the harness's 3/5
    outcomes = ["success", "success", "success", "agent_failure", "model_error", "env_error"]
    records = [record(o) for o in outcomes]
    ours = table(records, "Success rate % per condition (the paper's")
    harness = table(records, "Success rate % per condition with the harness's denominator")
    assert ours.rows == [["m", "direct", "75.0 (n=4)"]]
    assert harness.rows == [["m", "direct", "60.0 (n=5)"]]
    per_type = table(records, "Success rate % per task type")
    assert per_type.columns[3:5] == ["all", "all, harness"] and per_type.rows[0][3:5] == ["75.0 (n=4)", "60.0 (n=5)"]


def test_the_harness_denominator_takes_the_median_over_repeats() -> None:
    # repeat 1: 2/2 (a model error is not counted by us) vs 2/3; repeat 2: 1/2 vs 1/2; repeat 3: 0/2 vs 0/2
    records = [record("success", repeat=1), record("success", repeat=1), record("model_error", repeat=1),
               record("success", repeat=2), record("agent_failure", repeat=2),
               record("agent_failure", repeat=3), record("budget_exhausted", repeat=3)]
    ours = table(records, "Success rate % per condition (the paper's")
    harness = table(records, "Success rate % per condition with the harness's denominator")
    assert ours.rows[0][2] == "50.0 (n=2)" and harness.rows[0][2] == "50.0 (n=3)"


def test_an_episode_lost_to_model_errors_only_still_counts_for_the_harness() -> None:
    records = [record("model_error"), record("model_error", "no_hand"), record("success", "no_hand")]
    harness = table(records, "Success rate % per condition with the harness's denominator")
    assert harness.columns == ["model", "agent", "baseline", "no_hand"]
    assert harness.rows == [["m", "direct", "0.0 (n=1)", "50.0 (n=2)"]]
    ours = table(records, "Success rate % per condition (the paper's")
    assert ours.rows == [["m", "direct", "-", "100.0 (n=1)"]]
