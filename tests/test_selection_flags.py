"""`suite validate` and `suite tasks` pick tasks with `--limit`, `--tasks` and `--seed` exactly as `suite run` does."""

from __future__ import annotations

import pytest
from suite.cli.main import main


def _task_ids(out: str) -> list[str]:
    return [line.split("│")[2].strip() for line in out.splitlines() if line.startswith("│ counter")]


def test_tasks_takes_the_run_selection(capsys: pytest.CaptureFixture[str]) -> None:
    """The same seeded sample `run --limit 3 --seed 4` would draw, and `--tasks` ids."""
    assert main(["tasks", "template", "--limit", "3", "--seed", "4"]) == 0
    sample = _task_ids(capsys.readouterr().out)
    assert len(sample) == 3
    assert main(["tasks", "template", "--limit", "3", "--seed", "4"]) == 0
    assert _task_ids(capsys.readouterr().out) == sample
    assert main(["tasks", "template", "--tasks", "c01,c03"]) == 0
    assert _task_ids(capsys.readouterr().out) == ["c01", "c03"]


def test_validate_takes_the_run_selection(capsys: pytest.CaptureFixture[str]) -> None:
    """The oracle proves only the chosen tasks; a bad limit is one line and exit 2."""
    assert main(["validate", "--plugins", "template", "--limit", "2"]) == 0
    out = capsys.readouterr()
    assert "2/2" in out.out and "schema check passed: 2 tasks" in out.err
    assert main(["validate", "--plugins", "template", "--tasks", "c05"]) == 0
    assert "1/1" in capsys.readouterr().out
    assert main(["validate", "--plugins", "template", "--limit", "0"]) == 2
    assert "run.limit (--limit)" in capsys.readouterr().err
