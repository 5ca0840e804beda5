"""The hooks of the smallest benchmark the bench scripts drive: episodes that count to `steps`, each step burning
`iterations` loop iterations of pure Python (0: none). A bench plugin module imports these hooks and adds its own
`register` (its benchmark and scripted model); its tasks are listed in its config section (`<bench>.tasks`)."""

from __future__ import annotations

from typing import Any

from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, StepResult, Task


def burn(iterations: int) -> int:
    """Pure-Python CPU work (holds the GIL, like a Python simulator step)."""
    total = 0
    for i in range(iterations):
        total += i * i % 7
    return total


class CountingEnv:
    """Steps `steps` times, each burning the task's `iterations` (if any)."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.count = 0

    def reset(self) -> Observation:
        """Start."""
        self.count = 0
        return Observation(text="step 0")

    def step(self, action: str) -> StepResult:
        """Burn, then count the step."""
        burn(self.task.data.get("iterations", 0))
        self.count += 1
        return StepResult(Observation(text=f"step {self.count}"), done=self.count >= self.task.data["steps"])

    def close(self) -> None:
        """Nothing to release."""


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """The tasks listed in the config section (`<bench>.tasks`)."""
    return [Task(benchmark, t["id"], dict(t), max_steps=t["steps"]) for t in config.tasks]


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> CountingEnv:
    """A fresh counter."""
    return CountingEnv(task)


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation, history: list[Any]) -> list[dict[str, Any]]:
    """The observation as one message."""
    return [{"role": "user", "content": observation.text}]


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """Any reply goes on."""
    return Action(value="go", text=reply)


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Any, env: CountingEnv) -> Settlement:
    """Success when every step was taken."""
    return Settlement("success", {"success": env.count >= task.data["steps"]})
