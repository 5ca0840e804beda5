"""Helpers for the AsgardBench tests: tasks from the pack (or the real plans), envs, and turn drivers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite.contract.records import Task
from suite.engine.host import default_config
from suite_asgard.commands import Command
from suite_asgard.env import AsgardEnv, household_env
from suite_asgard.plugin import PACK_DIR, load_tasks

REAL_PLANS = (Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "asgardbench" / "Generated"
              / "magt_benchmark").resolve()


def config(**overrides: Any) -> Any:
    """The asgard config section with overrides (data_dir defaults to the pack)."""
    cfg = default_config(["asgard"]).asgard
    cfg = OmegaConf.merge(cfg, {"data_dir": str(PACK_DIR), "image_size": 64, **overrides})
    return cfg


def tasks(**overrides: Any) -> list[Task]:
    """Tasks loaded through the hook."""
    return load_tasks("asgard", config(**overrides))


def task_named(prefix: str, **overrides: Any) -> Task:
    """The first task whose id starts with `prefix`."""
    return next(t for t in tasks(**overrides) if t.id.startswith(prefix))


def env_for(prefix: str, condition: str = "text_only", **overrides: Any) -> AsgardEnv:
    """A reset env of the first pack task whose id starts with `prefix`."""
    cfg = config(condition=condition, **overrides)
    task = next(t for t in load_tasks("asgard", cfg) if t.id.startswith(prefix))
    env = household_env(task, cfg)
    env.reset()
    return env


def turn(env: AsgardEnv, text: str) -> dict[str, Any]:
    """Step one valid `ACTION Object` command; returns the step's info (plus its feedback)."""
    action, obj = text.split()
    result = env.step(Command.valid(action, obj))
    return {**result.info, "feedback": result.feedback, "done": result.done}


def ok(env: AsgardEnv, *texts: str) -> None:
    """Step commands that must all succeed."""
    for text in texts:
        info = turn(env, text)
        assert info["success"], f"{text}: {info['message']}"


def grab(env: AsgardEnv, otype: str) -> None:
    """Hold an object of the type: FIND it (opening the closed container it is in) and PICKUP."""
    ok(env, f"FIND {otype}")
    obj = env.world.objects[env.layer.facing]
    closed = env.layer.closed_container(obj)
    if closed is not None:
        ok(env, f"OPEN {closed.type}", f"PICKUP {otype}", f"CLOSE {closed.type}")
    else:
        ok(env, f"PICKUP {otype}")


def one(env: AsgardEnv, otype: str) -> Any:
    """The (first) object of a type."""
    return env.layer.instances(otype)[0]


@pytest.fixture
def real_plans() -> Path:
    """The upstream plans beside the checkout (skips when absent)."""
    if not REAL_PLANS.is_dir():
        pytest.skip("../shared/data/asgardbench is not present")
    return REAL_PLANS
