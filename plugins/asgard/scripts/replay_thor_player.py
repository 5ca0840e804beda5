"""Replay every pack plan's household oracle actions through ai2thor's real Controller and the household player.

    python plugins/asgard/scripts/replay_thor_player.py [--only PREFIX ...] [--json]

A slow check, run by hand (the equivalence test `plugins/asgard/tests/test_thor_player.py` covers a sample of
it): for each AsgardBench pack task, the oracle runs on `env.backend=household`, then its actions are replayed as
the agent on `env.backend=ai2thor` with `suite-household-player` as AI2-THOR's player, and every step's action,
feedback, done and info and the settlement are compared. Prints one line per task (`same`, or the first step that
differs) and the count; exits 1 when any task differs. Needs the `thor` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite.contract.records import Task
from suite.engine.host import default_config
from suite_asgard.plugin import PACK_DIR, load_tasks
from suite_asgard.scene_setup import build_scene
from suite_household.testing import oracle_episode, use_household_player


def _config() -> Any:
    cfg = default_config(["asgard"]).asgard
    return OmegaConf.merge(cfg, {"data_dir": str(PACK_DIR), "image_size": 64, "condition": "text_only"})


def _on_the_player(task: Task, folder: Path, patch: pytest.MonkeyPatch) -> Task:
    plan = task.data["plan"]
    scene = build_scene(plan, list(task.data["inventory"]))
    use_household_player(patch, folder, [scene])
    here = replace(plan, pose=replace(plan.pose, x=scene.agent.x, z=scene.agent.z))
    return Task(task.benchmark, task.id, {**task.data, "plan": here}, task.category, task.max_steps, task.meta)


def compare(task: Task, cfg: Any, folder: Path) -> dict[str, Any]:
    """The household oracle's episode on the task against its actions replayed through the player."""
    household = oracle_episode("asgard", task, cfg)
    with pytest.MonkeyPatch.context() as patch:
        thor_task = _on_the_player(task, folder, patch)
        ai2thor = oracle_episode("asgard", thor_task, OmegaConf.merge(cfg, {"env": {"backend": "ai2thor"}}),
                                 household["actions"], lambda env: env.skip_images())
    first = next((i for i, (h, t) in enumerate(zip(household["steps"], ai2thor["steps"], strict=False)) if h != t),
                 None)
    if first is None and len(household["steps"]) != len(ai2thor["steps"]):
        first = min(len(household["steps"]), len(ai2thor["steps"]))
    row: dict[str, Any] = {"task": task.id, "steps": len(household["steps"]), "first_difference": first,
                           "error": ai2thor["error"], "outcome": household["settlement"]["outcome"],
                           "same": first is None and ai2thor["error"] is None
                           and ai2thor["settlement"] == household["settlement"]}
    if first is not None:
        for name, run in (("household", household), ("ai2thor", ai2thor)):
            step = run["steps"][first] if first < len(run["steps"]) else None
            row[name] = None if step is None else {"action": step["info"].get("action"),
                                                    "feedback": step["feedback"]}
    return row


def main() -> int:
    """Replay the selected pack tasks; 0 when every one gives the same steps and settlement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="task id prefixes to replay (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per task")
    args = parser.parse_args()
    cfg = _config()
    chosen = [t for t in load_tasks("asgard", cfg) if not args.only or any(t.id.startswith(p) for p in args.only)]
    same = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k, task in enumerate(chosen):
            row = compare(task, cfg, Path(tmp) / str(k))
            same += row["same"]
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                detail = "same" if row["same"] else (f"differs at step {row['first_difference']}: "
                                                     f"{row.get('household')} vs {row.get('ai2thor')}, "
                                                     f"error {row['error']}")
                print(f"{task.id}: {detail}", flush=True)
    print(f"{same} of {len(chosen)} tasks give the same steps and settlement", flush=True)
    return 0 if same == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
