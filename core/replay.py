"""`suite replay`: re-run a run's episodes with the recorded model replies, and compare trajectories."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from suite import config as configmod
from suite.plugins import build_host
from suite.store import CONFIG_NAME, RunStore

REPLAY_MODEL = "replay"
COMPARED_STEP_FIELDS = ("action", "reply", "feedback", "done", "info")


def _steps(store: RunStore, episode_id: str) -> list[dict[str, Any]]:
    return [e for e in store.read_trace(episode_id, prompts=False) if e.get("type") == "step"]


def _compare(old: RunStore, new: RunStore, old_rec: dict[str, Any], new_rec: dict[str, Any] | None) -> str | None:
    eid = old_rec["episode_id"]
    if new_rec is None:
        return f"{eid}: not finished in the replay"
    for key in ("outcome", "metrics", "steps", "end_reason"):
        if old_rec[key] != new_rec[key]:
            return f"{eid}: {key} {old_rec[key]!r} != {new_rec[key]!r}"
    for a, b in zip(_steps(old, eid), _steps(new, eid), strict=True):
        for key in COMPARED_STEP_FIELDS:
            if a.get(key) != b.get(key):
                return f"{eid}: step {a['index']} {key} {a.get(key)!r} != {b.get(key)!r}"
    return None


def replay_run(root: Path, out: str | None = None) -> tuple[int, int, list[str]]:
    """Replay every finished episode of `root`; returns (identical, total, differences)."""
    from suite.commands import execute_session, start_session
    from suite.models import ModelClient, register_replay

    old = RunStore(root)
    cfg = configmod.load_saved(root / CONFIG_NAME)
    records = old.records()
    replies = {r["episode_id"]: [s.get("reply") for s in _steps(old, r["episode_id"])] for r in records}
    cfg.run.tasks = ",".join(r["episode_id"] for r in records) or "-"
    cfg.run.limit = None
    register_replay(replies, name=REPLAY_MODEL)
    model = ModelClient(f"scripted/{REPLAY_MODEL}", cache=None)  # the recorded replies through litellm, no cache
    with tempfile.TemporaryDirectory(prefix="suite-replay-") as scratch:  # the replayed run, unless --out keeps it
        session, tasks = start_session(build_host(), cfg, out or str(Path(scratch) / "run"), model=model)
        execute_session(session, tasks)
        new_records = {r["episode_id"]: r for r in session.store.records()}
        diffs = [d for r in records if (d := _compare(old, session.store, r, new_records.get(r["episode_id"])))]
        session.store.close()
    old.close()
    return len(records) - len(diffs), len(records), diffs
