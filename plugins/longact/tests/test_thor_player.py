"""`longact.env.backend=ai2thor` through ai2thor 5.0.0's real Controller and `suite-household-player`: the oracle's
actions give the same steps and the same settlement as on `env.backend=household` (skipped without the thor extra)."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf
from suite_household.testing import oracle_episode, use_household_player
from suite_longact.houses import episode_scene

from .conftest import config, pack_tasks

pytest.importorskip("ai2thor.controller")
ACTIONS = 150  # the oracle's first actions and its Stop: AI2-THOR's metadata crosses the pipe every step


def test_the_oracles_actions_do_the_same_through_the_real_controller(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    task = next(t for t in pack_tasks() if t.id == "longact_006")  # its first 150 actions meet a checklist item
    oracle = oracle_episode("longact", task, config())
    actions = [*oracle["actions"][:ACTIONS], oracle["actions"][-1]]
    use_household_player(monkeypatch, tmp_path, [episode_scene(task.data["house"], task.data["episode"]["setup"])])
    skip = lambda env: env.skip_observations()  # noqa: E731 - what the oracle does at the start
    household = oracle_episode("longact", task, config(), actions, skip)
    ai2thor = oracle_episode("longact", task, OmegaConf.merge(config(), {"env": {"backend": "ai2thor"}}), actions, skip)
    assert ai2thor["error"] is None and len(ai2thor["steps"]) == len(actions)
    for step, (h, t) in enumerate(zip(household["steps"], ai2thor["steps"], strict=True)):
        assert t == h, step
    assert ai2thor["settlement"] == household["settlement"] and household["settlement"]["metrics"]["gc"] > 0
