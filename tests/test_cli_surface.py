"""What a new user meets first: plugins that are not benchmarks, versions, the license, help on every argument
(issue 11 items 14 and 17)."""

from __future__ import annotations

import argparse
import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import suite
from suite.cli.main import main
from suite.cli.parser import build_parser
from suite.engine.host import build_host

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("argv", [["run", "--plugins", "household", "--agent", "oracle"],
                                  ["validate", "--plugins", "household"], ["tasks", "household"],
                                  ["run", "--plugins", "omniear,household", "--agent", "oracle"]])
def test_a_plugin_that_is_not_a_benchmark_says_so(argv: list[str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main([*argv, "--out", str(out)] if argv[0] == "run" else argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and not out.exists()
    assert "plugin 'household' is not a benchmark" in err and "simulator backend(s) ai2thor, household" in err
    assert "benchmarks to run: " in err and "omniear" in err


def test_no_matching_task_names_no_flag_the_command_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "template", "run.tasks=nosuch"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no task of counter has the id(s) nosuch; ids look like 'c00'" in err
    assert "--" not in err


def test_version_flag_and_the_cores_version() -> None:
    proc = subprocess.run([sys.executable, "-m", "suite.cli.main", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"embodied-suite {suite.__version__}"
    assert suite.__version__ == importlib.metadata.version("embodied-suite")
    assert {i.name: i.version for i in build_host().plugin_info()}["core"] == suite.__version__


def test_the_license_is_mit_as_the_package_says() -> None:
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"] == {"text": "MIT"}


def _parsers(parser: argparse.ArgumentParser, path: str = "suite"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                assert helped.get(name), f"`{path} {name}` has no help line"
                yield from _parsers(sub, f"{path} {name}")


def test_every_argument_of_every_command_has_help() -> None:
    missing = [f"{path}: {action.option_strings or action.dest}"
               for path, parser in _parsers(build_parser()) for action in parser._actions
               if not (action.help or "").strip() or action.help == argparse.SUPPRESS]
    assert missing == []
