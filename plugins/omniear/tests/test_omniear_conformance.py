"""Full conformance against the golden reference traces (skipped when ../shared/data is absent)."""

from __future__ import annotations

from types import SimpleNamespace

from suite_omniear.conformance import FIELDS, format_conformance, run_conformance


def assert_full_agreement(result: dict) -> None:
    assert result["mismatches"] == [], format_conformance(result)
    for field in FIELDS:
        assert result[field]["agree"] == result[field]["total"] > 0, field
    for category, tallies in result["per_category"].items():
        assert all(t["agree"] == t["total"] for t in tallies.values()), category


def test_explore_traces_agree_on_every_field(golden: SimpleNamespace) -> None:
    result = run_conformance(golden.traces, golden.eval)
    assert (result["trajectories"], result["steps"]) == (560, 6921)
    assert len(result["per_category"]) == 7
    assert_full_agreement(result)


def test_global_traces_agree_on_every_field(golden: SimpleNamespace) -> None:
    result = run_conformance(golden.traces_global, golden.eval)
    assert (result["trajectories"], result["steps"]) == (60, 393)
    assert_full_agreement(result)


def test_category_filter_and_mismatch_report(golden: SimpleNamespace, tmp_path) -> None:
    result = run_conformance(golden.traces, golden.eval, categories=["tool_use"])
    assert list(result["per_category"]) == ["tool_use"] and result["trajectories"] == 76
    lines = golden.traces.read_text(encoding="utf-8").splitlines()
    broken = lines[0].replace("robot_1 successfully moved to Main Calibration Chamber", "robot_1 teleported")
    (tmp_path / "t.jsonl").write_text(broken + "\n", encoding="utf-8")
    result = run_conformance(tmp_path / "t.jsonl", golden.eval)
    assert result["message"] == {"agree": 6, "total": 7}
    mismatch = result["mismatches"][0]
    assert (mismatch["task_file"], mismatch["step"], mismatch["field"]) == (
        "single-independent/task/00001_task.json",
        1,
        "message",
    )
    assert mismatch["expected"] == '{"agent_1": "robot_1 teleported"}'
