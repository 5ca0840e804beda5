"""Benchmark of the embedded household simulator: actions/s, frames/s and memory per instance.

Targets (issues): >= 5,000 actions/s on one core, >= 3,000 actions/s with AI2-THOR metadata read every step
(`actions_per_s_with_metadata`, beside `actions_per_s_metadata_rebuilt`: the same steps building every object's
entry from nothing, as before the metadata cache, measured in the same run), >= 100 fps at 320x240, >= 30 fps at
640x480, < 50 MB each. `--json` prints one JSON object with the same figures.
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc

from suite_household.controller import Controller
from suite_household.generator import generate_room
from suite_household.metadata import MetadataCache

_CYCLE = ("MoveAhead", "RotateRight", "MoveBack", "RotateLeft", "LookDown", "LookUp", "MoveLeft", "MoveRight")


def actions_per_s(seconds: float, read_metadata: bool, rebuild: bool = False) -> float:
    """Steps per second with rendering off; optionally building the full metadata of every step (with `rebuild`,
    every object's entry from nothing instead of from the controller's cache)."""
    ctl = Controller(scene=generate_room("Kitchen", 1), width=320, height=240, renderImage=False)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for name in _CYCLE:
            if rebuild:
                ctl.entries = MetadataCache()
            ev = ctl.step(action=name)
            if read_metadata:
                ev.metadata  # noqa: B018 - build it
            n += 1
    return n / (time.perf_counter() - start)


def fps(width: int, height: int, seconds: float) -> float:
    """Rendered steps per second (RGB, depth and instance segmentation) at a resolution."""
    ctl = Controller(
        scene=generate_room("Kitchen", 1),
        width=width,
        height=height,
        renderDepthImage=True,
        renderInstanceSegmentation=True,
    )
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        ctl.step(action=_CYCLE[n % 2 * 2 + 1] if n % 4 else "RotateRight", degrees=30)
        n += 1
    return n / (time.perf_counter() - start)


def memory_mb() -> float:
    """Python heap held by one simulator instance after a rendered 320x240 step (tracemalloc)."""
    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    ctl = Controller(
        scene=generate_room("Kitchen", 1),
        width=320,
        height=240,
        renderDepthImage=True,
        renderInstanceSegmentation=True,
    )
    ctl.step(action="RotateRight")
    ctl.last_event.metadata  # noqa: B018 - include it
    used = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(base, "filename"))
    tracemalloc.stop()
    return used / 2**20


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    figures = {
        "actions_per_s": round(actions_per_s(args.seconds, False), 1),
        "actions_per_s_with_metadata": round(actions_per_s(args.seconds, True), 1),
        "actions_per_s_metadata_rebuilt": round(actions_per_s(args.seconds, True, rebuild=True), 1),
        "fps_320x240": round(fps(320, 240, args.seconds), 1),
        "fps_640x480": round(fps(640, 480, args.seconds), 1),
        "memory_mb": round(memory_mb(), 2),
    }
    figures["metadata_cache_speedup"] = round(
        figures["actions_per_s_with_metadata"] / figures["actions_per_s_metadata_rebuilt"], 2
    )
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"{key:28s} {value}")


if __name__ == "__main__":
    main()
