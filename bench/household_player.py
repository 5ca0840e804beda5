"""Benchmark of `suite-household-player`: steps/s through ai2thor 5.0.0's real Controller and the player, beside
the same steps on the embedded controller in process (metadata read every step on both), in the same run.

Two cases: metadata only (`renderImage=False`) and 320x240 frames with depth and instance segmentation. Needs the
thor extra (`pip install -e ".[thor]"`). `--json` prints one JSON object with the same figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from suite_household.controller import Controller
from suite_household.generator import generate_room
from suite_household.scene_io import save_scene
from suite_household.testing import player_executable

_CYCLE = ("MoveAhead", "RotateRight", "MoveBack", "RotateLeft", "LookDown", "LookUp", "MoveLeft", "MoveRight")
WIDTH, HEIGHT = 320, 240


def _rate(ctl: object, seconds: float, render: bool) -> float:
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for name in _CYCLE:
            ev = ctl.step(action=name, renderImage=render)
            ev.metadata["objects"]  # noqa: B018 - read the metadata, as the backends do
            n += 1
    return n / (time.perf_counter() - start)


def in_process(seconds: float, render: bool) -> float:
    """Steps/s on the embedded controller."""
    ctl = Controller(scene=generate_room("Kitchen", 1), width=WIDTH, height=HEIGHT, renderDepthImage=render,
                     renderInstanceSegmentation=render)
    return _rate(ctl, seconds, render)


def through_player(seconds: float, render: bool) -> float:
    """Steps/s through ai2thor's Controller and the player (a FloorPlan1 of the same kitchen)."""
    from ai2thor.controller import Controller as ThorController

    with tempfile.TemporaryDirectory() as folder:
        save_scene(generate_room("Kitchen", 1, name="FloorPlan1"), Path(folder) / "FloorPlan1.json")
        ctl = ThorController(local_executable_path=f"{player_executable()} --scenes {folder}", x_display=":0",
                             scene="FloorPlan1", width=WIDTH, height=HEIGHT, renderDepthImage=render,
                             renderInstanceSegmentation=render)
        try:
            return _rate(ctl, seconds, render)
        finally:
            ctl.stop()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print figures (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        import ai2thor.controller  # noqa: F401
    except ImportError:
        print("bench/household_player.py needs the thor extra: pip install -e '.[thor]'", file=sys.stderr)
        return 2
    figures = {
        "steps_per_s_in_process_metadata": in_process(args.seconds, False),
        "steps_per_s_player_metadata": through_player(args.seconds, False),
        f"steps_per_s_in_process_frames_{WIDTH}x{HEIGHT}": in_process(args.seconds, True),
        f"steps_per_s_player_frames_{WIDTH}x{HEIGHT}": through_player(args.seconds, True),
    }
    figures = {k: round(v, 1) for k, v in figures.items()}
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:42s} {value:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
