"""Benchmark of LongAct: environment steps per second (bare and rendered), the checklist's cost per step, and
the time `suite validate --plugins longact` takes for the whole pack.

Targets (issue 14): >= 2,000 steps/s without rendering, >= 50 steps/s with RGB, depth and segmentation at the
benchmark's resolution (300 x 300), validate under 15 minutes on 2 cores. The steps replayed are the oracle's
solution of pack episodes (long stretches of 0.05 m moves and 30-degree turns, with interactions between).
Step rates are per CPU second of the benchmark's process (one core), validate_s is wall time.
`--json` prints one JSON object with the keys env_steps_per_s, env_steps_per_s_rendered, checklist_us_per_step,
validate_s (null unless --validate).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from typing import Any

from omegaconf import OmegaConf
from suite.engine.host import default_config
from suite.engine.loop import TraceSink, run_episode
from suite_longact.env import LongActEnv, make_env_from_data
from suite_longact.oracle import OracleAgent
from suite_longact.plugin import PACK_DIR, load_tasks


def config(**overrides: Any) -> Any:
    """The longact config section over the shipped pack."""
    return OmegaConf.merge(default_config(["longact"]).longact, {"data_dir": str(PACK_DIR), **overrides})


class _Actions(TraceSink):
    def __init__(self) -> None:
        self.actions: list[dict[str, Any]] = []

    def step(self, record: Any, observation: Any) -> None:
        self.actions.append(record.action.value)


class _Host:
    def __init__(self, env: LongActEnv) -> None:
        self.env = env

    def call(self, hook: str, bench: str, **kw: Any) -> Any:
        from suite_longact.scoring import settle

        return self.env if hook == "make_env" else settle(kw["task"], kw["trajectory"], kw["env"], {})


def oracle_actions(task: Any) -> list[dict[str, Any]]:
    """The oracle's raw actions for a task."""
    sink = _Actions()
    asyncio.run(run_episode(_Host(make_env_from_data(task, config())), task, OracleAgent(), {}, sink))
    return sink.actions


def replay(task: Any, actions: list[dict[str, Any]], rendered: bool) -> tuple[float, float]:
    """(steps per CPU second, checklist CPU microseconds per step) replaying the actions on a fresh env.

    CPU time of this process, so the figure holds on a machine shared with other work (one core's throughput)."""
    env = make_env_from_data(task, config(image_size=300) if rendered else config())
    env.reset()
    if not rendered:
        env.skip_observations()
    spent = [0.0]
    inner = env.checklist.after_step

    def timed(*args: Any) -> None:
        t = time.process_time()
        inner(*args)
        spent[0] += time.process_time() - t

    env.checklist.after_step = timed  # type: ignore[method-assign]
    start = time.process_time()
    for a in actions:
        env.step(a)
    elapsed = time.process_time() - start
    return len(actions) / elapsed, spent[0] / len(actions) * 1e6


def validate_seconds() -> float:
    """Wall time of `suite validate --plugins longact` (all 300 episodes)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "suite.cli.main", "validate", "--plugins", "longact"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"suite validate failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    print(proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "", file=sys.stderr)
    return time.perf_counter() - start


def main() -> None:
    """Print the figures (or one JSON object with --json)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--episodes", type=int, default=3, help="pack episodes to replay")
    ap.add_argument("--validate", action="store_true", help="also time suite validate over the whole pack")
    args = ap.parse_args()
    tasks = load_tasks("longact", config())[: args.episodes]
    bare, rendered, checklist = [], [], []
    for task in tasks:
        actions = oracle_actions(task)
        rate, us = replay(task, actions, rendered=False)
        bare.append(rate)
        checklist.append(us)
        rendered.append(replay(task, actions[:300], rendered=True)[0])
    out = {
        "env_steps_per_s": round(sum(bare) / len(bare)),
        "env_steps_per_s_rendered": round(sum(rendered) / len(rendered), 1),
        "checklist_us_per_step": round(sum(checklist) / len(checklist), 2),
        "validate_s": round(validate_seconds(), 1) if args.validate else None,
    }
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:28s} {value}")


if __name__ == "__main__":
    main()
