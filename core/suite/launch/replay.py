"""`suite replay`: re-run a run's episodes with the recorded model replies, and compare trajectories."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suite.contract.records import INFRA_OUTCOMES
from suite.engine.host import PluginHost, build_host
from suite.launch.compose import saved_run_config
from suite.launch.folder_trust import from_folder
from suite.store.run_folder import CONFIG_NAME, RunStore, creator_alive

REPLAY_MODEL = "replay"
SCRATCH_PREFIX = "suite-replay-"  # a replay's temporary folder: `suite-replay-<pid>-<random>`
#: what must be equal in every step (`replies`: the text of each model call of the step, see `_replies`)
COMPARED_STEP_FIELDS = ("action", "replies", "feedback", "done", "info")
COMPARED_RECORD_FIELDS = ("outcome", "metrics", "steps", "end_reason")
#: the recorded outcome of an episode whose last model call has no reply to serve back
UNREPLAYABLE = "model_error"


@dataclass
class ReplayResult:
    """How a replay went: episodes reproduced, those that differ (why), and those with nothing to replay to
    their end (they ended in `model_error`: the failed call has no reply; every step before it was reproduced)."""

    identical: int
    total: int
    differences: list[str] = field(default_factory=list)
    not_replayable: list[str] = field(default_factory=list)


def _events(store: RunStore, episode_id: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """An episode's step lines and its end line (None if the trace has none)."""
    events = store.read_trace(episode_id, prompts=False)
    return [e for e in events if e["type"] == "step"], next((e for e in events if e["type"] == "end"), None)


def _compare(old: RunStore, new: RunStore, old_rec: dict[str, Any], new_rec: dict[str, Any] | None) -> str | None:
    """Why the replayed episode differs from the recorded one (None when every step's action, replies, feedback
    and the settlement are equal). A replay that could not run the episode to its end (no recorded reply for a
    call, an infra failure of its own) is a difference, unless the recorded episode ended the same way
    (`model_error`): then its steps are compared, and the failure's text is not."""
    eid = old_rec["episode_id"]
    if new_rec is None:
        return f"{eid}: not finished in the replay"
    cut_short = old_rec["outcome"] == UNREPLAYABLE
    if new_rec["outcome"] in INFRA_OUTCOMES and not (cut_short and new_rec["outcome"] == UNREPLAYABLE):
        return f"{eid}: the replay ended in {new_rec['outcome']}: {new_rec['failure_reason']}"
    for key in COMPARED_RECORD_FIELDS:
        if old_rec[key] != new_rec[key]:
            return f"{eid}: {key} {old_rec[key]!r} != {new_rec[key]!r}"
    (old_steps, old_end), (new_steps, new_end) = _events(old, eid), _events(new, eid)
    if len(old_steps) != len(new_steps):
        return f"{eid}: {len(old_steps)} steps in the recorded trace, {len(new_steps)} in the replay"
    for a, b in zip(old_steps, new_steps, strict=True):
        for key in COMPARED_STEP_FIELDS:
            if _field(a, key) != _field(b, key):
                return f"{eid}: step {a['index']} {key} {_field(a, key)!r} != {_field(b, key)!r}"
    settled = [dict((end or {}).get("settlement") or {}) for end in (old_end, new_end)]
    if cut_short:  # the error's text names the model that failed: not part of the trajectory
        settled = [{k: v for k, v in s.items() if k != "failure_reason"} for s in settled]
    if not settled[0] or settled[0] != settled[1]:
        return f"{eid}: settlement {settled[0] or None!r} != {settled[1] or None!r}"
    return None


def _field(step: dict[str, Any], key: str) -> Any:
    return _replies(step) if key == "replies" else step.get(key)


def _replies(step: dict[str, Any]) -> list[str | None]:
    """The text of each model call of a step: its `calls` (an agent that calls several times), else its reply."""
    calls = step.get("calls")
    if calls:
        return [c.get("reply") for c in calls]
    return [step.get("reply")] if step.get("reply") is not None else []


def _recorded(step: dict[str, Any]) -> Any:
    """A step's reply with its recorded token counts (cached or spent: the size of the call), or None."""
    from suite.models import ScriptedReply

    if step.get("reply") is None:
        return None
    usage = step.get("usage") or {}
    return ScriptedReply(step["reply"], usage.get("prompt_tokens", 0) + usage.get("cached_prompt_tokens", 0),
                         usage.get("completion_tokens", 0) + usage.get("cached_completion_tokens", 0))


def _recordings(steps: list[dict[str, Any]]) -> dict[tuple[int, int], Any]:
    """An episode's recorded replies by (step, call within the step)."""
    out: dict[tuple[int, int], Any] = {}
    for step in steps:
        calls = step.get("calls")
        if calls:  # several calls: their texts (the step's token counts cover them all)
            out.update({(step["index"], j): c.get("reply") for j, c in enumerate(calls)})
        else:
            out[(step["index"], 0)] = _recorded(step)
    return out


def replay_run(root: Path, out: str | None = None) -> ReplayResult:
    """Replay every finished episode of `root` (those that ended in `model_error` before any step: nothing to
    replay, counted apart) and compare each with its recorded trajectory. No model is called (the recorded replies
    are served), and no cluster address is taken from the folder (`suite.launch.folder_trust`)."""
    old = RunStore(root)
    try:
        every = old.records()
        never = [r for r in every if r["outcome"] == UNREPLAYABLE and not r["steps"]]  # the model was never reached
        records = [r for r in every if r not in never]
        host = build_host()
        saved = from_folder(saved_run_config(host, root / CONFIG_NAME, list(old.meta()["benchmarks"])))
        diffs = _differences(old, host, saved, records, out) if records else {}
    finally:
        old.close()
    cut = [r["episode_id"] for r in every if r["outcome"] == UNREPLAYABLE and r["episode_id"] not in diffs]
    return ReplayResult(len(every) - len(diffs) - len(cut), len(every), list(diffs.values()), cut)


def _differences(old: RunStore, host: PluginHost, cfg: Any, records: list[dict[str, Any]], out: str | None
                 ) -> dict[str, str]:
    """Run `records`' episodes again with their recorded replies: why each that differs does (by episode id)."""
    from suite.launch.session import execute_session, start_session
    from suite.models import ModelClient, register_replay

    replies = {r["episode_id"]: _recordings(_events(old, r["episode_id"])[0]) for r in records}
    cfg.run.tasks = ",".join(r["episode_id"] for r in records)
    cfg.run.limit = None
    register_replay(replies, name=REPLAY_MODEL)
    model = ModelClient(f"scripted/{REPLAY_MODEL}", cache=None)  # the recorded replies through litellm, no cache
    _remove_stale_scratch()
    # the replayed run, unless --out keeps it; its name holds this process's id, so a replay killed outright
    # (SIGKILL, OOM) leaves a folder the next replay removes
    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-") as scratch:
        session, tasks = start_session(host, cfg, out or str(Path(scratch) / "run"), model=model)
        try:
            if execute_session(session, tasks) == "interrupted":  # Ctrl-C or SIGTERM: no comparison of a part
                raise KeyboardInterrupt
            new_records = {r["episode_id"]: r for r in session.store.records()}
            return {r["episode_id"]: d for r in records
                    if (d := _compare(old, session.store, r, new_records.get(r["episode_id"])))}
        finally:
            session.store.close()


def _remove_stale_scratch() -> None:
    """Remove the temporary folders of replays whose process is gone (killed before it could clean up)."""
    for stale in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*"):
        if stale.is_dir() and not creator_alive(stale):
            shutil.rmtree(stale, ignore_errors=True)
