"""The latency-bound case on Ray: episodes that mostly wait on a slow model, Ray against the local executor.

Run: `python bench/ray_latency.py [--json] [--episodes 40] [--concurrency 16] [--latency-s 0.5] [--steps 8]
[--cpus 2] [--one-per-actor]`.

The workload is the `wait` benchmark defined below: a text simulator whose steps take microseconds (`inline_env`),
and the `direct` agent asks `scripted/wait`, which answers after a fixed `--latency-s` (an asyncio sleep, through
the real model client; no response cache), for every action; a pure function (`any_process`), so its calls go to
the local run's model-call workers and to each Ray node's model-call actor, as a real provider's do. Both
executors run the same episodes in the same process, one after the other, each timed from the start of its run to
its end (the Ray run's actor start-up included; `ray.init` of a private local Ray with `--cpus` CPUs before
either). On Ray the benchmark gets the
resources the `omniear` plugin declares for its text simulator (`ray.resources.wait`), so the figure is that of the
default for text simulators; `--one-per-actor` also times the declaration issue 23 measured (`{"num_cpus": 1}`,
one episode per actor). Target: `ratio` (ray_s / local_s) close to 1.
This file is also the plugin module the actors load (SUITE_PLUGIN_MODULES=wait=ray_latency).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from step_counter import build_prompt, load_tasks, make_env, parse_action, settle  # noqa: F401 - the plugin's hooks
from suite.contract.hookspecs import hookimpl
from suite.contract.registry import BenchmarkSpec, Metric
from suite.engine.host import default_config
from suite.models import register_script

HERE = Path(__file__).resolve().parent
BENCH = "wait"
#: What the issue measured before: one episode per actor, a CPU each.
ONE_PER_ACTOR = {"num_cpus": 1}


@hookimpl
def register(registry: Any) -> None:
    """Declare the `wait` benchmark and the `scripted/wait` model (its latency from SUITE_BENCH_LATENCY_S)."""
    latency_s = float(os.environ.get("SUITE_BENCH_LATENCY_S", 0.5))
    register_script(BENCH, lambda messages: "ACTION: go", latency_s=latency_s, any_process=True)
    registry.add_benchmark(BenchmarkSpec(BENCH, "steps that wait on the model, for the latency benchmark",
                                         [Metric("success", "SR")], inline_env=True))


def text_simulator_resources() -> dict[str, float]:
    """What the omniear plugin declares for one of its text simulators on Ray."""
    from suite.engine.host import build_host

    return dict(build_host().benchmark("omniear").resources)


def timed_run(executor: str, concurrency: int, tasks: list[dict[str, Any]], out: Path,
              resources: dict[str, float] | None = None) -> float:
    """Run `tasks` with `executor` (on Ray with `resources` per simulator); the seconds the run took."""
    from omegaconf import OmegaConf
    from suite.engine.host import build_host
    from suite.launch.session import execute, start_session
    from suite.models.event_loops import run_to_completion

    host = build_host()
    cfg = default_config(sorted(host.registry.benchmarks))
    settings = {"run.plugins": [BENCH], "run.model": f"scripted/{BENCH}", "run.agent": "direct",
                "run.executor": executor, "run.concurrency": concurrency, "model.cache": False, "wait.tasks": tasks,
                "ray.resources": {BENCH: resources or {}}}
    for key, value in settings.items():
        OmegaConf.update(cfg, key, value, force_add=True)
    session, planned = start_session(host, cfg, str(out))
    start = time.perf_counter()
    assert run_to_completion(execute(session, planned)) == "complete"  # as `suite run` runs it
    took = time.perf_counter() - start
    session.store.close()
    return took


def main(argv: list[str] | None = None) -> int:
    """Measure and print the figures (one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-s", type=float, default=0.5, help="the model's fixed latency per call")
    parser.add_argument("--steps", type=int, default=8, help="model calls per episode")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the private local Ray")
    parser.add_argument("--one-per-actor", action="store_true",
                        help=f"also time the Ray run with {ONE_PER_ACTOR} (one episode per actor), as issue 23 did")
    args = parser.parse_args(argv)
    os.environ["SUITE_PLUGIN_MODULES"] = f"{BENCH}=ray_latency"
    os.environ["SUITE_BENCH_LATENCY_S"] = str(args.latency_s)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH")) if p)
    sys.path.insert(0, str(HERE))
    import ray

    ray.init(num_cpus=args.cpus, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    tasks = [{"id": f"e{i}", "steps": args.steps} for i in range(args.episodes)]
    resources = text_simulator_resources()
    try:
        with tempfile.TemporaryDirectory(prefix="suite-latency-") as tmp:
            root = Path(tmp)
            local_s = timed_run("local", args.concurrency, tasks, root / "local")
            ray_s = timed_run("ray", args.concurrency, tasks, root / "ray", resources)
            before = timed_run("ray", args.concurrency, tasks, root / "one", ONE_PER_ACTOR) \
                if args.one_per_actor else None
    finally:
        ray.shutdown()
    ideal = -(-args.episodes // args.concurrency) * args.steps * args.latency_s
    figures = {"local_s": round(local_s, 2), "ray_s": round(ray_s, 2), "ratio": round(ray_s / local_s, 3),
               "ideal_s": round(ideal, 2), "ray_resources": resources, "episodes": args.episodes,
               "concurrency": args.concurrency, "latency_s": args.latency_s, "steps": args.steps, "cpus": args.cpus,
               "load_avg_1m": round(os.getloadavg()[0], 1),
               **({"ray_one_per_actor_s": round(before, 2)} if before is not None else {})}
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"workload: {args.episodes} episodes x {args.steps} model calls of {args.latency_s:g} s, concurrency "
          f"{args.concurrency}, Ray with {args.cpus} CPUs (ideal {ideal:.1f} s)")
    print(f"local:  {local_s:.2f} s")
    print(f"ray:    {ray_s:.2f} s with {resources} per actor (ratio {ray_s / local_s:.2f})")
    if before is not None:
        print(f"ray:    {before:.2f} s with {ONE_PER_ACTOR} per actor, one episode each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
