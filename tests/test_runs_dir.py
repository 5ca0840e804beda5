"""Runs go to `run.runs_dir`, else $SUITE_RUNS_DIR, else ./runs; `runs`, `report` and `view` find them there."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.cli.main import main


def test_suite_runs_dir_is_where_runs_go_and_are_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A run made with SUITE_RUNS_DIR set lands there; from another folder, `runs` lists it and `report NAME`
    finds it by its name alone."""
    home = tmp_path / "all-runs"
    monkeypatch.setenv("SUITE_RUNS_DIR", str(home))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--no-report"]) == 0
    made = [p for p in home.iterdir() if p.is_dir()]
    assert len(made) == 1 and not (tmp_path / "runs").exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    capsys.readouterr()
    assert main(["runs"]) == 0
    assert made[0].name in capsys.readouterr().out
    assert main(["report", made[0].name, "--format", "json"]) == 0
    assert '"counter"' in capsys.readouterr().out
    assert main(["report", "no-such-run"]) == 2
    assert f"nor a run of that name in {home}" in capsys.readouterr().err


def test_the_config_key_wins_over_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run.runs_dir=DIR` puts this run in DIR whatever SUITE_RUNS_DIR says; `--out` names the folder itself."""
    monkeypatch.setenv("SUITE_RUNS_DIR", str(tmp_path / "env"))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--no-report",
                 f"run.runs_dir={tmp_path / 'key'}"]) == 0
    assert len(list((tmp_path / "key").iterdir())) == 1 and not (tmp_path / "env").exists()
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--no-report",
                 "--out", str(tmp_path / "mine")]) == 0
    assert (tmp_path / "mine").is_dir() and not (tmp_path / "env").exists()
