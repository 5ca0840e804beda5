"""Benchmark the Ray executor: episodes per second with 1 and 2 actors on a CPU-bound workload, their ratio
(target at least 1.7 on 2 cores), and the per-step overhead of the Ray path against the local executor.

Run: `python bench/scaling.py [--json] [--episodes N] [--steps N] [--work-ms MS] [--repeats N] [--ray-address ADDR]`.

The workload is the `burn` benchmark defined below: each simulator step burns a fixed amount of pure-Python CPU
work, and the `direct` agent asks `scripted/burn` (through litellm, no reply reused from an earlier run) for
every action. This file is also the plugin module the actors load (SUITE_PLUGIN_MODULES=burn=scaling).
Throughput is measured between
episode completions in the driver, after every actor finished its first episode (actor start-up excluded),
best of `--repeats` alternated runs; `machine_ratio` is what two plain processes burning the same work reach
meanwhile (best of as many tries), the ceiling of `ratio` on a machine shared with other work.
The per-step overhead runs a 1-step and a (1 + N)-step episode of no work in sequence: the difference of
their completion intervals over N is the cost of one step, everything but the work included (best of 3).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from step_counter import build_prompt, burn, load_tasks, make_env, parse_action, settle  # noqa: F401 - the plugin's hooks
from suite.contract.hookspecs import hookimpl
from suite.contract.registry import BenchmarkSpec, Metric
from suite.engine.host import default_config
from suite.models import register_script

HERE = Path(__file__).resolve().parent
BENCH = "burn"
TARGET_RATIO = 1.7
OVERHEAD_STEPS = 200
REPEATS = 3


@hookimpl
def register(registry: Any) -> None:
    """Declare the `burn` benchmark and the `scripted/burn` model."""
    register_script(BENCH, lambda messages: "ACTION: go")
    registry.add_benchmark(BenchmarkSpec(BENCH, "CPU-bound steps for the scaling benchmark", [Metric("success", "SR")]))


class Clock:
    """A driver-side tracker: when each episode's record was stored."""

    def __init__(self) -> None:
        self.times: list[float] = []

    @hookimpl
    def on_episode_end(self, run: Any, record: Any) -> None:
        """Note the time."""
        self.times.append(time.perf_counter())


def iterations_for(work_ms: float) -> int:
    """Loop iterations that take about `work_ms` of CPU time on this machine."""
    n, elapsed = 20_000, 0.0
    while elapsed < 0.05:
        n *= 2
        start = time.thread_time()
        burn(n)
        elapsed = time.thread_time() - start
    return max(1, int(n * work_ms / 1000 / elapsed))


def _burn_window(iterations: int) -> tuple[float, float]:
    start = time.perf_counter()
    burn(iterations)
    return start, time.perf_counter()


