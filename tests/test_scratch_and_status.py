"""`validate` and `replay` leave no scratch run folder behind; the report and `suite runs` agree on a run's status."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.store.run_folder import RunStore


def test_validate_and_replay_clean_their_scratch_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert main(["validate", "--plugins", "template"]) == 0
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--model", "scripted/counter-greedy", "--limit", "2", "--no-report",
                 "--out", str(out)]) == 0
    assert main(["replay", str(out)]) == 0
    assert list(scratch.iterdir()) == []
    assert main(["validate", "--plugins", "template", "--out", str(tmp_path / "kept")]) == 0
    assert RunStore(tmp_path / "kept").counts() == {"done": 12}


def test_report_says_crashed_where_runs_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--no-report",
                 "--out", str(out)]) == 0
    store = RunStore(out)
    store.set_meta(status="running")  # as a kill -9 leaves it: marked running, no process holds it
    store.close()
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["status"] == "crashed"
    assert main(["runs", str(tmp_path)]) == 0
    assert "crashed" in capsys.readouterr().out
