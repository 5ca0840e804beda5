"""Paired comparisons in the report: hand-computed differences, then two real runs on the same episodes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.models import register_script
from suite.report.compare import paired_differences
from suite.report.stats import bootstrap_macro_ci


def rec(episode: str, success: bool, outcome: str | None = None, room: str = "a") -> dict[str, Any]:
    return {"episode_id": episode, "outcome": outcome or ("success" if success else "agent_failure"),
            "metrics": {"success": success, "room": room}}


def test_differences_pair_episodes_and_leave_out_infra_failures_and_one_sided_ones() -> None:
    base = [rec("e1", True), rec("e2", False), rec("e3", False), rec("e4", True), rec("e5", True)]
    other = [rec("e1", True), rec("e2", True), rec("e3", False, "model_error"), rec("e4", False), rec("e6", True)]
    diffs, tasks, unpaired = paired_differences(base, other, "success")
    assert diffs == {"": [0.0, 1.0, -1.0]} and tasks == {"": ["e1", "e2", "e4"]}  # e3: infra failure on one side
    assert unpaired == 3  # e3 (infra on one side), e5 (base only), e6 (other only)


def test_macro_difference_is_the_difference_of_group_means() -> None:
    base = [rec("e1", True, room="a"), rec("e2", False, room="a"), rec("e3", False, room="b")]
    other = [rec("e1", True, room="a"), rec("e2", True, room="a"), rec("e3", True, room="b")]
    diffs, _, _ = paired_differences(base, other, "success", "room")
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
    assert success["baseline"] == {"model": None, "agent": "oracle", "label": None}
    assert success["other"] == {"model": "scripted/counter-stops", "agent": "direct", "label": None}
    assert (success["pairs"], success["unpaired"]) == (5, 7)
    assert success["mean_diff"] == success["ci_low"] == success["ci_high"] == -1.0
    assert main(["report", str(oracle), str(stops)]) == 0
    table = capsys.readouterr().out
    assert "Paired differences against - / oracle" in table and "-100.0 (n=5) [-100.0, -100.0]" in table
    assert "-100.0] *" not in table  # every pair differs alike: the bootstrap estimates no spread, so no star


def test_one_row_has_no_comparisons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--out", str(out),
                 "--no-report"]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["comparisons"] == []


def test_labels_keep_runs_of_one_model_and_agent_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    roots = {label: tmp_path / label for label in ("plain", "variant")}
    for label, root in roots.items():
        assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--label", label,
                     "--out", str(root), "--no-report"]) == 0
    unlabelled = tmp_path / "unlabelled"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--out", str(unlabelled),
                 "--no-report"]) == 0
    capsys.readouterr()
    assert main(["report", str(roots["plain"]), str(roots["variant"]), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(r["agent"], r["label"]) for r in report["rows"]] == [("oracle", "plain"), ("oracle", "variant")]
    assert {c["other"]["label"] for c in report["comparisons"]} == {"variant"}
    assert all(c["mean_diff"] == 0.0 and c["pairs"] == 3 for c in report["comparisons"])
    assert main(["report", str(roots["plain"]), str(roots["variant"])]) == 0
    assert "oracle (variant)" in capsys.readouterr().out
    assert main(["report", str(unlabelled), str(unlabelled), "--format", "json"]) == 0
    assert [r["label"] for r in json.loads(capsys.readouterr().out)["rows"]] == [None]


def test_the_same_episodes_twice_in_one_row_are_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        caplog: pytest.LogCaptureFixture) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for root in (first, second):
        assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--out", str(root),
                     "--no-report"]) == 0
    capsys.readouterr()
    assert main(["report", str(first), str(first), "--format", "json"]) == 0  # one folder named twice: read once
    assert json.loads(capsys.readouterr().out)["rows"][0]["benchmarks"]["counter"]["episodes"] == 2
    assert not caplog.records
    assert main(["report", str(first), str(second), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["benchmarks"]["counter"]["episodes"] == 4
    assert "2 episode(s) of" in caplog.text and "--label" in caplog.text


def test_plugin_detail_tables_keep_labels_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    roots = [tmp_path / "a", tmp_path / "b"]
    for root, label in zip(roots, ("a", "b"), strict=True):
        assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "2", "--label", label,
                     "--out", str(root), "--no-report"]) == 0
    capsys.readouterr()
    assert main(["report", *map(str, roots), "--format", "json"]) == 0
    details = json.loads(capsys.readouterr().out)["details"]["omniear"]
    agents = {row[1] for table in details for row in table["rows"] if table["columns"][:2] == ["model", "agent"]}
    assert agents == {"oracle (a)", "oracle (b)"}


def test_a_baseline_without_finished_episodes_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      caplog: pytest.LogCaptureFixture) -> None:
    from suite.store.run_folder import RunStore

    empty = RunStore(tmp_path / "empty", create=True)
    empty.set_meta(model="openai/gpt-4o", agent="direct", status="interrupted", benchmarks=["counter"])
    empty.add_episodes([("counter/c01", "counter", "c01")])
    empty.close()
    done = tmp_path / "done"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--out", str(done),
                 "--no-report"]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "empty"), str(done), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["benchmarks"]["counter"]["unfinished"] == 1
    assert "has no finished episodes" in caplog.text
