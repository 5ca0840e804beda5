"""Every setting is checked before the first episode: one line, exit 2, no run folder (issue 11 items 4a and 11)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.contract import config as configmod
from suite.contract.errors import DataError
from suite.contract.schemas import read_json, validate
from suite.contract.settings import CORE_SCHEMA, CORE_SECTIONS, undeclared_keys
from suite.engine.host import default_config

REPO = Path(__file__).resolve().parents[1]
OMNIEAR_PACK = REPO / "plugins" / "omniear" / "suite_omniear" / "pack" / "data"
TEMPLATE_DATA = REPO / "examples" / "plugin-template" / "suite_template" / "data"


def _refused(argv: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run `suite ARGV --out OUT`: it must exit 2 with one line on stderr and leave no folder."""
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert not out.exists()
    return err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["omniear.observation_mode=globl"], "omniear.observation_mode: 'globl' is not one of explore, global; "
                                             "did you mean 'global'?"),
        (["omniear.fixes=[spawn_rom]"], "omniear.fixes[0]: 'spawn_rom' is not one of"),
        (["omniear.max_steps=abc"], "omniear.max_steps: 'abc' is not of type 'integer'"),
        (["omniear.max_steps=.nan"], "omniear.max_steps: nan is not a finite number"),
        (["--limit", "-1"], "run.limit (--limit): -1 is less than the minimum of 1"),
        (["run.concurrency=abc"], "run.concurrency (--concurrency): 'abc' is not of type 'integer'"),
        (["--concurrency", "0"], "run.concurrency (--concurrency): 0 is less than the minimum of 1"),
        (["--concurrency", "-2"], "run.concurrency (--concurrency): -2 is less than the minimum of 1"),
        (["--repeats", "0"], "run.repeats (--repeats): 0 is less than the minimum of 1"),
        (["--max-cost", "-1"], "run.max_cost (--max-cost): -1.0 is less than the minimum of 0"),
        (["--max-cost", "nan"], "run.max_cost (--max-cost): nan is not a finite number"),
        (["model.top_p=2"], "model.top_p: 2 is greater than the maximum of 1"),
    ],
)
def test_a_bad_setting_fails_before_the_run(argv: list[str], expected: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(["run", "--plugins", "omniear", "--agent", "oracle", *argv], tmp_path / "r", capsys)
    assert expected in err


@pytest.mark.parametrize(
    ("plugin", "override", "expected"),
    [
        ("asgard", "asgard.conditions.baseline.images=bth", "did you mean 'both'?"),
        ("asgard", "asgard.env.backend=thor", "asgard.env.backend: 'thor' is not one of household, ai2thor"),
        ("asgard", "asgard.common_sense=maybe", "asgard.common_sense: 'maybe' is not of type 'boolean'"),
        ("asgard", "asgard.model_presets.claude-opus-4-5.reasoning_effort=hihg", "did you mean 'high'?"),
        ("agentvqa", "agentvqa.domains=[robotic]", "did you mean 'robotics'?"),
        ("agentvqa", "agentvqa.num_frames=0", "agentvqa.num_frames: 0 is less than the minimum of 1"),
    ],
)
def test_every_benchmark_declares_its_settings(plugin: str, override: str, expected: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(["run", "--plugins", plugin, "--agent", "oracle", override], tmp_path / "r", capsys)
    assert expected in err


def test_a_resumed_run_is_checked_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--out", str(out),
                 "--no-report"]) == 0
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--concurrency", "0"]) == 2
    assert "run.concurrency (--concurrency): 0 is less than the minimum of 1" in capsys.readouterr().err


def test_usage_errors_are_one_line_in_a_real_process(tmp_path: Path) -> None:
    for argv in (["--concurrency", "abc"], ["omniear.max_steps=abc"], ["--limit", "-1"]):
        out = tmp_path / "r"
        proc = subprocess.run([sys.executable, "-m", "suite.cli.main", "run", "--plugins", "omniear", "--agent",
                               "oracle", "--out", str(out), *argv], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert not out.exists()


def test_the_core_schema_describes_every_default_key() -> None:
    defaults = configmod.OmegaConf.to_container(default_config([]))
    assert undeclared_keys(CORE_SCHEMA, {k: defaults[k] for k in CORE_SECTIONS}) == []


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (bytes(range(256)) * 4, "UTF-8 text (byte 128 is not valid UTF-8)"),
        ('{"id": "x"}'.encode("utf-16"), "this file is UTF-16"),
        ('{"id": "x"}'.encode("utf-16-le"), "is a NUL: UTF-16 or binary?"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"max_steps": NaN}', "NaN is not a JSON number"),
        (b'{"max_steps": -Infinity}', "-Infinity is not a JSON number"),
        (b'{"id": ', "valid JSON (line 1, column 8"),
    ],
)
def test_a_broken_task_file_is_a_one_line_data_error(content: bytes, expected: str, tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    path.write_bytes(content)
    with pytest.raises(DataError) as caught:
        read_json(path)
    assert expected in str(caught.value) and str(path) in str(caught.value)


def test_nan_in_a_numeric_field_fails_the_schema_check(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"n": {"type": "number"}, "k": {"type": "integer"}}}))
    validate({"n": 1.5, "k": 2}, schema, "x")
    for bad in ({"n": float("nan")}, {"n": float("inf")}, {"k": float("-inf")}):
        with pytest.raises(DataError, match="is not of type"):
            validate(bad, schema, "x")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (bytes(range(256)), "is not valid UTF-8"),
        ('{"id": "x"}'.encode("utf-16"), "this file is UTF-16"),
        (b"[" * 100_000, "nested too deeply"),
    ],
)
def test_a_broken_task_file_fails_the_run_before_its_folder(content: bytes, expected: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(OMNIEAR_PACK, data)
    task = sorted((data / "single-independent" / "task").glob("*_task.json"))[0]
    task.write_bytes(content)
    err = _refused(["run", "--plugins", "omniear", "--agent", "oracle", "--data-dir", str(data)], tmp_path / "r",
                   capsys)
    assert task.name in err and expected in err


@pytest.mark.parametrize(("manifest", "expected"), [("{broken", "valid JSON"), ('{"seed": 0}', "'generator'"),
                                                    ('{"generator": "gen.py", "seed": "zero"}', "/seed")])
def test_a_broken_pack_manifest_is_an_error(manifest: str, expected: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(TEMPLATE_DATA, data)
    (data / "PACK.json").write_text(manifest)
    err = _refused(["run", "--plugins", "template", "--agent", "oracle", "--data-dir", str(data)], tmp_path / "r",
                   capsys)
    assert "PACK.json" in err and expected in err
