"""The template installed as a third-party package (a real wheel, its entry point, its shipped defaults) runs,
takes overrides and a --config file, uses its model preset and validates like a built-in benchmark."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SUITE = [sys.executable, "-c", "from suite.cli.main import main; raise SystemExit(main())"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template built and installed (offline, no build isolation) into a folder of its own."""
    work = tmp_path_factory.mktemp("third-party")
    source = work / "src"
    shutil.copytree(REPO / "examples" / "plugin-template", source, ignore=shutil.ignore_patterns("tests", "build",
                                                                                                 "*.egg-info"))
    target = work / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(target), str(source)], check=True, capture_output=True)
    assert (target / "suite_template" / "config.yaml").is_file(), "the shipped defaults were not installed"
    return target


def _suite(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SUITE_PLUGIN_MODULES", "PYTHONPATH")}
    env["PYTHONPATH"] = str(site)  # found only through its dist-info entry point, as a pip-installed plugin is
    return subprocess.run([*SUITE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_installed_plugin_runs_with_its_own_settings(installed: Path, tmp_path: Path) -> None:
    """Its section's defaults, an override, a --config file, a preset and a typo behave as for a built-in one."""
    listed = _suite(installed, tmp_path, "plugins")
    assert listed.returncode == 0 and "counter" in listed.stdout
    run = _suite(installed, tmp_path, "run", "--plugins", "template", "--agent", "oracle", "--limit", "3",
                 "counter.max_steps_slack=0", "--out", "a", "--no-report")
    assert run.returncode == 0, run.stderr
    assert "max_steps_slack: 0" in (tmp_path / "a" / "config.yaml").read_text()
    (tmp_path / "settings.yaml").write_text("counter:\n  max_steps_slack: 2\n  model_preset: roomy\n")
    model = _suite(installed, tmp_path, "run", "--plugins", "template", "--model", "scripted/counter-greedy",
                   "--limit", "2", "--config", "settings.yaml", "--out", "b", "--no-report")
    assert model.returncode == 0, model.stderr
    saved = (tmp_path / "b" / "config.yaml").read_text()
    assert "max_steps_slack: 2" in saved and "model_preset: roomy" in saved
    results = json.loads((tmp_path / "b" / "results.json").read_text())
    assert results["rows"][0]["benchmarks"]["counter"]["episodes"] == 2
    typo = _suite(installed, tmp_path, "run", "--plugins", "template", "--agent", "oracle",
                  "counter.max_step_slack=0", "--out", "c")
    assert typo.returncode == 2 and "did you mean 'counter.max_steps_slack'" in typo.stderr
    assert not (tmp_path / "c").exists()
    bad = _suite(installed, tmp_path, "run", "--plugins", "template", "counter.model_preset=tiny",
                 "--model", "scripted/counter-greedy", "--out", "d")
    assert bad.returncode == 2 and "roomy" in bad.stderr


def test_installed_plugin_validates(installed: Path, tmp_path: Path) -> None:
    """`suite validate` proves its tasks with its oracle, with a setting of its own."""
    done = _suite(installed, tmp_path, "validate", "--plugins", "template", "counter.max_steps_slack=0")
    assert done.returncode == 0, done.stderr
    assert "12/12" in done.stdout
