"""Shared fixtures: the template plugin and the tests' helpers on the path, an isolated user cache, the real data
when present."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent
TEMPLATE = REPO / "examples" / "plugin-template"
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()

TESTS = REPO / "tests"  # its helpers (run_processes, ray_support) for the tests in its subfolders too

for folder in (TEMPLATE, TESTS):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


@pytest.fixture(autouse=True)
def _isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own user cache and sees the template plugin; no test reaches the network."""
    monkeypatch.setenv("SUITE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("SUITE_PLUGIN_MODULES", "template=suite_template.plugin")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TEMPLATE), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.delenv("SUITE_DATA_DIR", raising=False)
    monkeypatch.delenv("SUITE_DISABLED_PLUGINS", raising=False)
    monkeypatch.delenv("SUITE_RUNS_DIR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.fixture
def shared_data() -> Path:
    """The real benchmark data beside the checkout (skips when it is absent)."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's consoles 400 columns wide: a table row whose tmp path is long (e.g. under pytest-xdist's
    `popen-gwN` folders) stays on one line."""
    from suite.launch.consoles import console, err_console

    for one in (console, err_console):
        monkeypatch.setattr(one, "width", 400)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked `slow` first: with `-n 2` one worker runs them while the other works through the rest."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
