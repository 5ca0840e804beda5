"""A test plugin for the Ray executor, loaded through SUITE_PLUGIN_MODULES in the driver and in every actor.

- `faults`: a walk of `steps` steps whose simulator can crash its process or hang at step `fault_at`
  (`fault`: crash_once, crash_always, hang_once; "once" is remembered by a marker file beside the data).
- `gpusim`: the same walk, declaring half a GPU per simulator, to check how a mixed run is packed.
- `scripted/ray-counter`: a deterministic model for the template's `counter` benchmark whose outcomes vary;
  `scripted/ray-counter-slow` answers the same after 0.15 s (episodes long enough to break something mid-run);
  `scripted/ray-counter-anywhere` after 0.05 s, declared `any_process` (its calls go to the nodes' model-call
  actors on Ray and to the call workers locally).

A task with `"image": true` shows the same image object in every observation (a static camera). With
`SUITE_RAYTEST_FRAGILE` set, a process whose data already holds a crash marker fails to load this plugin (a
worker actor that cannot start after a crash).

Each benchmark reads `tasks.jsonl` from `$SUITE_DATA_DIR/<benchmark>`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Image, Observation, Settlement, StepResult, Task
from suite.contract.registry import AgentSpec, BenchmarkSpec, DataSource, Metric
from suite.engine.agents import PolicyAgent
from suite.models import register_script

RESOURCES = {"faults": {"num_cpus": 1.0}, "gpusim": {"num_cpus": 1.0, "num_gpus": 0.5}}
STATE = re.compile(r"number is (-?\d+)\. The target is (-?\d+)")


def counter_reply(messages: list[dict[str, Any]]) -> str:
    """Greedy towards the target, except: target 0 gets an unparseable reply, targets below -3 stop one short."""
    number, target = (int(x) for x in STATE.search(messages[-1]["content"]).groups())
    if target == 0:
        return "I would rather not say."
    diff = target - number
    move = "DONE" if diff == 0 or (target < -3 and abs(diff) == 1) else ("+1" if diff > 0 else "-1")
    return f"{diff} to go.\nACTION: {move}"


def assigned_resources() -> dict[str, float]:
    """The Ray resources of the actor this runs in ({} outside Ray)."""
    if "ray" not in sys.modules or not sys.modules["ray"].is_initialized():
        return {}
    return sys.modules["ray"].get_runtime_context().get_assigned_resources()


class WalkEnv:
    """Counts steps up to `steps`; may crash or hang at step `fault_at`. Each step's info says how many walks this
    process holds open (`live`: more than one when an actor runs several episodes at once)."""

    live = 0

    def __init__(self, task: Task) -> None:
        self.task = task
        self.count = 0
        WalkEnv.live += 1

    def reset(self) -> Observation:
        """Start at step 0."""
        self.count = 0
        return Observation(text=f"step 0 of {self.task.data['steps']} in process {os.getpid()}",
                           images=self.camera())

    def camera(self) -> list[Image]:
        """The one image of a static camera (the same object every time), when the task has one."""
        if not self.task.data.get("image"):
            return []
        if not hasattr(self, "frame"):
            self.frame = Image(png=b"\x89PNG fake frame", label="camera")
        return [self.frame]

    def _fault(self) -> None:
        kind = self.task.data.get("fault") or ""
        marker = Path(self.task.data["markers"]) / f"{self.task.id}.{kind}"
        if kind.endswith("_once"):
            if marker.exists():
                return
            marker.touch()
        if kind.startswith("crash"):
            os.kill(os.getpid(), signal.SIGKILL)
        if kind.startswith("hang"):
            time.sleep(3600)

    def step(self, action: str) -> StepResult:
        """One step (slow when `sleep_s` is set)."""
        self.count += 1
        if self.count == self.task.data.get("fault_at"):
            self._fault()
        time.sleep(self.task.data.get("sleep_s", 0))
        info = {"resources": assigned_resources()} if self.task.benchmark == "gpusim" else {"live": WalkEnv.live}
        return StepResult(Observation(text=f"step {self.count}", images=self.camera()), feedback="ok",
                          done=self.count >= self.task.data["steps"], info=info)

    def close(self) -> None:
        """One walk fewer open in this process."""
        WalkEnv.live -= 1


def walk(task: Task, env: Any, observation: Observation, history: list[Any]) -> Action:
    """Always go on."""
    return Action(value="go", text="go")


@hookimpl
def register(registry: Any) -> None:
    """Declare both benchmarks, the `walker` agent, their data, and `scripted/ray-counter`."""
    markers = Path(os.environ.get("SUITE_DATA_DIR", "/nonexistent")) / "faults" / "markers"
    if os.environ.get("SUITE_RAYTEST_FRAGILE") and any(markers.glob("*.crash_once")):
        raise RuntimeError("this process cannot load the faults plugin after a crash")
    register_script("ray-counter", counter_reply)
    register_script("ray-counter-slow", counter_reply, latency_s=0.15)
    register_script("ray-counter-anywhere", counter_reply, latency_s=0.05, any_process=True)
    for name, resources in RESOURCES.items():
        registry.add_benchmark(BenchmarkSpec(name, "a walk for the Ray executor tests", [Metric("success", "SR")],
                                             resources=resources))
        registry.add_data_source(DataSource(name, official="written by the tests"))
    registry.add_agent(AgentSpec("walker", lambda ctx: PolicyAgent(walk), "always goes on",
                                 benchmarks=tuple(RESOURCES)))


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """The tasks in `<data_dir>/tasks.jsonl` (markers for "once" faults go to `<data_dir>/markers`)."""
    root = Path(config.data_dir)
    (root / "markers").mkdir(exist_ok=True)
    tasks = []
    for line in (root / "tasks.jsonl").read_text().splitlines():
        data = {**json.loads(line), "markers": str(root / "markers")}
        tasks.append(Task(benchmark, data["id"], data, max_steps=data["steps"] + 1))
    return tasks


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> WalkEnv:
    """A fresh walk."""
    return WalkEnv(task)


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation, history: list[Any]) -> list[dict[str, Any]]:
    """The observation as one message (the walker agent does not ask a model)."""
    return [{"role": "user", "content": observation.text}]


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """Any reply means go."""
    return Action(value="go", text=reply)


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Any, env: WalkEnv) -> Settlement:
    """Success when every step was walked."""
    success = env.count >= task.data["steps"]
    return Settlement("success" if success else "budget_exhausted", {"success": success, "steps": env.count})
