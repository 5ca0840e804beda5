"""Benchmark the OmniEAR simulator on the oracle trajectories of the golden traces (or of the generated pack).

Reports simulator steps per second without and with rendering the observation after every step, and
the time to load (read + validate) and set up one task, against the targets (60,000 / 20,000 steps/s,
4 ms). Times are this process's CPU time (`time.process_time`), i.e. one core's work, so other jobs
sharing the machine do not inflate them. Run: `python bench/omniear_sim.py [--json] [--data-dir DIR]
[--traces FILE]`. Where the reference data beside the checkout (../shared/data/omniear) is absent and no
option names other files, it replays our own oracle's trajectories on the generated pack, so a plain clone
measures too (the JSON says which: `episodes_from`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from suite_omniear.conformance import read_traces
from suite_omniear.data import find_attribute_table, load_attribute_table, load_task
from suite_omniear.oracle import OraclePlanner
from suite_omniear.plugin import PACK_DIR
from suite_omniear.sim import OmniSim

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "omniear" / "data" / "eval"
DEFAULT_TRACES = ROOT / ".." / "shared" / "data" / "omniear" / "golden" / "traces.jsonl"
TARGETS = {"steps_per_s_no_render": 60_000, "steps_per_s_render": 20_000, "setup_ms": 4.0}


def _episodes(traces: Path, data_dir: Path) -> list[tuple[object, list[dict[str, str]]]]:
    """(loaded task, oracle command list) for every oracle record."""
    episodes = []
    for record in read_traces(traces):
        if record["kind"] != "oracle":
            continue
        split, _, name = record["task_file"].split("/")
        task = load_task(data_dir, split, name.split("_")[0])
        episodes.append((task, [s["commands"] for s in record["steps"]]))
    return episodes


def _pack_episodes(data_dir: Path, table: object) -> list[tuple[object, list[dict[str, str]]]]:
    """(loaded task, oracle command list) for every task of a data dir, planned by our own oracle."""
    episodes = []
    for task_file in sorted(data_dir.glob("*/task/*_task.json")):
        task = load_task(data_dir, task_file.parent.parent.name, task_file.name.split("_")[0])
        sim, commands = OmniSim.from_eval_task(task, table), []
        planner = OraclePlanner(sim)
        while not sim.episode_over:
            commands.append(planner.next_commands())
            sim.step(commands[-1])
        episodes.append((task, commands))
    return episodes


def steps_per_second(episodes: list, table: object, render: bool, min_seconds: float) -> float:
    """Replay every episode (fresh simulator each) until `min_seconds` of stepping accumulated."""
    steps, elapsed = 0, 0.0
    clock = time.process_time
    while elapsed < min_seconds:
        for task, commands in episodes:
            sim = OmniSim.from_eval_task(task, table)
            if render:
                sim.observation()
            start = clock()
            if render:
                for command in commands:
                    sim.step(command)
                    sim.observation()
            else:
                for command in commands:
                    sim.step(command)
            elapsed += clock() - start
            steps += len(commands)
    return steps / elapsed


def setup_ms(episodes: list, table: object, data_dir: Path, rounds: int) -> float:
    """Mean milliseconds to read and validate one task's files and build its simulator."""
    clock = time.process_time
    start = clock()
    for _ in range(rounds):
        for task, _commands in episodes:
            loaded = load_task(data_dir, task.split, task.number)
            OmniSim.from_eval_task(loaded, table)
    return (clock() - start) * 1000 / (rounds * len(episodes))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table (or one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="OmniEAR eval data dir (default: the shared eval split)")
    parser.add_argument("--traces", type=Path, help="golden traces.jsonl (default: the shared golden traces)")
    parser.add_argument("--seconds", type=float, default=2.0, help="minimum stepping time per measurement")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.traces is None and not DEFAULT_TRACES.is_file():  # a plain clone: our oracle plans the episodes
        args.data_dir = args.data_dir or PACK_DIR
        source = f"our oracle on {args.data_dir}"
    else:
        args.data_dir, args.traces = args.data_dir or DEFAULT_DATA, args.traces or DEFAULT_TRACES
        source = "golden traces"
    for label, path in (("--data-dir", args.data_dir), ("--traces", args.traces)):
        if path is not None and not path.exists():
            print(f"error: {label} {path} does not exist (pass {label})", file=sys.stderr)
            return 2
    table = load_attribute_table(find_attribute_table(args.data_dir))
    if args.traces is None:
        episodes = _pack_episodes(args.data_dir, table)
    else:
        episodes = _episodes(args.traces, args.data_dir)
    result: dict[str, object] = {
        "steps_per_s_no_render": round(steps_per_second(episodes, table, False, args.seconds)),
        "steps_per_s_render": round(steps_per_second(episodes, table, True, args.seconds)),
        "setup_ms": round(setup_ms(episodes, table, args.data_dir, rounds=3), 3),
    }
    if args.json:
        print(json.dumps({**result, "episodes_from": source}))
        return 0
    print(f"episodes from: {source} ({len(episodes)})")
    for key, value in result.items():
        target = TARGETS[key]
        ok = value <= target if key == "setup_ms" else value >= target
        print(
            f"{key:<24} {value:>12}   target {'<=' if key == 'setup_ms' else '>='} {target}   "
            f"{'ok' if ok else 'MISSED'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
