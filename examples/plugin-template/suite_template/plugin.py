"""The hook implementations of the `counter` benchmark (a template for plugin authors).

The agent sees a number and a target; each step it answers `ACTION: +1`, `ACTION: -1` or `ACTION: DONE`.
The episode succeeds when the agent says DONE on the target.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, StepResult, Task
from suite.contract.registry import (
    AgentSpec,
    BenchmarkSpec,
    DataSource,
    LearnedPolicy,
    Metric,
    Reading,
    ShortcutBaseline,
)
from suite.contract.schemas import decode_utf8, parse_json, validate
from suite.contract.settings import MODEL_DEFAULTS, MODEL_PRESET, MODEL_PRESETS, OPTIONAL_PATH
from suite.engine.agents import PolicyAgent
from suite.engine.outcomes import AGENT_FAILURE, failure_outcome, unparsable_steps

HERE = Path(__file__).parent
SCHEMA = HERE / "task.schema.json"
BENCH = "counter"
#: What the `counter` config section accepts (its defaults: config.yaml); the core checks it before a run's first
#: episode, and the plugin kit checks that it describes every default.
CONFIG_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "data_dir": OPTIONAL_PATH,
        "max_steps_slack": {"type": ["integer", "null"], "minimum": 0},
        "model_defaults": MODEL_DEFAULTS,
        "model_preset": MODEL_PRESET,
        "model_presets": MODEL_PRESETS,
    },
}
ACTION = re.compile(r"ACTION:\s*(\+1|-1|DONE)", re.IGNORECASE)


class CounterEnv:
    """The world: one integer."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.value = task.data["start"]
        self.claimed_done = False

    def _obs(self) -> Observation:
        return Observation(text=f"The number is {self.value}. The target is {self.task.data['target']}.")

    def reset(self) -> Observation:
        """Start at the task's number."""
        self.value = self.task.data["start"]
        return self._obs()

    def step(self, action: str) -> StepResult:
        """Apply +1, -1 or DONE."""
        if action == "DONE":
            self.claimed_done = True
            return StepResult(self._obs(), feedback="done", done=True)
        self.value += 1 if action == "+1" else -1
        return StepResult(self._obs(), feedback=f"now {self.value}")

    def close(self) -> None:
        """Nothing to release."""


def oracle(task: Task, env: CounterEnv, observation: Observation, history: list[Any]) -> Action:
    """Step towards the target, then say DONE."""
    diff = task.data["target"] - env.value
    move = "DONE" if diff == 0 else ("+1" if diff > 0 else "-1")
    return Action(value=move, text=move)


def greedy_reply(messages: list[dict[str, Any]]) -> str:
    """A deterministic baseline model: read the number and the target from the prompt, step towards it."""
    found = re.search(r"number is (-?\d+)\. The target is (-?\d+)", messages[-1]["content"])
    if not found:
        return "I cannot read the state."
    diff = int(found.group(2)) - int(found.group(1))
    move = "DONE" if diff == 0 else ("+1" if diff > 0 else "-1")
    return f"Thought: {diff} to go.\nACTION: {move}"


def valid_reply(task: Task, observation: Observation, rng: random.Random | None) -> str:
    """A reply the parser accepts, for `scripted/random` (drawn with `rng`) and `scripted/first-option` (rng None)."""
    moves = ("+1", "-1", "DONE")
    return f"ACTION: {moves[0] if rng is None else rng.choice(moves)}"


def always_plus(messages: list[dict[str, Any]]) -> str:
    """A shortcut baseline: +1 at every step, then DONE at the last one, never reading the number or the target."""
    return "ACTION: +1"


def learn_offset(train: Sequence[Task]) -> LearnedPolicy:
    """A learned shortcut baseline's learner: the commonest target offset of the training tasks (the smaller one
    on a tie). Its policy reads only the step index: it walks that offset, then says DONE, wherever it starts."""
    offsets = Counter(t.data["target"] - t.data["start"] for t in train)
    offset = min(offsets, key=lambda d: (-offsets[d], abs(d), d))

    def policy(reading: Reading) -> str:
        step = reading.step or 0
        return "ACTION: DONE" if step >= abs(offset) else f"ACTION: {'+1' if offset > 0 else '-1'}"

    return policy


