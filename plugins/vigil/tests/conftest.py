"""Helpers for the Vigil tests: tasks from the shipped pack, envs, and drivers for hand-written actions."""

from __future__ import annotations

from typing import Any

from omegaconf import OmegaConf
from suite.contract.records import Settlement, Task, Trajectory
from suite.engine.host import default_config
from suite_vigil import scoring
from suite_vigil.env import VigilEnv
from suite_vigil.parsing import VigilAction, parse_reply
from suite_vigil.plugin import PACK_DIR, load_tasks, make_env


def config(**overrides: Any) -> Any:
    """The vigil config section with overrides (data_dir: the shipped pack)."""
    cfg = default_config(["vigil"]).vigil
    return OmegaConf.merge(cfg, {"data_dir": str(PACK_DIR), **overrides})


def tasks(**overrides: Any) -> list[Task]:
    """Every pack task, through the hook."""
    return load_tasks("vigil", config(**overrides))


def first(family: str, pred: Any = None, **overrides: Any) -> Task:
    """The first task of a family (in id order) that satisfies `pred`."""
    return next(t for t in tasks(**overrides) if t.category == family and (pred is None or pred(t)))


def env_of(task: Task, images: bool = False) -> VigilEnv:
    """A reset env of the task (frames not encoded unless asked)."""
    env = make_env("vigil", task, None)
    if not images:
        env.skip_images()
    env.reset()
    return env


def act(skill: str, **arguments: Any) -> VigilAction:
    """A valid action."""
    return VigilAction(skill, arguments)


def report(status: str) -> VigilAction:
    """A report action with that status (normalised as the parser would)."""
    return parse_reply(f'{{"skill_name": "report", "arguments": {{"status": "{status}", "summary": "s"}}}}').value


def run(task: Task, actions: list[VigilAction], env: VigilEnv | None = None) -> tuple[Settlement, VigilEnv]:
    """Step the actions until the env ends the episode (or they run out), then settle."""
    env = env or env_of(task)
    for a in actions:
        if env.step(a).done:
            break
    return scoring.settle(task, Trajectory(task=task), env), env


def oracle_actions(task: Task) -> list[VigilAction]:
    """The oracle's actions on the task, without its report."""
    from suite_vigil.oracle import OraclePlanner

    env = env_of(task)
    env.sim.render = False
    planner = OraclePlanner(env)
    out = []
    while True:
        a = planner.next_action()
        if a.skill == "report":
            return out
        out.append(a)
        env.step(a)
