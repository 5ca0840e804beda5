"""Learned shortcut baselines: the cross-fitting that fits a baseline on part of the pack and scores it on the rest,
and the agent that runs the fitted policy, giving it only what its baseline `reads`."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from omegaconf import DictConfig, OmegaConf

from suite.contract.errors import ConfigError
from suite.contract.records import FOLD_GROUP, Observation, StepRecord, Task
from suite.contract.registry import AgentSpec, LearnedPolicy, Reading, ShortcutBaseline
from suite.engine.agents import Agent, AgentContext, AgentTurn, parse_safely

if TYPE_CHECKING:
    from suite.engine.host import PluginHost


def agent_name(baseline: ShortcutBaseline) -> str:
    """The agent a learned baseline's runs record (registered for the length of each fold's run)."""
    return f"learned/{baseline.name}"


def assign_folds(ids: Sequence[str], folds: int, seed: int, groups: Mapping[str, str] | None = None) -> dict[str, int]:
    """Each task id's fold: the fold groups (`groups[id]`, the id itself where it has none) ordered by a seeded hash,
    then dealt round the folds, so a task's fold depends only on the seed and the set of groups, tasks of one group
    share a fold, and (with one task per group) the folds differ in size by at most one."""
    group_of = {task_id: (groups or {}).get(task_id, task_id) for task_id in ids}
    order = sorted(set(group_of.values()), key=lambda g: (hashlib.sha256(f"{seed}\0{g}".encode()).hexdigest(), g))
    fold_of_group = {group: rank % folds for rank, group in enumerate(order)}
    return {task_id: fold_of_group[group] for task_id, group in group_of.items()}


def task_groups(tasks: Sequence[Task]) -> dict[str, str]:
    """The fold group of each task that declares one (`Task.meta[FOLD_GROUP]`)."""
    return {t.id: str(t.meta[FOLD_GROUP]) for t in tasks if t.meta.get(FOLD_GROUP) is not None}


@dataclass
class Fold:
    """One fold of a learned baseline's cross-fitting: what it is fitted on and which sampled tasks it scores."""

    index: int
    train: list[Task]
    scored: list[str]


def plan_folds(host: PluginHost, cfg: DictConfig, bench: str, baseline: ShortcutBaseline) -> list[Fold]:
    """The folds of a learned baseline over every task its run config loads (the pack, or the categories it keeps),
    seeded by `run.seed`: fold k is fitted on the other folds' tasks and scores the sample's tasks in fold k (every
    task of the sample is scored once, by a policy fitted without it); folds that score nothing are left out."""
    loaded = list(host.call("load_tasks", bench, config=cfg.get(bench) or OmegaConf.create({})))
    if len({t.id for t in loaded}) < 2:
        raise ConfigError(f"{bench}: the learned baseline {baseline.name!r} needs at least 2 tasks to cross-fit")
    fold_of = assign_folds([t.id for t in loaded], baseline.folds, int(cfg.run.seed), task_groups(loaded))
    wanted = None if cfg.run.tasks is None else {str(i) for i in cfg.run.tasks}
    scored = [t.id for t in loaded if wanted is None or t.id in wanted]
    plans = [Fold(k, [t for t in loaded if fold_of[t.id] != k], [i for i in scored if fold_of[i] == k])
             for k in range(baseline.folds)]
    return [fold for fold in plans if fold.scored]


def reading(reads: Sequence[str], task: Task, observation: Observation, history: list[StepRecord]) -> Reading:
    """What a learned policy is given at a step: the parts `reads` names, every other part None."""
    return Reading(
        text=observation.text if "text" in reads else None,
        frames=tuple(observation.images) if "frames" in reads else None,
        step=len(history) if "step" in reads else None,
        category=task.category if "category" in reads else None,
        history=tuple((s.reply or s.action.text, s.feedback) for s in history) if "history" in reads else None,
    )


class LearnedAgent(Agent):
    """Runs a fitted learned policy: its reply to what the baseline reads, through the benchmark's parser."""

    def __init__(self, ctx: AgentContext, policy: LearnedPolicy, reads: Sequence[str]) -> None:
        self.host = ctx.host
        self.benchmark = ctx.benchmark
        self.policy = policy
        self.reads = tuple(reads)

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """The policy's reply to what it may read, parsed as a model's reply would be."""
        text = self.policy(reading(self.reads, task, observation, history))
        return AgentTurn(action=parse_safely(self.host, self.benchmark, task, text), reply=text)


@contextmanager
def fitted_agent(host: PluginHost, bench: str, baseline: ShortcutBaseline, train: list[Task]) -> Iterator[str]:
    """Fit the baseline's learner on `train` and register its policy as the agent `agent_name(baseline)` of
    `bench` while the block runs; yields that name."""
    if baseline.learner is None:
        raise ConfigError(f"baseline {baseline.name!r} has no learner")
    policy = baseline.learner(train)
    name = agent_name(baseline)
    host.registry.add_agent(AgentSpec(
        name, lambda ctx: LearnedAgent(ctx, policy, baseline.reads),
        f"learned baseline {baseline.name}, fitted on {len(train)} tasks", benchmarks=(bench,)))
    try:
        yield name
    finally:
        del host.registry.agents[(name, bench)]
