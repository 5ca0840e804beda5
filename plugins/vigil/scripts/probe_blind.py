"""Probe the pack with blind policies beyond the declared baselines (other click points, walk lengths, walk-then-turn
searches, fixed SV labels): B per family over the first N episodes of each family.

`python plugins/vigil/scripts/probe_blind.py [--per-family 40] [--json]`. None of these policies reads the image;
the pack generator does not reject against them, so they show how far the pack's rules alone keep blind play at
chance.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from omegaconf import OmegaConf
from suite import config as configmod
from suite_vigil import baselines
from suite_vigil.plugin import PACK_DIR, load_tasks


def click_at(x: int, y: int) -> Callable[[str, int, int], dict[str, Any]]:
    """PG: ground pixel (x, y), then report success."""
    def policy(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
        if step:
            return {"skill_name": "report", "arguments": {"status": "success", "summary": "done"}}
        return {"skill_name": "interact_pixel", "arguments": {"intent": "ground", "x": x, "y": y}}
    return policy


def walk(steps: int, magnitude: int = 1) -> Callable[[str, int, int], dict[str, Any]]:
    """DA: `steps` forward moves of `magnitude`, then report success."""
    def policy(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
        if step < min(steps, max_steps - 1):
            return {"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": magnitude}}
        return {"skill_name": "report", "arguments": {"status": "success", "summary": "done"}}
    return policy


def walk_then_spin(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """VS: two metres forward, then turn 45 degrees at a time, then report success."""
    if step >= max_steps - 1:
        return {"skill_name": "report", "arguments": {"status": "success", "summary": "done"}}
    if step == 0:
        return {"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": 8}}
    return {"skill_name": "navigate", "arguments": {"mode": "turn_right", "magnitude": 45}}


def label(first: bool) -> Callable[[str, int, int], dict[str, Any]]:
    """SV: report the first (on/open) or the second (off/closed) label of the question at once."""
    def policy(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
        on = " on or off" in instruction.lower()
        status = ("on" if first else "off") if on else ("open" if first else "closed")
        return {"skill_name": "report", "arguments": {"status": status, "summary": "guess"}}
    return policy


PROBES: dict[str, tuple[str, Callable]] = {
    **{f"click_{x}_{y}": ("PG", click_at(x, y)) for x in (160, 320, 480) for y in (120, 240, 360)},
    **{f"walk_{k}x{m}": ("DA", walk(k, m)) for k, m in ((4, 1), (6, 1), (8, 1), (11, 1), (4, 2), (5, 3))},
    "walk_then_spin": ("VS", walk_then_spin),
    "label_on_open": ("SV", label(True)),
    "label_off_closed": ("SV", label(False)),
    "combined_AI": ("AI", baselines.combined),
    "combined_SI": ("SI", baselines.combined),
    "combined_SM": ("SM", baselines.combined),
    "combined_CR": ("CR", baselines.combined),
}


def main(argv: list[str] | None = None) -> int:
    """Print B (percent) of every probe on its family's first N episodes."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-family", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--data-dir", default=str(PACK_DIR))
    args = ap.parse_args(argv)
    by: dict[str, list] = {}
    cfg = OmegaConf.merge(configmod.defaults(["vigil"]).vigil, {"data_dir": args.data_dir})
    for t in load_tasks("vigil", cfg):
        by.setdefault(t.category, []).append(t)
    out = {}
    for name, (family, policy) in PROBES.items():
        sample = by[family][: args.per_family]
        wins = sum(bool(baselines.play(t, policy)[0].metrics["B"]) for t in sample)
        out[name] = {"family": family, "n": len(sample), "B": round(100.0 * wins / len(sample), 1)}
        if not args.json:
            print(f"{name:18s} {family}  B {out[name]['B']:5.1f} %  (n={len(sample)})", flush=True)
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
