"""`pip install -e ".[dev]"` installs every pip-installable test dependency, so the README's `python -m pytest -n 2`
tests what `.ci/run` tests; only the real-model build and the system's chromium stay apart (README, CONTRIBUTING.md)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXTRAS = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
#: import name -> distribution name, where they differ
DISTRIBUTIONS = {"ai2thor.controller": "ai2thor", "selenium": "selenium", "mlflow": "mlflow-skinny"}


def _name(requirement: str) -> str:
    return re.split(r"[=<>\[ ;]", requirement, maxsplit=1)[0].lower()


def test_dev_holds_the_test_extras_with_the_same_pins_and_leaves_the_real_model_apart() -> None:
    dev = set(EXTRAS["dev"])
    for extra in ("browser", "thor", "pandas", "wandb", "mlflow"):
        assert set(EXTRAS[extra]) <= dev, f"[dev] lacks the {extra} extra's {set(EXTRAS[extra]) - dev}"
    assert not {_name(r) for r in EXTRAS["realmodel"]} & {_name(r) for r in dev}
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -q -e ".[dev]"' in ci and 'pip install -q -e ".[dev,realmodel]"' in ci


def test_every_module_a_test_skips_without_comes_with_dev() -> None:
    sources = [*REPO.glob("tests/*.py"), *REPO.glob("plugins/*/tests/*.py")]
    skipped = {m for path in sources for m in re.findall(r"importorskip\(\"([\w.]+)\"", path.read_text("utf-8"))}
    skipped.add("selenium")  # the browser tests skip without it (tests/test_report_html.py)
    dev = {_name(r) for r in EXTRAS["dev"]}
    assert "ai2thor.controller" in skipped
    assert {DISTRIBUTIONS.get(m, m) for m in skipped} <= dev
