"""Driver CPU per step of the Ray executor: a synthetic event stream through the real driver path.

Run: `python bench/ray_driver.py [--json] [--steps N] [--batch N] [--prompt-chars N] [--image]`.

What the driver does for every step a worker streams is timed in this process alone (no Ray, no actors):
unpickle the event (`pickle.loads`, as `ray_attempt.run_attempt` does), rebuild the trajectory and append the
trace line with its interned prompt messages (`TraceReplay.apply` into a `FileSink` of a real run folder), and
write the observation's PNG when the step has one. The events are pickled by the worker's own `QueueSink`, so
they hold what real ones do: a step record with its prompt (a growing chat, `--prompt-chars` per turn), the
reply, the usage, and the observation. CPU time (`time.process_time`) over `--steps` steps, best of 3.
Target (issue 23): at most 0.15 ms of driver CPU per step, i.e. one driver keeping up with 5,000 steps/s.
"""

from __future__ import annotations

import argparse
import json
import pickle
import queue
import sys
import tempfile
import time
from pathlib import Path

from suite.contract.records import Action, Image, Observation, StepRecord, Task, Usage
from suite.engine.runner import FileSink
from suite.executors.ray_attempt import TraceReplay
from suite.executors.ray_worker import QueueSink
from suite.store.run_folder import RunStore

TARGET_MS = 0.15
REPEATS = 3


def stream(task: Task, steps: int, prompt_chars: int, image: bool) -> list[bytes]:
    """The pickled events one worker sends for an episode of `steps` steps (start and steps, no end)."""
    events: queue.Queue[bytes | None] = queue.Queue()
    sink = QueueSink(events, task)
    frame = b"\x89PNG" + bytes(20_000) if image else None

    def observation(i: int) -> Observation:
        return Observation(text=f"You are in room {i % 7}. You see a table and a chair.",
                           images=[Image(png=frame)] if frame else [])

    sink.start(task, observation(0))
    history = [{"role": "system", "content": "You control a household robot. " * (prompt_chars // 32 + 1)}]
    for i in range(steps):
        history = [*history, {"role": "user", "content": f"Step {i}: " + "x" * prompt_chars}]
        record = StepRecord(i, Action(value="go north", text="go north"), reply=f"I go north.\nACTION: go north {i}",
                            prompt=list(history), feedback="ok", usage=Usage(120 + i, 12, 0.0001, latency_s=0.4))
        sink.step(record, observation(i + 1))
        history = [*history[-8:], {"role": "assistant", "content": record.reply}]
    out = []
    while not events.empty():
        blob = events.get()
        if blob is not None:
            out.append(blob)
    return out


def driver_cpu_ms(steps: int, batch: int, prompt_chars: int, image: bool) -> float:
    """Driver CPU milliseconds per step for one episode's stream, best of REPEATS."""
    best = float("inf")
    for repeat in range(REPEATS):
        with tempfile.TemporaryDirectory() as tmp:
            task = Task("bench", f"t{repeat}", {}, max_steps=steps + 1)
            blobs = stream(task, steps, prompt_chars, image)
            store = RunStore(Path(tmp), create=True)
            replay = TraceReplay(task, FileSink(store.open_trace(task.key)))
            batches = [blobs[i:i + batch] for i in range(0, len(blobs), batch)]
            started = time.process_time()
            for group in batches:
                for blob in group:
                    replay.apply(pickle.loads(blob))
            best = min(best, (time.process_time() - started) * 1000 / steps)
            replay.abandon()
    return best


def main(argv: list[str] | None = None) -> int:
    """Print the figure (or JSON with `--json`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--prompt-chars", type=int, default=400)
    parser.add_argument("--image", action="store_true", help="a 20 kB frame with every observation")
    args = parser.parse_args(argv)
    ms = driver_cpu_ms(args.steps, args.batch, args.prompt_chars, args.image)
    result = {"driver_cpu_ms_per_step": round(ms, 4), "target_ms": TARGET_MS, "meets_target": ms <= TARGET_MS,
              "steps_per_s_one_driver": round(1000 / ms) if ms else None, "steps": args.steps,
              "prompt_chars": args.prompt_chars, "image": args.image}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"driver CPU per step: {ms:.3f} ms (target <= {TARGET_MS} ms): one driver keeps up with about "
              f"{result['steps_per_s_one_driver']} steps/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
