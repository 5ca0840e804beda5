"""`asgard.env.backend=ai2thor` through ai2thor 5.0.0's real Controller and `suite-household-player`: the oracle
gives the same steps and the same settlement as on `env.backend=household` (skipped without the thor extra).

The player serves the plan's household scene under the plan's FloorPlan name, and the plan's start pose is put in
that scene's coordinates (the plan's own pose belongs to the real FloorPlan). Plans that wash at the faucet are
left out: AI2-THOR's running faucet washes and fills what is in the basin, which the household backend leaves
out on purpose (suite_asgard.world_rules), so their intermediate goal counts differ (docs/household.md)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from omegaconf import OmegaConf
from suite.records import Task
from suite_asgard.scene_setup import build_scene
from suite_household.testing import oracle_episode, use_household_player

from .conftest import config, task_named

pytest.importorskip("ai2thor.controller")


@pytest.mark.parametrize("prefix", ["clean_mirror__", "cook__Bread", "turn_on_tv__"])
def test_the_oracle_does_the_same_through_the_real_controller(prefix: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config(condition="text_only")
    task = task_named(prefix, condition="text_only")
    household = oracle_episode("asgard", task, cfg)
    plan = task.data["plan"]
    scene = build_scene(plan, list(task.data["inventory"]))
    use_household_player(monkeypatch, tmp_path, [scene])
    here = replace(plan, pose=replace(plan.pose, x=scene.agent.x, z=scene.agent.z))
    thor_task = Task(task.benchmark, task.id, {**task.data, "plan": here}, task.category, task.max_steps, task.meta)
    ai2thor = oracle_episode("asgard", thor_task, OmegaConf.merge(cfg, {"env": {"backend": "ai2thor"}}))
    assert ai2thor["error"] is None
    assert ai2thor["steps"] == household["steps"] and ai2thor["settlement"] == household["settlement"]
    assert household["settlement"]["outcome"] == "success"


def test_find_ends_at_the_household_backends_viewpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from suite_asgard.commands import Command
    from suite_asgard.plugin import make_env

    cfg = config(condition="text_only")
    task = task_named("settable__Mug(d)_FloorPlan20_V1", condition="text_only")
    plan = task.data["plan"]
    scene = build_scene(plan, list(task.data["inventory"]))
    use_household_player(monkeypatch, tmp_path, [scene])
    here = replace(plan, pose=replace(plan.pose, x=scene.agent.x, z=scene.agent.z))
    thor_task = Task(task.benchmark, task.id, {**task.data, "plan": here}, task.category, task.max_steps, task.meta)
    envs = [make_env("asgard", task, cfg),
            make_env("asgard", thor_task, OmegaConf.merge(cfg, {"env": {"backend": "ai2thor"}}))]
    for env in envs:
        env.reset()
        assert env.step(Command.valid("FIND", "PaperTowelRoll")).info["success"]
    household, ai2thor = (env.sim.world.agent for env in envs)
    assert (ai2thor.x, ai2thor.z, ai2thor.yaw, ai2thor.horizon) == (household.x, household.z, household.yaw,
                                                                     household.horizon)
    assert envs[1].sim.in_reach() == envs[0].sim.in_reach()
    for env in envs:
        env.close()
