"""AsgardBench's learned task-blind plan (issue 34): one command sequence per task type, fitted on the training fold,
played without reading the task, a view or the feedback.

The candidates of a task type are the happy-path plans (`blind_plan.blind_commands`) of its training tasks; each
is played blind on every training task of the type (text-only condition, about 50 ms an episode) and the one that
solves most is kept (ties: the one most training tasks share, then the first). On a held-out task the policy reads
only the task type and the turn index, and plays the kept plan turn by turn, then answers no action."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from suite.contract.records import Action, Observation, StepRecord, Task
from suite.contract.registry import LearnedPolicy, Reading, ShortcutBaseline
from suite.engine.agents import PolicyAgent
from suite.engine.host import ModuleHost
from suite.engine.loop import TraceSink, inline, run_episode

from suite_asgard.blind_plan import blind_commands
from suite_asgard.conditions import resolve_condition

Plan = tuple[tuple[str, str], ...]
_PLAYED: dict[tuple[str, Plan], bool] = {}


def answer(plan: Plan, turn: int) -> str:
    """The plan's answer at a turn: its command, or no action once it is played out."""
    return "<answer>\n</answer>" if turn >= len(plan) else f"<answer>\nAction: {' '.join(plan[turn])}\n</answer>"


@cache
def _config() -> Any:
    from omegaconf import OmegaConf
    from suite.engine.host import default_config

    return OmegaConf.merge(default_config(["asgard"]).asgard, {"condition": "text_only"})


def solves(task: Task, plan: Plan) -> bool:
    """Whether playing `plan` blind solves the task (through the shared loop; kept for the other folds)."""
    key = (task.id, plan)
    if key not in _PLAYED:
        from suite_asgard import plugin
        from suite_asgard.parsing import parse_reply

        def policy(task: Task, env: Any, observation: Observation, history: list[StepRecord]) -> Action:
            return parse_reply(answer(plan, len(history)), task.data["objects"])

        cfg = _config()
        # text only, whatever the condition the task was loaded under: the plan is blind, a rendered view is waste
        blind = replace(task, data={**task.data, "condition": resolve_condition(cfg).to_dict()})
        result = asyncio.run(run_episode(ModuleHost(plugin), blind, PolicyAgent(policy), cfg, TraceSink(),
                                         offload=inline))
        _PLAYED[key] = result.settlement.outcome == "success"
    return _PLAYED[key]


def fit(train: Sequence[Task]) -> LearnedPolicy:
    """Per task type, the training plan that solves most training tasks of the type."""
    by_type: dict[str | None, list[Task]] = {}
    for task in train:
        by_type.setdefault(task.category, []).append(task)
    chosen: dict[str | None, Plan] = {}
    for kind, tasks in by_type.items():
        plans = Counter(tuple(blind_commands(t.data["plan"].goals)) for t in tasks)
        order = list(plans)
        chosen[kind] = max(order, key=lambda p: (sum(solves(t, p) for t in tasks), plans[p], -order.index(p)))

    def policy(reading: Reading) -> str:
        return answer(chosen.get(reading.category, ()), int(reading.step or 0))

    policy.chosen = chosen  # type: ignore[attr-defined]
    return policy


def declared(ceiling: dict[str, float]) -> ShortcutBaseline:
    """The learned plan as `suite audit` runs it (cross-fitted; it reads the task type and the turn index)."""
    return ShortcutBaseline(
        "learned-plan", "never reads the task: per task type, the happy-path plan of a training task that solved "
        "most training tasks of the type, played blind (suite_asgard.learned_plan)", learner=fit,
        reads=("category", "step"), ceiling=ceiling, chance=0.0, blind=True)
