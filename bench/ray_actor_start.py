"""Cold start of a Ray worker actor: CPU seconds and memory until it can run an episode.

Run: `python bench/ray_actor_start.py [--json] [--actors N] [--plugins NAMES]`.

Starts a private local Ray, then `--actors` `EpisodeWorker`s one after another with a real run payload (the
resolved default config, a `scripted/…` model client); for each, once `ready()` answers, reads from /proc the
CPU time its process has used (user + system) and its resident memory. Ray's own pre-started idle workers are
reused when there are some, so the CPU figure is what starting *our* actor adds on top of a Python process with
Ray imported. Then each worker makes its first model call the way a run's workers do, through its node's
`NodeModelCalls` actor (started once per node by the driver), and the figures are read again (`first_call_*`; the
node actor's own figures are `node_calls_*`, paid once per node). Last, the worker loads litellm itself
(`with_litellm_*`): what a worker pays when its calls are made in it (`model.call_workers=0`, or a model answered
only in its process). `import_cpu_s` is what the imports behind each part cost in a fresh plain process here (the
import profile of a worker's start). Targets (issue 23): <= 1 CPU-second and <= 200 MB per worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import ray
from omegaconf import OmegaConf
from suite.engine.host import default_config
from suite.executors.ray_cluster import actor_options
from suite.executors.ray_models import NodeModelCalls, detach
from suite.executors.ray_worker import EpisodeWorker, WorkerPayload
from suite.models import CostLedger, ModelClient, RateLimiter, register_script
from suite.models.litellm_setup import load_litellm

TARGET_CPU_S, TARGET_MB = 1.0, 200


def usage(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) and resident MB of process `pid`."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmRSS:")) / 1024
    return cpu, rss


def echo(messages: list[dict[str, Any]]) -> str:
    """The bench's model: a pure function, so its calls may be made by the node's model-call actor."""
    return "echo"


def first_call(worker: Any) -> str:
    """In a worker actor: one model call through its client (a limiter and ledger of its own: no services here)."""
    client = worker.model
    client.limiter, client.ledger = RateLimiter(), CostLedger()
    return asyncio.run(client.complete([{"role": "user", "content": "hi"}])).text


def measure(actors: int) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Start `actors` workers one at a time; each one's CPU seconds and MB once ready, after its first model call
    through the node's model-call actor, and with litellm loaded in it; and the node actor's figures."""
    cfg = default_config([])
    script = register_script("echo", echo, any_process=True)
    payload = ray.put(WorkerPayload(OmegaConf.to_container(cfg, resolve=True),
                                    detach(ModelClient("scripted/echo")), None, [script]))
    node_calls = NodeModelCalls.remote([script])
    out = []
    for _ in range(actors):
        actor = EpisodeWorker.options(**actor_options({"num_cpus": 0.1})).remote(payload)
        error, where = ray.get(actor.ready.remote())
        if error is not None:
            raise error
        pid = ray.get(actor.__ray_call__.remote(lambda self: os.getpid()))
        cpu, mb = usage(pid)
        ray.get(actor.use_node_calls.remote(node_calls))
        if ray.get(actor.__ray_call__.remote(first_call)) != "echo":
            raise RuntimeError("the first call did not answer")
        if ray.get(actor.__ray_call__.remote(lambda self: "litellm" in sys.modules)):
            raise RuntimeError("the worker loaded litellm for its first call")
        cpu_call, mb_call = usage(pid)
        ray.get(actor.__ray_call__.remote(lambda self: load_litellm() and None))
        cpu_llm, mb_llm = usage(pid)
        out.append({"cpu_s": round(cpu, 3), "rss_mb": round(mb, 1), "first_call_cpu_s": round(cpu_call, 3),
                    "first_call_rss_mb": round(mb_call, 1), "with_litellm_cpu_s": round(cpu_llm, 3),
                    "with_litellm_rss_mb": round(mb_llm, 1)})
        ray.kill(actor)
    node_cpu, node_mb = usage(ray.get(node_calls.__ray_call__.remote(lambda self: os.getpid())))
    ray.kill(node_calls)
    return out, {"node_calls_cpu_s": round(node_cpu, 3), "node_calls_rss_mb": round(node_mb, 1)}


