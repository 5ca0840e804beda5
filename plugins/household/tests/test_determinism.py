"""Same seed and same actions give the same metadata and the same frame bytes, in this and another process."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from suite_household.controller import Controller
from suite_household.generator import generate_house

ACTIONS = [
    {"action": "RotateRight", "degrees": 30},
    {"action": "MoveAhead"},
    {"action": "LookDown"},
    {"action": "MoveLeft", "moveMagnitude": 0.5},
    {"action": "RotateLeft"},
    {"action": "Crouch"},
    {"action": "PickupObject", "x": 0.5, "y": 0.6},
    {"action": "Stand"},
    {"action": "MoveBack"},
]


def trace(seed: int) -> str:
    """Hash of every step's metadata and frame bytes for a fixed action list."""
    ctl = Controller(
        scene=generate_house(seed, ["Kitchen", "LivingRoom"]),
        width=160,
        height=120,
        renderDepthImage=True,
        renderInstanceSegmentation=True,
    )
    digest = hashlib.sha256()
    for args in ACTIONS:
        ev = ctl.step(**args)
        digest.update(json.dumps(ev.metadata, sort_keys=True).encode())
        digest.update(
            ev.frame.tobytes() + ev.depth_frame.tobytes() + ev.instance_segmentation_frame.tobytes()
        )
    return digest.hexdigest()


def test_same_seed_same_bytes_across_processes() -> None:
    here = trace(11)
    assert trace(11) == here
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            "from test_determinism import trace; print(trace(11))")
    other = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    )
    assert other.stdout.strip() == here


def test_different_seeds_differ() -> None:
    assert trace(11) != trace(12)
