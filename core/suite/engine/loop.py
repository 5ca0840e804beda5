"""The one episode loop shared by every benchmark, agent and executor."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from suite.contract.errors import BudgetExceeded, ModelError
from suite.contract.records import (
    INFRA_OUTCOMES,
    OUTCOMES,
    Observation,
    Settlement,
    StepRecord,
    StepResult,
    Task,
    Trajectory,
    message_texts,
    prompt_hash,
)
from suite.engine.agents import Agent
from suite.engine.outcomes import STALLED, stalled_outcome
from suite.engine.stall import StallRule, StallWatch

#: Where a blocking call (simulator step, settle) runs: `offload(fn, *args, **kwargs)` returns an awaitable of
#: its result; the local executor uses a worker thread (`asyncio.to_thread`), or `inline` for a benchmark that
#: declares `inline_env`; the Ray executor a timed worker thread.
Offload = Callable[..., Awaitable[Any]]


async def inline(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """The `offload` of a benchmark that declares `inline_env`: the call runs right here, on the event loop."""
    return fn(*args, **kwargs)


class EpisodeTimeout(Exception):
    """The episode ran past its wall-clock limit (`busy`: a simulator call it gave up on may still be running)."""

    def __init__(self, busy: bool = False) -> None:
        super().__init__()
        self.busy = busy


@dataclass
class EpisodeResult:
    """A finished episode: its trajectory and its settlement (outcome already adjusted for infra ends)."""

    trajectory: Trajectory
    settlement: Settlement
    duration_s: float


class TraceSink:
    """Receives an episode's events as they happen (the local executor writes them to the trace file)."""

    def start(self, task: Task, observation: Observation) -> None:
        """The episode was reset."""

    def step(self, record: StepRecord, observation: Observation) -> None:
        """A step finished."""

    def warn(self, message: str) -> None:
        """Something the user should know while the episode runs (already in the trajectory's `warnings`)."""

    def end(self, result: EpisodeResult) -> None:
        """The episode was settled."""


#: Media parts of a chat message and the field of each that holds the (often base64) data.
MEDIA_FIELDS = {"image_url": "url", "video_url": "url", "file": "file_data"}


def _strip_media(part: dict[str, Any]) -> dict[str, Any]:
    kind = str(part.get("type"))
    field = MEDIA_FIELDS.get(kind)
    body = part.get(kind) if field else None
    if field is None or not isinstance(body, dict):
        return part
    return {"type": kind, kind: {field: str(body.get(field, ""))[:32] + "..."}}


def _strip_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The prompt as stored in a trace: image, video and file data replaced by a short marker."""
    out = []
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, list):
            msg = {**msg, "content": [_strip_media(part) for part in content]}
        out.append(msg)
    return out


def _stored_texts(prompt: Any, stored: Any, texts: list[str] | None) -> list[str | None] | None:
    """The canonical texts of the messages stored as they were sent (a message whose media was cut: None)."""
    if texts is None or stored is None:
        return None
    return [text if kept is sent else None for text, kept, sent in zip(texts, stored, prompt, strict=True)]


def _blocking(offload: Offload, fn: Callable[..., Any], *args: Any, deadline: float | None,
              **kwargs: Any) -> Awaitable[Any]:
    """A simulator call off the event loop, within the episode's deadline."""
    return _within(offload(fn, *args, **kwargs), deadline, busy=True)


def _within(call: Awaitable[Any], deadline: float | None, busy: bool = False) -> Awaitable[Any]:
    """`call`, or (with a deadline) `call` raising EpisodeTimeout at the deadline (a coroutine is cancelled; a thread
    runs on). Without one, `call` itself: no coroutine around every agent turn and simulator call."""
    return call if deadline is None else _before(call, deadline, busy)


