"""Trace bytes per step of a 2,000-step episode (target: under 5 KB per step, images excluded).

Run: `python bench/trace_size.py [--json] [--steps N] [--dir DIR] [--longact]` (about 20 s on 2 cores; with
`--longact` about a minute more).

The episode runs through the real suite path (run folder, local executor, the one episode loop, the `direct`
agent, `ModelClient` and litellm with a `scripted/` model, no reply reused from an earlier run) on this
script's own `longrun` benchmark, shaped like a long-horizon household benchmark (LongAct runs thousands of
steps) at its worst for a trace:
every step sends a fixed system message of rules (about 2.4 KB) and one user message holding the task, the
whole history of earlier actions and their feedback (it grows every step, without a window), and the current
observation (about 0.6 KB); the model answers with a thought and an action. Images are stored as PNG files
beside the trace and are not part of the figure (this benchmark has none).

`--longact` also runs a real benchmark, LongAct (its shipped pack's first episode, `longact.max_steps` set to
the steps, images off as they are not part of the figure), with a scripted model that walks and turns, and adds
`longact_trace_bytes_per_step`, `longact_prompt_bytes_per_step` and `longact_inline_bytes_per_step`.

Printed (JSON keys): `trace_bytes_per_step` (the trace file's size over the steps), `steps`, `trace_bytes`,
`prompt_bytes_per_step` (the mean size of the prompt sent, as JSON), `inline_bytes_per_step` (what the trace
would take with every prompt written whole into its step, as before messages were stored by hash), and
`target_bytes_per_step` (5,120).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, StepRecord, StepResult, Task
from suite.contract.registry import BenchmarkSpec, Metric
from suite.engine.host import default_config
from suite.models import register_script

BENCH = "longrun"
MODEL = "longrun-walker"
STEPS = 2000
TARGET_BYTES = 5 * 1024
ROOMS = ("kitchen", "living room", "bathroom", "bedroom", "hallway", "study", "pantry")
RULES = "\n".join(
    f"Rule {i}: when you are in the {ROOMS[i % len(ROOMS)]}, look at every receptacle before you move on, "
    "and never pick up an object you do not need for the current goal." for i in range(20))


def reply(messages: list[dict[str, Any]]) -> str:
    """A thought and a move to the next room (the episode runs until its step cap)."""
    n = messages[-1]["content"].count("\n- ")
    return f"Thought: the cup is not here; I will search the {ROOMS[(n + 1) % len(ROOMS)]} next.\n" \
           f"ACTION: go to {ROOMS[(n + 1) % len(ROOMS)]}"


class Walker:
    """A house of rooms: each step moves the agent and describes what it sees."""

    def __init__(self) -> None:
        self.steps = 0

    def observe(self, room: str) -> Observation:
        """What the agent sees in `room` (about 600 bytes, different in every step)."""
        objects = ", ".join(f"{name}_{(self.steps * 7 + i) % 97}" for i, name in
                            enumerate(("Cup", "Plate", "Apple", "Knife", "Towel", "Book", "Lamp", "Chair") * 3))
        return Observation(text=f"Step {self.steps}. You are in the {room}. You see: {objects}. "
                                f"Doors lead to the {ROOMS[(self.steps + 2) % len(ROOMS)]} and the hallway.")

    def reset(self) -> Observation:
        """Start in the kitchen."""
        return self.observe("kitchen")

    def step(self, action: str) -> StepResult:
        """Move to the room named in the action."""
        self.steps += 1
        return StepResult(self.observe(action), feedback=f"You walk to the {action}.")

    def close(self) -> None:
        """Nothing to release."""


@hookimpl
def register(registry: Any) -> None:
    """Declare the benchmark and its scripted model."""
    register_script(MODEL, reply)
    registry.add_benchmark(BenchmarkSpec(BENCH, "a long-horizon episode for the trace-size benchmark",
                                         [Metric("success", "SR")], inline_env=True))


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """One task with `<benchmark>.steps` steps."""
    return [Task(benchmark, "find-the-cup", {}, max_steps=int(config.steps))]


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> Walker:
    """A fresh house."""
    return Walker()


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation,
                 history: list[StepRecord]) -> list[dict[str, Any]]:
    """The rules, then the task, the whole history and the observation in one user message."""
    lines = "".join(f"\n- {s.action.text}: {s.feedback}" for s in history)
    user = (f"Task: find the cup and put it in the sink.\nWhat you did so far:{lines}\n\n"
            f"Now: {observation.text}\nAnswer with a thought, then one line: ACTION: go to <room>")
    return [{"role": "system", "content": RULES}, {"role": "user", "content": user}]


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """`ACTION: go to <room>`."""
    _, _, room = (reply or "").partition("ACTION: go to ")
    return Action(value=room.strip(), text=f"go to {room.strip()}") if room else Action.failure("no action")


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Any, env: Walker) -> Settlement:
    """The cup is never found: the episode is there to be long."""
    return Settlement("agent_failure", {"success": False})


def trace_figures(store: Any, episode_id: str, steps: int) -> dict[str, Any]:
    """Bytes per step of an episode's trace as stored, of the prompts it sent, and of the trace with every prompt
    written whole into its step."""
    events = store.read_trace(episode_id)
    prompt_bytes = sum(len(json.dumps(e["prompt"], ensure_ascii=False).encode()) for e in events
                       if e["type"] == "step")
    inline = sum(len(json.dumps({k: v for k, v in e.items() if k != "messages"}, ensure_ascii=False).encode()) + 1
                 for e in events)
    size = store.trace_path(episode_id).stat().st_size
    return {"trace_bytes_per_step": round(size / steps, 1), "steps": steps, "trace_bytes": size,
            "prompt_bytes_per_step": round(prompt_bytes / steps, 1), "inline_bytes_per_step": round(inline / steps, 1)}


def longact_reply(messages: list[dict[str, Any]]) -> str:
    """Walk ahead, turning now and then (LongAct's JSON action)."""
    step = int(messages[-1]["content"][0]["text"].split("Step ", 1)[1].split(" ", 1)[0])
    action = "RotateLeft" if step % 5 == 0 else "MoveAhead"
    return f'{{"thought": "keep exploring the house", "action": "{action}"}}'


def measure_longact(steps: int, root: Path) -> dict[str, Any]:
    """One LongAct episode of `steps` steps through the CLI, measured."""
    from suite.cli.main import main as suite_main
    from suite.store.run_folder import RunStore

    register_script("trace-size-longact", longact_reply)
    out = root / "longact"
    code = suite_main(["run", "--plugins", "longact", "--model", "scripted/trace-size-longact", "--limit", "1",
                       "--out", str(out), "--no-report", f"longact.max_steps={steps}", "longact.images=[]",
                       "model.cache=false"])
    store = RunStore(out)
    try:
        (record,) = store.records()
        if code != 0 or record["steps"] != steps:
            raise RuntimeError(f"LongAct bench run is not what it should be: exit {code}, {record['steps']} steps")
        figures = trace_figures(store, record["episode_id"], steps)
    finally:
        store.close()
    return {f"longact_{k}": v for k, v in figures.items() if k.endswith("per_step")}


def measure(steps: int, root: Path) -> dict[str, Any]:
    """Run one episode of `steps` steps through the suite and measure its trace."""
    from omegaconf import OmegaConf
    from suite.engine.host import build_host
    from suite.launch.session import execute_session, start_session

    host = build_host(extra={BENCH: sys.modules[__name__]}, entry_points=False)
    cfg = default_config(sorted(host.registry.benchmarks))
    settings = {"run.plugins": [BENCH], "run.model": f"scripted/{MODEL}", "run.agent": "direct",
                "model.cache": False, f"{BENCH}.steps": steps}
    for key, value in settings.items():
        OmegaConf.update(cfg, key, value, force_add=True)
    session, tasks = start_session(host, cfg, str(root / "run"))
    status = execute_session(session, tasks)
    store = session.store
    try:
        (record,) = store.records()
        if status != "complete" or record["steps"] != steps:
            raise RuntimeError(f"bench run is not what it should be: {status}, {record['steps']} steps")
        return {**trace_figures(store, record["episode_id"], steps), "target_bytes_per_step": TARGET_BYTES}
    finally:
        store.close()


def main() -> None:
    """Print the figures (or one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"steps in the episode (default {STEPS})")
    parser.add_argument("--dir", help="where the run folders go (default: a temporary folder, removed after)")
    parser.add_argument("--longact", action="store_true", help="also measure a LongAct episode of as many steps")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="suite-trace-size-") as tmp:
        root = Path(args.dir or tmp)
        figures = measure(args.steps, root)
        if args.longact:
            figures.update(measure_longact(args.steps, root))
    if args.json:
        print(json.dumps(figures))
        return
    met = "met" if figures["trace_bytes_per_step"] < TARGET_BYTES else "MISSED"
    print(f"trace bytes per step: {figures['trace_bytes_per_step']:,.0f} over {figures['steps']:,} steps "
          f"(target < {TARGET_BYTES:,}: {met}); the trace file: {figures['trace_bytes']:,} bytes")
    print(f"prompt sent per step: {figures['prompt_bytes_per_step']:,.0f} bytes; with every prompt written whole "
          f"into its step the trace would take {figures['inline_bytes_per_step']:,.0f} bytes per step")
    if args.longact:
        print(f"LongAct: {figures['longact_trace_bytes_per_step']:,.0f} trace bytes per step; prompt sent per step "
              f"{figures['longact_prompt_bytes_per_step']:,.0f} bytes; every prompt whole in its step: "
              f"{figures['longact_inline_bytes_per_step']:,.0f} bytes per step")


if __name__ == "__main__":
    main()