def stop_reply(task: Task, observation: Observation) -> str:
    """The reply of a policy that does nothing (the generic `stop-at-once` baseline)."""
    return "ACTION: DONE"


@hookimpl
def register(registry: Any) -> None:
    """Declare the benchmark, its oracle, its data, a scripted baseline model `scripted/counter-greedy` and a
    shortcut baseline `scripted/counter-always-plus` that `suite audit` holds to its ceiling."""
    from suite.models import register_script

    register_script("counter-greedy", greedy_reply, latency_s=float(os.environ.get("COUNTER_LATENCY_S", "0")))
    register_script("counter-always-plus", always_plus)
    registry.add_benchmark(BenchmarkSpec(
        name=BENCH, description="reach a target number with +1/-1 steps",
        headline=[Metric("success", "SR"), Metric("steps", "steps", percent=False, higher_is_better=False)],
        config_schema=CONFIG_SCHEMA,
        config_defaults=HERE / "config.yaml",
        valid_reply=valid_reply,
        stop_reply=stop_reply,
        chance=0.0,  # success needs DONE said on the target: guessing earns nothing
        baselines=[ShortcutBaseline("always-plus", "+1 at every step; never reads the number or the target",
                                    model="scripted/counter-always-plus", ceiling=5.0, chance=0.0),
                   # learned: fitted on 4 of 5 folds of the tasks, scored on the fifth; reads the step index only
                   ShortcutBaseline("learned-offset", "walks the commonest offset of the tasks it was fitted on; "
                                    "reads only the step index", learner=learn_offset, reads=("step",), folds=5,
                                    ceiling=30.0, chance=0.0)],
    ))
    registry.add_agent(AgentSpec("oracle", lambda ctx: PolicyAgent(oracle), "steps straight to the target",
                                 benchmarks=(BENCH,)))
    registry.add_data_source(DataSource(BENCH, official="none (the template ships its own tasks)",
                                        pack_dir=HERE / "data", pack_label="template tasks"))


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """Read tasks.jsonl from the data directory, validating each line; `max_steps_slack` sets the step budgets."""
    path = Path(config.data_dir) / "tasks.jsonl"
    slack = config.get("max_steps_slack")
    tasks = []
    for n, line in enumerate(decode_utf8(path.read_bytes(), path).splitlines(), 1):
        data = parse_json(line, f"{path}:{n}")
        validate(data, SCHEMA, f"{path}:{n}")
        budget = data["max_steps"] if slack is None else abs(data["target"] - data["start"]) + 1 + int(slack)
        tasks.append(Task(BENCH, data["id"], data, max_steps=budget))
    return tasks


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> CounterEnv:
    """One integer world per episode."""
    return CounterEnv(task)


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation, history: list[Any]) -> list[dict[str, Any]]:
    """One user message with the state and the answer format."""
    text = f"{observation.text}\nAnswer with one line: ACTION: +1, ACTION: -1 or ACTION: DONE."
    return [{"role": "user", "content": text}]


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """The last `ACTION:` in the reply, or a parse failure."""
    found = ACTION.findall(reply or "")
    if not found:
        return Action.failure("no 'ACTION: +1|-1|DONE' line", text=reply or "")
    move = found[-1].upper()
    return Action(value=move, text=move)


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Any, env: CounterEnv) -> Settlement:
    """Success when DONE was said on the target; otherwise the shared taxonomy's precedence picks the outcome."""
    success = env.claimed_done and env.value == task.data["target"]
    unparsable = unparsable_steps(trajectory)
    metrics = {"success": success, "steps": len(trajectory.steps), "unparsable": unparsable}
    if success:
        return Settlement("success", metrics, None)
    outcome = failure_outcome(len(trajectory.steps), unparsable, trajectory.end_reason == "max_steps")
    reasons = {
        "parse_failure": f"none of the {unparsable} replies had an 'ACTION:' line",
        "budget_exhausted": f"step limit reached at {env.value}, target {task.data['target']}",
        AGENT_FAILURE: f"{'said DONE' if env.claimed_done else 'stopped'} at {env.value}, target {task.data['target']}",
    }
    return Settlement(outcome, metrics, reasons[outcome])
