"""Helpers for the LongAct tests: a kitchen env with a hand-written checklist, and the pack's tasks."""

from __future__ import annotations

from typing import Any

from omegaconf import OmegaConf
from suite.contract.records import Task
from suite.engine.host import default_config
from suite_household.generator import generate_room
from suite_longact.backends import HouseholdSim
from suite_longact.env import LongActEnv, env_settings, longact_rules
from suite_longact.plugin import PACK_DIR, load_tasks


def config(**overrides: Any) -> Any:
    """The longact config section over the pack, small images."""
    cfg = default_config(["longact"]).longact
    return OmegaConf.merge(cfg, {"data_dir": str(PACK_DIR), "image_size": 64, **overrides})


def pack_tasks(**overrides: Any) -> list[Task]:
    """The pack's tasks through the hook."""
    return load_tasks("longact", config(**overrides))


def kitchen_env(checklist: list[dict[str, Any]], **overrides: Any) -> LongActEnv:
    """A reset env on a generated kitchen with the given checklist; actions name the pack's ids unless
    `opaque_ids=True` (what agents see by default)."""
    scene = generate_room("Kitchen", 3)
    task = Task("longact", "t", {"checklist": checklist, "split": "detailed"}, max_steps=100)
    settings = env_settings(config(**{"opaque_ids": False, **overrides}))
    env = LongActEnv(task, HouseholdSim(scene, settings, longact_rules()), settings)
    env.reset()
    return env


def first(env: LongActEnv, otype: str) -> Any:
    """The first object of a type (by id)."""
    return sorted((o for o in env.world.objects.values() if o.type == otype), key=lambda o: o.id)[0]


def put_on(world: Any, object_id: str, receptacle_id: str) -> None:
    """Set an object down in or on a receptacle (test setup, no action)."""
    from suite_longact.houses import apply_setup

    apply_setup(world, [{"op": "move", "object": object_id, "into": receptacle_id}])


def teleport_facing(env: LongActEnv, object_id: str) -> None:
    """Stand the agent where the oracle would to act on the object (test setup, no action)."""
    from suite_longact.oracle import Oracle

    path, yaw, horizon = next(Oracle(env)._poses(object_id))
    x, z = Oracle(env)._pos(path[-1])
    from suite_household.world import Agent

    env.world.set_agent(Agent(x, z, yaw, horizon, True))
