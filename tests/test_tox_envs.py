"""tox.ini has an environment for every plugin the distribution registers, each running that plugin's tests."""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _tox() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(REPO / "tox.ini")
    return parser


def test_every_entry_point_plugin_has_a_tox_env_running_its_tests() -> None:
    """A plugin added to pyproject's `suite.plugins` entry points without a tox env fails here: the env of its folder
    plugins/<name>/, the one that holds its package suite_<name> (the two trackers share plugins/trackers)."""
    plugins = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]["suite.plugins"]
    tox = _tox()
    envs = {e.strip() for e in tox["tox"]["envlist"].split(",")}
    commands = tox["testenv"]["commands"]
    for name in {target.split(".")[0].removeprefix("suite_") for target in plugins.values()}:
        assert name in envs, f"tox.ini's envlist lacks {name!r}"
        assert f"{name}: pytest plugins/{name}" in commands, f"tox.ini runs no tests for {name!r}"
        assert (REPO / "plugins" / name / "tests").is_dir()