async def _before(call: Awaitable[Any], deadline: float, busy: bool) -> Any:
    """Await `call`, or raise EpisodeTimeout at `deadline`."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        if asyncio.iscoroutine(call):
            call.close()
        raise EpisodeTimeout
    try:
        async with asyncio.timeout(remaining):  # in this task: no task or extra loop round per call, as wait_for has
            return await call
    except TimeoutError:
        raise EpisodeTimeout(busy) from None


async def run_episode(
    host: Any,
    task: Task,
    agent: Agent,
    config: Any,
    sink: TraceSink,
    timeout_s: float | None = None,
    offload: Offload = asyncio.to_thread,
    stall: StallRule | None = None,
) -> EpisodeResult:
    """Run one episode to its end and settle it; infra failures end it with their own reason, and `stall` (when
    given) warns about, or ends as `stalled`, an episode that repeats the same failed action.

    `BudgetExceeded` propagates: the episode is left unfinished so that `--resume` can run it later.
    """
    started = time.monotonic()
    deadline = started + timeout_s if timeout_s else None
    bench = task.benchmark
    traj = Trajectory(task=task)
    watch = StallWatch(stall, task.key) if stall else None
    env = None
    try:
        env = await _blocking(offload, host.call, "make_env", bench, task=task, config=config, deadline=deadline)
        obs = await _blocking(offload, env.reset, deadline=deadline)
        traj.initial = obs
        sink.start(task, obs)
        await _within(agent.begin(task, env), deadline)
        limit = task.max_steps or 10**9
        traj.end_reason = "max_steps"
        while len(traj.steps) < limit:
            t0 = time.monotonic()
            turn = await _within(agent.act(task, obs, traj.steps), deadline)
            t1 = time.monotonic()
            if turn.action.ok:
                result: StepResult = await _blocking(offload, env.step, turn.action.value, deadline=deadline)
            else:
                result = StepResult(observation=obs, feedback=f"parse failure: {turn.action.parse_error}", failed=True)
            t2 = time.monotonic()
            prompt, texts = turn.prompt, message_texts(turn.prompt) if turn.prompt else None
            stored = _strip_images(prompt) if prompt else None
            record = StepRecord(
                index=len(traj.steps),
                action=turn.action,
                reply=turn.reply,
                prompt_hash=prompt_hash(prompt, texts) if prompt else None,
                prompt=stored,
                feedback=result.feedback,
                done=result.done,
                info=result.info,
                usage=turn.usage,
                agent_s=t1 - t0,
                env_s=t2 - t1,
                note=turn.note,
                calls=turn.calls,
                prompt_texts=_stored_texts(prompt, stored, texts),
            )
            traj.steps.append(record)
            obs = result.observation
            sink.step(record, obs)
            if result.done:
                traj.end_reason = "done"
                break
            if watch is not None and _stalled(watch, record, result.failed, traj, sink):
                break
            if deadline is not None and time.monotonic() > deadline:
                raise EpisodeTimeout
    except BudgetExceeded:
        if env is not None:
            _close_later(env)
        raise
    except ModelError as exc:
        traj.end_reason, traj.error = "model_error", str(exc)
    except EpisodeTimeout as exc:
        traj.end_reason, traj.error = "timeout", f"episode exceeded {timeout_s} s"
        if exc.busy:  # the simulator call runs on in its thread: its state can be neither settled nor closed
            env = None
    except Exception as exc:  # a simulator or plugin fault is an env_error, never an agent failure
        traj.end_reason, traj.error = "env_error", f"{type(exc).__name__}: {exc}"
    except BaseException:  # cancelled (Ctrl-C): unfinished, but its simulator is released
        if env is not None:
            _close_later(env)
        raise
    settlement = await _settle(host, task, traj, env, offload)
    if env is not None:
        try:
            await offload(env.close)
        except Exception:  # noqa: BLE001 - closing must not lose the finished episode
            pass
    episode = EpisodeResult(traj, settlement, time.monotonic() - started)
    sink.end(episode)
    return episode


def _stalled(watch: StallWatch, record: StepRecord, failed: bool, traj: Trajectory, sink: TraceSink) -> bool:
    """Count a step that did not end the episode against the stall rule: warn once, and end a stalled episode."""
    warning = watch.observe(record, failed)
    if warning:
        traj.warnings.append(warning)
        sink.warn(warning)
    if watch.stalled:
        traj.end_reason, traj.error = STALLED, watch.reason
    return watch.stalled


async def _settle(host: Any, task: Task, traj: Trajectory, env: Any, offload: Offload) -> Settlement:
    if env is None:
        return Settlement(outcome=traj.end_reason, failure_reason=traj.error)
    try:
        settlement = await offload(
            host.call, "settle", task.benchmark, task=task, trajectory=traj, env=env
        )
    except Exception as exc:  # noqa: BLE001
        return Settlement(outcome="env_error", failure_reason=f"settle failed: {type(exc).__name__}: {exc}")
    problem = settlement_problem(settlement)
    if problem:
        return Settlement(outcome="env_error", failure_reason=f"settle returned an invalid settlement: {problem}")
    if traj.end_reason in INFRA_OUTCOMES and settlement.outcome != "success":
        settlement.outcome = traj.end_reason
        settlement.failure_reason = traj.error
    elif traj.end_reason == STALLED and settlement.outcome != "success":
        settlement.outcome = stalled_outcome(settlement.outcome)
        settlement.failure_reason = "; ".join(r for r in (traj.error, settlement.failure_reason) if r)
    notes = [s.note for s in traj.steps if s.note]
    if notes and settlement.outcome != "success":
        settlement.failure_reason = f"{settlement.failure_reason}; agent: {notes[-1]}"
    return settlement


def settlement_problem(settlement: Any) -> str | None:
    """Why a plugin's `settle` result cannot be stored (None when it can)."""
    if not isinstance(settlement, Settlement):
        return f"{type(settlement).__name__}, not a suite.contract.records.Settlement"
    if settlement.outcome not in OUTCOMES:
        return f"outcome {settlement.outcome!r} is not one of {', '.join(OUTCOMES)}"
    for name in ("failure_reason", "category"):
        if not isinstance(getattr(settlement, name), str | None):
            return f"{name} is {type(getattr(settlement, name)).__name__}, not text"
    if not isinstance(settlement.metrics, dict) or not all(isinstance(k, str) for k in settlement.metrics):
        return "metrics is not a dict with text keys"
    try:
        json.dumps(settlement.metrics, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"metrics are not JSON: {exc}"
    return None


def _close_later(env: Any) -> None:
    """Release a simulator from a worker thread without waiting (the episode is being abandoned)."""

    def close() -> None:
        try:
            env.close()
        except Exception:  # noqa: BLE001, S110 - best effort: the episode is unfinished either way
            pass

    threading.Thread(target=close, name="suite-close-env", daemon=True).start()
