"""Benchmark of Vigil: environment steps/s at 640x480 with the instance buffer, oracle episodes/s, pack build time.

Targets (issue 13): >= 30 steps/s on one core, pack build < 600 s on 2 cores. `steps_per_s` is a full step as a
model agent gets it (the action, the evaluator, a 640x480 render with segmentation, the PNG of the frame);
`episodes_per_s` runs the oracle through the shared loop on two episodes of each family; `pack_build_s` builds the
whole pack into a temporary folder with 2 worker processes (`--skip-pack` leaves it out). Each rate is given per
wall second and per CPU second of this process (the latter is what one core would give on a machine with no
other load). `--json` prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import tempfile
import time
from pathlib import Path

from suite.engine.host import default_config
from suite.engine.loop import TraceSink, inline, run_episode
from suite_vigil import plugin
from suite_vigil.oracle import OracleAgent
from suite_vigil.packgen.generate import generate
from suite_vigil.parsing import VigilAction

_CYCLE = (VigilAction("navigate", {"mode": "turn_right", "magnitude": 30.0}),
          VigilAction("look", {"direction": "down", "magnitude": 10.0}),
          VigilAction("navigate", {"mode": "turn_left", "magnitude": 30.0}),
          VigilAction("look", {"direction": "up", "magnitude": 10.0}))


class _Host:
    def call(self, hook: str, bench: str, **kwargs: object) -> object:
        return getattr(plugin, hook)(bench, **kwargs)


def _tasks() -> list:
    from omegaconf import OmegaConf

    cfg = OmegaConf.merge(default_config(["vigil"]).vigil, {"data_dir": str(plugin.PACK_DIR)})
    return plugin.load_tasks("vigil", cfg)


def steps_per_s(seconds: float, encode: bool = True) -> tuple[float, float]:
    """Env steps per wall second and per CPU second on one DA episode, frames rendered with segmentation (and
    PNG-encoded)."""
    task = next(t for t in _tasks() if t.category == "DA")
    env = plugin.make_env("vigil", task, None)
    env.max_steps = 10**9
    if not encode:
        env.skip_images()
    env.reset()
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        env.step(_CYCLE[n % len(_CYCLE)])
        n += 1
    return n / (time.perf_counter() - start), n / (time.process_time() - cpu)


def episodes_per_s(per_family: int = 2) -> tuple[float, float]:
    """Oracle episodes per wall second and per CPU second through the shared loop (two per family)."""
    picked, counts = [], {}
    for t in _tasks():
        if counts.get(t.category, 0) < per_family:
            counts[t.category] = counts.get(t.category, 0) + 1
            picked.append(t)
    start, cpu = time.perf_counter(), time.process_time()
    for task in picked:
        result = asyncio.run(run_episode(_Host(), task, OracleAgent(), None, TraceSink(), offload=inline))
        assert result.settlement.outcome == "success", task.id
    return len(picked) / (time.perf_counter() - start), len(picked) / (time.process_time() - cpu)


def pack_build_s(skip: bool) -> tuple[float | None, float | None]:
    """(wall seconds, CPU seconds of the workers) to build the whole pack with 2 workers."""
    if skip:
        return None, None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        generate(Path(tmp) / "pack", workers=2)
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    """Print the figures (or one JSON object with --json)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--skip-pack", action="store_true", help="leave out the pack build (its figures are null)")
    args = ap.parse_args()
    wall, cpu = pack_build_s(args.skip_pack)
    steps, steps_cpu = steps_per_s(args.seconds)
    plain, plain_cpu = steps_per_s(args.seconds, encode=False)
    episodes, episodes_cpu = episodes_per_s()
    figures = {
        "steps_per_s": round(steps, 1), "steps_per_cpu_s": round(steps_cpu, 1),
        "steps_per_s_no_png": round(plain, 1), "steps_per_cpu_s_no_png": round(plain_cpu, 1),
        "episodes_per_s": round(episodes, 2), "episodes_per_cpu_s": round(episodes_cpu, 2),
        "pack_build_s": None if wall is None else round(wall, 1),
        "pack_build_cpu_s": None if cpu is None else round(cpu, 1),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
