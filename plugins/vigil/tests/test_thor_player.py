"""`vigil.env.backend=ai2thor` through ai2thor 5.0.0's real Controller and `suite-household-player` on the pack's
houses: the oracle's actions give the same steps and the same settlement as on `env.backend=household`, one
episode per family (skipped without the thor extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite_household.testing import oracle_episode, use_household_player
from suite_vigil.plugin import PACK_DIR, load_tasks

from .conftest import config

pytest.importorskip("ai2thor.controller")


def _like_the_oracle(env: Any) -> None:
    env.skip_images()
    env.sim.render = False


@pytest.mark.parametrize("family", ["SM", "CR", "SI", "AI"])
def test_the_oracles_actions_do_the_same_through_the_real_controller(family: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    task = next(t for t in load_tasks("vigil", config()) if t.category == family)
    oracle = oracle_episode("vigil", task, config())
    use_household_player(monkeypatch, PACK_DIR / "houses")
    thor_config = OmegaConf.merge(config(), {"env": {"backend": "ai2thor"}})
    thor_task = next(t for t in load_tasks("vigil", thor_config) if t.id == task.id)
    ai2thor = oracle_episode("vigil", thor_task, thor_config, oracle["actions"], _like_the_oracle)
    assert ai2thor["error"] is None
    assert ai2thor["steps"] == oracle["steps"] and ai2thor["settlement"] == oracle["settlement"]
    assert oracle["settlement"]["metrics"]["B"]
