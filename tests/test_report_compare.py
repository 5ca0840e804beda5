"""Paired comparisons in the report: hand-computed differences, then two real runs on the same episodes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from suite.cli import main
from suite.models import register_script
from suite.report.compare import paired_differences
from suite.report.stats import bootstrap_macro_ci


def rec(episode: str, success: bool, outcome: str | None = None, room: str = "a") -> dict[str, Any]:
    return {"episode_id": episode, "outcome": outcome or ("success" if success else "agent_failure"),
            "metrics": {"success": success, "room": room}}


def test_differences_pair_episodes_and_leave_out_infra_failures_and_one_sided_ones() -> None:
    base = [rec("e1", True), rec("e2", False), rec("e3", False), rec("e4", True), rec("e5", True)]
    other = [rec("e1", True), rec("e2", True), rec("e3", False, "model_error"), rec("e4", False), rec("e6", True)]
    diffs, unpaired = paired_differences(base, other, "success")
    assert diffs == {"": [0.0, 1.0, -1.0]}  # e1, e2, e4; e3 is an infra failure on one side
    assert unpaired == 3  # e3 (infra on one side), e5 (base only), e6 (other only)


def test_macro_difference_is_the_difference_of_group_means() -> None:
    base = [rec("e1", True, room="a"), rec("e2", False, room="a"), rec("e3", False, room="b")]
    other = [rec("e1", True, room="a"), rec("e2", True, room="a"), rec("e3", True, room="b")]
    diffs, _ = paired_differences(base, other, "success", "room")
    mean, _, _ = bootstrap_macro_ci(diffs, resamples=0)
    # base macro = (0.5 + 0) / 2 = 0.25; other macro = (1 + 1) / 2 = 1.0
    assert diffs == {"a": [0.0, 1.0], "b": [1.0]} and mean == pytest.approx(0.75)


def test_report_of_two_runs_compares_the_later_with_the_first(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    register_script("counter-stops", lambda messages: "ACTION: DONE")
    oracle, stops = tmp_path / "oracle", tmp_path / "stops"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--out", str(oracle), "--no-report"]) == 0
    assert main(["run", "--plugins", "template", "--model", "scripted/counter-stops", "--limit", "5",
                 "--out", str(stops), "--no-report", "model.cache=false"]) == 0
    capsys.readouterr()
    assert main(["report", str(oracle), str(stops), "--format", "json"]) == 0
    comparisons = {c["metric"]: c for c in json.loads(capsys.readouterr().out)["comparisons"]}
    success = comparisons["success"]
    assert success["baseline"] == {"model": None, "agent": "oracle"}
    assert success["other"] == {"model": "scripted/counter-stops", "agent": "direct"}
    assert (success["pairs"], success["unpaired"]) == (5, 7)
    assert success["mean_diff"] == success["ci_low"] == success["ci_high"] == -1.0
    assert main(["report", str(oracle), str(stops)]) == 0
    table = capsys.readouterr().out
    assert "Paired differences against - / oracle" in table and "-100.0 [-100.0, -100.0] *" in table


def test_one_row_has_no_comparisons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--out", str(out),
                 "--no-report"]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["comparisons"] == []
