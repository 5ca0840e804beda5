"""Reply parsing time: every benchmark's `parse_action` on 1 MB replies of each pathological shape.

Run: `python bench/parse_replies.py [--json] [--runs 3] [--size 1000000]`.

Each shape of `suite.testing.replies.SHAPES` (the repeated units that made a backtracking regular expression or a
retry-every-brace JSON scan quadratic: `-\\n`, `\\n{`, `{`, unclosed fences and strings, ...) is repeated to
`--size` characters and parsed by every installed benchmark's `parse_action` through the plugin host, `--runs`
times; the median is kept. `worst_s` is the slowest shape of each benchmark, `ratio` that shape's time at full size
over its time at a quarter of the size (4 for a linear parser, 16 for a quadratic one). Target: every 1 MB reply
under 0.5 s (issue 20). Figures vary with the machine's other jobs: read `load_avg_1m` with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any

from suite.engine.host import build_host
from suite.testing.conformance import plugin_tasks
from suite.testing.replies import SHAPES

TARGET_S = 0.5


def _median_s(host: Any, bench: str, task: Any, reply: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        host.call("parse_action", bench, task=task, reply=reply)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(size: int, runs: int) -> dict[str, Any]:
    """Per benchmark: its slowest shape, that shape's time and its size ratio; and the worst over all."""
    host = build_host()
    out: dict[str, Any] = {}
    for plugin in sorted({spec.plugin for spec in host.registry.benchmarks.values()}):
        tasks, _ = plugin_tasks(host, plugin, [])
        for bench, items in tasks.items():
            timed = {unit: _median_s(host, bench, items[0], unit * (size // len(unit)), runs) for unit in SHAPES}
            unit, worst = max(timed.items(), key=lambda kv: kv[1])
            quarter = _median_s(host, bench, items[0], unit * (size // 4 // len(unit)), runs)
            out[bench] = {"worst_shape": unit, "worst_s": round(worst, 4),
                          "ratio": round(worst / quarter, 2) if quarter > 0 else None}
    worst = max(v["worst_s"] for v in out.values())
    return {"size": size, "runs": runs, "benchmarks": out, "worst_s": worst, "target_s": TARGET_S,
            "within_target": worst < TARGET_S, "load_avg_1m": round(os.getloadavg()[0], 2)}


def main() -> None:
    """Print the figures (one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=3, help="runs of each reply (the median is kept)")
    parser.add_argument("--size", type=int, default=1_000_000, help="characters of each reply")
    args = parser.parse_args()
    figures = measure(args.size, args.runs)
    if args.json:
        print(json.dumps(figures))
        return
    for bench, row in figures["benchmarks"].items():
        print(f"{bench:10} worst {row['worst_s']:.3f} s on {row['worst_shape']!r} (x{row['ratio']} from a quarter)")
    print(f"worst {figures['worst_s']:.3f} s per {figures['size']:,} characters (target < {TARGET_S} s; "
          f"load {figures['load_avg_1m']})")


if __name__ == "__main__":
    main()
