"""What a run could spend, told before it starts when no `--max-cost` caps it (`run.cost_warning_usd`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from suite.contract.records import Task

#: Tokens one step is assumed to send and receive: a rough figure for a prompt that carries the task, the current
#: observation and some history (LongAct's measured about 3,400 a step), and a short reasoned reply.
PROMPT_TOKENS_PER_STEP = 3_000
COMPLETION_TOKENS_PER_STEP = 500


@dataclass(frozen=True)
class Estimate:
    """The most a run's episodes could spend if each used its whole step budget."""

    episodes: int
    steps: int
    tokens: int
    cost_usd: float


def estimate(model: Any, tasks: list[Task]) -> Estimate | None:
    """The run's spend at its episodes' full step budgets (a task without one counts one step), or None when the
    run calls no priced model (an agent without one, a model with no known price)."""
    if not isinstance(model, dict):
        return None
    steps = Counter[str]()
    for task in tasks:
        steps[task.benchmark] += task.max_steps or 1
    tokens, cost = 0, 0.0
    for bench, count in steps.items():
        client: Any = model.get(bench)
        if not hasattr(client, "estimate_cost"):  # not a ModelClient (suite.models.client)
            return None
        completion = min(COMPLETION_TOKENS_PER_STEP, client.max_tokens or COMPLETION_TOKENS_PER_STEP)
        priced = client.estimate_cost(count * PROMPT_TOKENS_PER_STEP, count * completion)
        if priced is None:
            return None
        tokens += count * (PROMPT_TOKENS_PER_STEP + completion)
        cost += priced
    return Estimate(len(tasks), sum(steps.values()), tokens, cost)


def cost_warning(run: Any, model: Any, tasks: list[Task]) -> str | None:
    """One line when `--max-cost` is unset and the run could cost more than `run.cost_warning_usd`, else None
    (`run` is the run's config section)."""
    threshold = run.get("cost_warning_usd")
    if run.get("max_cost") is not None or not threshold:
        return None
    found = estimate(model, tasks)
    if found is None or found.cost_usd <= float(threshold):
        return None
    return (f"warning: this run could cost up to about ${found.cost_usd:,.2f} ({found.tokens:,} tokens: "
            f"{found.episodes} episodes, {found.steps:,} steps in their step budgets, about "
            f"{PROMPT_TOKENS_PER_STEP + COMPLETION_TOKENS_PER_STEP:,} tokens a step) and no --max-cost caps it: "
            f"--max-cost USD stops it cleanly at a budget (run.cost_warning_usd={float(threshold):g} sets when "
            "this shows)")