def machine_ratio(iterations: int) -> float:
    """How much faster two plain processes burn than one here and now (the ceiling of the Ray ratio)."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_burn_window, [1, 1])  # both processes started
        start, end = pool.apply(_burn_window, (iterations,))
        windows = pool.map(_burn_window, [iterations, iterations])
    return 2 * (end - start) / (max(w[1] for w in windows) - min(w[0] for w in windows))


def timed_run(executor: str, concurrency: int, tasks: list[dict[str, Any]], out: Path) -> list[float]:
    """Run `tasks` with `executor`; returns the completion time of each episode."""
    from omegaconf import OmegaConf
    from suite.engine.host import build_host
    from suite.launch.session import execute, start_session

    clock = Clock()
    host = build_host(extra={"bench-clock": clock})
    cfg = default_config(sorted(host.registry.benchmarks))
    settings = {"run.plugins": [BENCH], "run.model": f"scripted/{BENCH}", "run.agent": "direct",
                "run.executor": executor, "run.concurrency": concurrency, "model.cache": False, "burn.tasks": tasks}
    for key, value in settings.items():
        OmegaConf.update(cfg, key, value, force_add=True)
    session, planned = start_session(host, cfg, str(out))
    assert asyncio.run(execute(session, planned)) == "complete"
    session.store.close()
    return clock.times


def throughput(actors: int, episodes: int, steps: int, iterations: int, out: Path) -> float:
    """Episodes per second with `actors` Ray actors, once every actor has finished its first episode."""
    tasks = [{"id": f"e{i}", "steps": steps, "iterations": iterations} for i in range(episodes)]
    times = timed_run("ray", actors, tasks, out)
    return (len(times) - actors) / (times[-1] - times[actors - 1])


def step_overhead_ms(executor: str, out: Path) -> float:
    """Milliseconds one no-work step costs with `executor` (model call, loop, trace, transport): best of 3."""
    tasks = [{"id": "warm", "steps": 1, "iterations": 0}]
    for i in range(REPEATS):
        tasks += [{"id": f"short{i}", "steps": 1, "iterations": 0},
                  {"id": f"long{i}", "steps": 1 + OVERHEAD_STEPS, "iterations": 0}]
    t = timed_run(executor, 1, tasks, out)
    return min(((t[2 * i + 2] - t[2 * i + 1]) - (t[2 * i + 1] - t[2 * i])) / OVERHEAD_STEPS * 1000
               for i in range(REPEATS))


def main(argv: list[str] | None = None) -> int:
    """Measure and print the figures (one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--episodes", type=int, default=24)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--work-ms", type=float, default=40.0, help="CPU work per simulator step")
    parser.add_argument("--repeats", type=int, default=3, help="throughput runs per actor count (best kept)")
    parser.add_argument("--ray-address", help="join this cluster (default: a local Ray with 2 CPUs)")
    args = parser.parse_args(argv)
    os.environ["SUITE_PLUGIN_MODULES"] = f"{BENCH}=scaling"
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH")) if p)
    sys.path.insert(0, str(HERE))
    import ray

    if args.ray_address:
        ray.init(address=args.ray_address, include_dashboard=False, logging_level=logging.WARNING)
    else:
        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    iterations = iterations_for(args.work_ms)
    with tempfile.TemporaryDirectory(prefix="suite-scaling-") as tmp:
        root = Path(tmp)
        one, two, machine = 0.0, 0.0, 0.0
        for i in range(args.repeats):  # alternated, best of each: the runs least disturbed by other load
            machine = max(machine, machine_ratio(iterations * args.steps * 4))
            one = max(one, throughput(1, args.episodes, args.steps, iterations, root / f"one{i}"))
            two = max(two, throughput(2, args.episodes, args.steps, iterations, root / f"two{i}"))
        figures = {
            "episodes_per_s_1": round(one, 3),
            "episodes_per_s_2": round(two, 3),
            "ratio": round(two / one, 3),
            "ray_step_overhead_ms": round(step_overhead_ms("ray", root / "ray-overhead"), 3),
            "local_step_overhead_ms": round(step_overhead_ms("local", root / "local-overhead"), 3),
            "machine_ratio": round(machine, 3),
        }
    ray.shutdown()
    if args.json:
        print(json.dumps(figures))
        return 0
    work = f"{args.episodes} episodes x {args.steps} steps x {args.work_ms:g} ms of CPU work"
    print(f"workload: {work}")
    print(f"episodes/s, 1 actor:   {figures['episodes_per_s_1']:.2f}")
    print(f"episodes/s, 2 actors:  {figures['episodes_per_s_2']:.2f}")
    print(f"ratio:                 {figures['ratio']:.2f} (target >= {TARGET_RATIO} on 2 cores; two plain processes "
          f"reach {figures['machine_ratio']:.2f} on this machine now)")
    print(f"per-step overhead:     ray {figures['ray_step_overhead_ms']:.2f} ms, "
          f"local {figures['local_step_overhead_ms']:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
