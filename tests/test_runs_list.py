"""`suite runs DIR`: the run folders below a directory, with a crashed run told apart from a running one."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.cli.main import main
from suite.store.run_folder import RunStore


def test_runs_lists_status_progress_and_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--label", "v1",
                 "--out", str(tmp_path / "runs" / "a"), "--no-report"]) == 0
    crashed = RunStore(tmp_path / "runs" / "deep" / "b", create=True)  # as a kill -9 leaves it: running, no lock
    crashed.set_meta(status="running", benchmarks=["counter"], model="openai/gpt-4o", agent="direct")
    crashed.add_episodes([("counter/c01", "counter", "c01")])
    crashed.close()
    live = RunStore(tmp_path / "runs" / "c", create=True)
    live.set_meta(status="running", benchmarks=["counter"], model="openai/gpt-4o", agent="direct")
    live.lock()
    capsys.readouterr()
    assert main(["runs", str(tmp_path / "runs")]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = {name: next(line for line in lines if f"/{name} " in line or f"/{name}│" in line) for name in "abc"}
    assert "complete" in row["a"] and "2/2" in row["a"] and "v1" in row["a"]
    assert "crashed" in row["b"] and "0/1" in row["b"]
    assert "running" in row["c"] and "crashed" not in row["c"]
    live.close()


def test_runs_says_when_there_are_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", str(tmp_path)]) == 0
    assert "no run folders" in capsys.readouterr().err


def test_runs_shows_date_duration_and_each_benchmarks_headline(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A finished run shows when it started, how long it took and its headline score (from results.json)."""
    import json
    import time

    out = tmp_path / "runs" / "a"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--out", str(out),
                 "--no-report"]) == 0
    store = RunStore(out)
    created = store.meta()["created_at"]
    store.set_meta(finished_at=created + 3725)  # 1 h 2 min 5 s
    store.close()
    capsys.readouterr()
    assert main(["runs", str(tmp_path / "runs")]) == 0
    text = capsys.readouterr().out
    assert time.strftime("%Y-%m-%d %H:%M", time.gmtime(created)) in text
    assert "1h02m" in text and "counter SR 100.0" in text
    results = json.loads((out / "results.json").read_text())
    assert results["rows"][0]["benchmarks"]["counter"]["metrics"]["success"]["mean"] == 1.0