#: What a worker imports, in the order it does: Ray itself, the suite and every plugin (`build_host`), litellm.
IMPORTS = {"ray": "import ray",
           "suite_and_plugins": "import ray; from suite.engine.host import build_host; build_host()",
           "litellm": "import ray; from suite.engine.host import build_host; build_host(); "
                      "from suite.models.litellm_setup import load_litellm; load_litellm()"}


def import_profile() -> dict[str, float]:
    """CPU seconds each part of a worker's imports adds, in a fresh plain process (each part on top of the last)."""
    totals = {}
    for name, code in IMPORTS.items():
        probe = f"{code}; import resource; r = resource.getrusage(resource.RUSAGE_SELF); print(r.ru_utime + r.ru_stime)"
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        totals[name] = float(done.stdout.split()[-1])
    base = subprocess.run([sys.executable, "-c", "import resource; r = resource.getrusage(resource.RUSAGE_SELF); "
                                                 "print(r.ru_utime + r.ru_stime)"], capture_output=True, text=True)
    previous, out = float(base.stdout.split()[-1]), {"python": round(float(base.stdout.split()[-1]), 3)}
    for name, total in totals.items():
        out[name] = round(total - previous, 3)
        previous = total
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the figures (or JSON with `--json`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--actors", type=int, default=3)
    args = parser.parse_args(argv)
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    try:
        runs, node = measure(args.actors)
    finally:
        ray.shutdown()
    cpu, mb = statistics.median(r["cpu_s"] for r in runs), statistics.median(r["rss_mb"] for r in runs)
    cpu_call = statistics.median(r["first_call_cpu_s"] for r in runs)
    mb_call = statistics.median(r["first_call_rss_mb"] for r in runs)
    cpu_llm = statistics.median(r["with_litellm_cpu_s"] for r in runs)
    mb_llm = statistics.median(r["with_litellm_rss_mb"] for r in runs)
    profile = import_profile()
    result = {"actor_cold_start_cpu_s": cpu, "actor_rss_mb": mb, "first_call_cpu_s": cpu_call,
              "first_call_rss_mb": mb_call, **node,
              "meets_targets_first_call": cpu_call <= TARGET_CPU_S and mb_call <= TARGET_MB,
              "with_litellm_cpu_s": cpu_llm,
              "with_litellm_rss_mb": mb_llm, "import_cpu_s": profile,
              "targets": {"cpu_s": TARGET_CPU_S, "mb": TARGET_MB},
              "meets_targets": cpu <= TARGET_CPU_S and mb <= TARGET_MB,
              "meets_targets_with_litellm": cpu_llm <= TARGET_CPU_S and mb_llm <= TARGET_MB,
              "load_avg_1m": os.getloadavg()[0], "runs": runs}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"worker actor cold start: {cpu:.2f} CPU-s, {mb:.0f} MB resident (median of {len(runs)}; targets "
              f"<= {TARGET_CPU_S} CPU-s, <= {TARGET_MB} MB)")
        print(f"after its first model call, made by the node's model-call actor: {cpu_call:.2f} CPU-s, "
              f"{mb_call:.0f} MB (that actor, once per node: {node['node_calls_cpu_s']:.2f} CPU-s, "
              f"{node['node_calls_rss_mb']:.0f} MB)")
        print(f"with litellm loaded in the worker (model.call_workers=0): {cpu_llm:.2f} CPU-s, {mb_llm:.0f} MB")
        print("imports, CPU-s each on top of the last: " + ", ".join(f"{k} {v:.2f}" for k, v in profile.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
