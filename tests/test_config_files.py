"""`--config FILE`: YAML settings over the defaults and under key=value overrides, each key checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.cli.main import main
from suite.store.run_folder import RunStore


def _run(tmp_path: Path, *args: str) -> int:
    return main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--no-report", *args])


def test_a_config_file_sets_keys_and_overrides_win(tmp_path: Path) -> None:
    """The file's settings reach the run; a key=value override given as well wins over the file."""
    (tmp_path / "a.yaml").write_text("run:\n  concurrency: 3\ncounter:\n  max_steps_slack: 1\n")
    assert _run(tmp_path, "--config", str(tmp_path / "a.yaml"), "counter.max_steps_slack=4",
                "--out", str(tmp_path / "r")) == 0
    saved = (tmp_path / "r" / "config.yaml").read_text()
    assert "concurrency: 3" in saved and "max_steps_slack: 4" in saved
    assert len(RunStore(tmp_path / "r").records()) == 2


@pytest.mark.parametrize(("text", "expected"), [
    ("counter:\n  max_step_slack: 1\n", "did you mean 'counter.max_steps_slack'"),
    ("- just\n- a list\n", "expected a mapping of settings"),
    ("counter: {max_steps_slack: [\n", "cannot be read as YAML"),
    ("counter:\n  max_steps_slack: -1\n", "counter.max_steps_slack"),
])
def test_a_bad_config_file_is_one_line_and_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      text: str, expected: str) -> None:
    """Unknown keys, a file that is not a mapping, broken YAML and refused values: exit 2, nothing made."""
    (tmp_path / "bad.yaml").write_text(text)
    assert _run(tmp_path, "--config", str(tmp_path / "bad.yaml"), "--out", str(tmp_path / "r")) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and len(err.splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_a_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, "--config", str(tmp_path / "nope.yaml")) == 2
    assert "no such file" in capsys.readouterr().err
