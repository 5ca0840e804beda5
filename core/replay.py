"""`suite replay`: re-run a run's episodes with the recorded model replies, and compare trajectories."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from suite import config as configmod
from suite.plugins import build_host
from suite.records import INFRA_OUTCOMES
from suite.store import CONFIG_NAME, RunStore

REPLAY_MODEL = "replay"
COMPARED_STEP_FIELDS = ("action", "reply", "feedback", "done", "info")
COMPARED_RECORD_FIELDS = ("outcome", "metrics", "steps", "end_reason")


def _events(store: RunStore, episode_id: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """An episode's step lines and its end line (None if the trace has none)."""
    events = store.read_trace(episode_id, prompts=False)
    return [e for e in events if e["type"] == "step"], next((e for e in events if e["type"] == "end"), None)


def _compare(old: RunStore, new: RunStore, old_rec: dict[str, Any], new_rec: dict[str, Any] | None) -> str | None:
    """Why the replayed episode differs from the recorded one (None when every step's action, reply, feedback and
    the settlement are equal). A replay that could not run the episode to its end (no recorded reply for a call,
    an infra failure of its own) is a difference, whatever the recorded episode's outcome was."""
    eid = old_rec["episode_id"]
    if new_rec is None:
        return f"{eid}: not finished in the replay"
    if new_rec["outcome"] in INFRA_OUTCOMES:
        return f"{eid}: the replay ended in {new_rec['outcome']}: {new_rec['failure_reason']}"
    for key in COMPARED_RECORD_FIELDS:
        if old_rec[key] != new_rec[key]:
            return f"{eid}: {key} {old_rec[key]!r} != {new_rec[key]!r}"
    (old_steps, old_end), (new_steps, new_end) = _events(old, eid), _events(new, eid)
    if len(old_steps) != len(new_steps):
        return f"{eid}: {len(old_steps)} steps in the recorded trace, {len(new_steps)} in the replay"
    for a, b in zip(old_steps, new_steps, strict=True):
        for key in COMPARED_STEP_FIELDS:
            if a.get(key) != b.get(key):
                return f"{eid}: step {a['index']} {key} {a.get(key)!r} != {b.get(key)!r}"
    settled = [(end or {}).get("settlement") for end in (old_end, new_end)]
    if settled[0] is None or settled[0] != settled[1]:
        return f"{eid}: settlement {settled[0]!r} != {settled[1]!r}"
    return None


def _recorded(step: dict[str, Any]) -> Any:
    """A step's reply with its recorded token counts (cached or spent: the size of the call), or None."""
    from suite.models import ScriptedReply

    if step.get("reply") is None:
        return None
    usage = step.get("usage") or {}
    return ScriptedReply(step["reply"], usage.get("prompt_tokens", 0) + usage.get("cached_prompt_tokens", 0),
                         usage.get("completion_tokens", 0) + usage.get("cached_completion_tokens", 0))


def replay_run(root: Path, out: str | None = None) -> tuple[int, int, list[str]]:
    """Replay every finished episode of `root`; returns (identical, total, differences)."""
    from suite.commands import execute_session, start_session
    from suite.models import ModelClient, register_replay

    old = RunStore(root)
    cfg = configmod.load_saved(root / CONFIG_NAME)
    records = old.records()
    replies = {r["episode_id"]: [_recorded(s) for s in _events(old, r["episode_id"])[0]] for r in records}
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
