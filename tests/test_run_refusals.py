"""What a run refuses (or takes) before its folder is made: a missing extra, a model for an agent that uses none;
and overrides anywhere on the line (issue 20 items 6, 7, 15)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite.cli.main import main
from suite.cli.parser import build_parser
from suite.contract import extras
from suite.store.run_folder import CONFIG_NAME, RunStore


def _parse(argv: list[str]) -> Any:
    return build_parser().parse_args(argv)


@pytest.mark.parametrize("bench", ["asgard", "longact", "vigil"])
def test_the_ai2thor_backend_without_the_thor_extra_is_refused_before_the_run(
        bench: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = extras.installed  # [dev] holds ai2thor (the player tests need it): take it away here
    monkeypatch.setattr(extras, "installed", lambda module: module != "ai2thor" and real(module))
    out = tmp_path / "r"
    assert main(["run", "--plugins", bench, "--agent", "oracle", "--limit", "1", f"{bench}.env.backend=ai2thor",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {bench}.env.backend=ai2thor needs the thor extra (ai2thor is not installed): pip install "
                   "'embodied-suite[thor]' (in a checkout: pip install -e \".[thor]\")"]
    assert not out.exists()


def test_the_ray_executor_without_ray_is_refused_before_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    real = extras.installed
    monkeypatch.setattr(extras, "installed", lambda module: module != "ray" and real(module))
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--executor", "ray", "--out", str(out)]) == 2
    assert "--executor ray needs the ray extra" in capsys.readouterr().err and not out.exists()


def test_a_model_for_an_agent_that_uses_none_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--model", "openai/gpt-4o", "--limit", "1",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "agent 'oracle' uses no model" in err[0] and not out.exists()


def test_an_oracle_row_is_never_paired_with_a_paper_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder an older version recorded with `--agent oracle --model openai/gpt-4o` shows no paper differences."""
    out = tmp_path / "r"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "2", "--out", str(out),
                 "--no-report"]) == 0
    store = RunStore(out)
    store.set_meta(model="openai/gpt-4o")
    store.close()
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json", "--reference"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows"][0]["model"] == "openai/gpt-4o" and report["rows"][0]["agent"] == "oracle"
    assert report["reference"]["omniear"]["matches"] == {}
    table = report["details"]["omniear"][0]
    assert table["reference_rows"] and all(d is None for row in table["reference_diff"] for d in row)
    assert all("paper" not in m for g in report["rows"][0]["benchmarks"].values() for m in g["metrics"].values())


def test_overrides_stand_anywhere_on_the_command_line(tmp_path: Path) -> None:
    args = _parse(["run", "--plugins", "omniear", "model.temperature=0", "--limit", "2",
                               "omniear.max_steps=4"])
    assert args.overrides == ["model.temperature=0", "omniear.max_steps=4"] and args.limit == 2
    assert _parse(["validate", "a=1", "--plugins", "x", "b=2", "--out", "o", "c=3"]).overrides == \
        ["a=1", "b=2", "c=3"]
    assert _parse(["tasks", "omniear", "--data-dir", "d", "a=1", "b=2"]).overrides == ["a=1", "b=2"]
    out = tmp_path / "r"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "omniear.max_steps=7", "--limit", "1",
                 "omniear.observation_mode=global", "--out", str(out), "--no-report"]) == 0
    saved = OmegaConf.load(out / CONFIG_NAME)
    assert saved.omniear.max_steps == 7 and saved.omniear.observation_mode == "global"


def test_an_unknown_flag_is_still_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        _parse(["run", "--plugins", "omniear", "a=1", "--limit", "2", "--bogus"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "suite: error: unrecognized arguments: --bogus (see suite --help)\n"
