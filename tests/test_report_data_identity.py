"""Reports key rows and pairs by data identity: episodes of different data sharing ids are never pooled or paired."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from suite.cli.main import main

TEMPLATE_DATA = Path(__file__).resolve().parents[1] / "examples" / "plugin-template" / "suite_template" / "data"


@pytest.fixture
def other_data(tmp_path: Path) -> Path:
    """The template's tasks with the same ids but other numbers: different data sharing every task id."""
    data = tmp_path / "other-data"
    shutil.copytree(TEMPLATE_DATA, data)
    tasks = [json.loads(line) for line in (data / "tasks.jsonl").read_text().splitlines()]
    lines = [json.dumps({**t, "target": t["start"] + 1, "max_steps": 3}) for t in tasks]
    (data / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    return data


def _run(out: Path, *extra: str) -> None:
    assert main(["run", "--plugins", "template", "--limit", "4", "--out", str(out), "--no-report", *extra]) == 0


def test_runs_on_different_data_are_rows_of_their_own(tmp_path: Path, other_data: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path / "pack", "--agent", "oracle")
    _run(tmp_path / "other", "--agent", "oracle", "--data-dir", str(other_data))
    capsys.readouterr()
    assert main(["report", str(tmp_path / "pack"), str(tmp_path / "other"), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = report["rows"]
    assert len(rows) == 2  # not pooled into one row of 8 episodes
    assert [r["benchmarks"]["counter"]["episodes"] for r in rows] == [4, 4]
    assert [r["data_tag"] for r in rows] == ["A", "B"]
    assert rows[0]["data"]["counter"]["id"] != rows[1]["data"]["counter"]["id"]
    assert report["comparisons"] == []  # same ids, different tasks: nothing is paired
    assert len(report["notes"]) == 1 and report["notes"][0].startswith("MIXED DATA: counter ran on 2 data sources")
    assert main(["report", str(tmp_path / "pack"), str(tmp_path / "other")]) == 0
    table = capsys.readouterr().out
    assert "oracle [data A]" in table and "oracle [data B]" in table and "MIXED DATA" in table


def test_different_models_on_different_data_are_not_paired(tmp_path: Path, other_data: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path / "pack", "--agent", "oracle")
    _run(tmp_path / "other", "--model", "scripted/counter-greedy", "--data-dir", str(other_data), "model.cache=false")
    _run(tmp_path / "same", "--model", "scripted/counter-greedy", "--label", "same", "model.cache=false")
    capsys.readouterr()
    assert main(["report", *(str(tmp_path / n) for n in ("pack", "other", "same")), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {(c["other"]["label"], c["other_row"]) for c in report["comparisons"]} == {("same", 2)}
    assert all(c["pairs"] == 4 for c in report["comparisons"])


def test_runs_on_the_same_data_still_share_a_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path / "a", "--agent", "oracle", "--tasks", "c00,c01")
    _run(tmp_path / "b", "--agent", "oracle", "--tasks", "c02")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["rows"]) == 1 and report["rows"][0]["benchmarks"]["counter"]["episodes"] == 3
    assert report["notes"] == [] and report["rows"][0]["data_tag"] is None
