"""One attempt at an episode on a worker actor, seen from the driver: trace replay and the step watchdog."""

from __future__ import annotations

import asyncio
import contextlib
import math
import pickle
import time
from dataclasses import dataclass

import ray
from ray.exceptions import ActorUnavailableError, ObjectLostError, RayActorError

from suite.contract.records import Settlement, Task, Trajectory
from suite.engine.loop import EpisodeResult
from suite.engine.runner import FileSink
from suite.executors.ray_worker import EpisodeEnd, Event
from suite.store.traces import NODE_LOST

#: What ends an attempt without an episode result: the actor (or its node) died, or its object was lost.
ACTOR_FAULTS = (RayActorError, ObjectLostError)
MIN_POLL_S = 0.05


@dataclass
class Attempt:
    """How an attempt ended: `finished` (with its result), `budget` (left unfinished) or `failed` (with why;
    `unreachable` when the connection to the actor broke rather than its process being reported dead, as when
    its whole node goes away)."""

    kind: str
    result: EpisodeResult | None = None
    retire: bool = False
    reason: str = ""
    unreachable: bool = False


class TraceReplay:
    """Writes a worker's events into the driver's trace file as they arrive, and rebuilds the trajectory."""

    def __init__(self, task: Task, sink: FileSink) -> None:
        self.task = task
        self.sink = sink
        self.trajectory = Trajectory(task=task)

    def apply(self, event: Event) -> Attempt | None:
        """Handle one event; returns the attempt's end once the episode ended."""
        kind = event[0]
        if kind == "start":
            self.trajectory.initial = event[1]
            self.sink.start(self.task, event[1])
        elif kind == "step":
            self.trajectory.steps.append(event[1])
            self.sink.step(event[1], event[2])
        elif kind == "warning":
            self.trajectory.warnings.append(event[1])
            self.sink.warn(event[1])
        elif kind == "end":
            end: EpisodeEnd = event[1]
            self.trajectory.end_reason, self.trajectory.error = end.end_reason, end.error
            result = EpisodeResult(self.trajectory, end.settlement, end.duration_s)
            self.sink.end(result)
            return Attempt("finished", result, retire=end.abandoned)
        elif kind == "budget":
            self.sink.writer.close()
            return Attempt("budget")
        else:
            self.sink.writer.close()
            raise event[1]
        return None

    def fail(self, reason: str, duration_s: float) -> EpisodeResult:
        """End the trace as `env_error` (after the last retry), keeping the steps the last attempt made."""
        self.trajectory.end_reason, self.trajectory.error = "env_error", reason
        result = EpisodeResult(self.trajectory, Settlement("env_error", failure_reason=reason), duration_s)
        self.sink.end(result)
        return result

    def abandon(self, lost_node: str | None = None) -> None:
        """Close the partial trace of a failed attempt (the retry starts the file afresh); `lost_node`: the attempt
        was cut off because its node left the cluster, which the trace then says (its spend is paid again)."""
        if lost_node is not None:
            self.sink.writer.write({"type": "cut_off", "cause": NODE_LOST, "node": lost_node})
        self.sink.writer.close()


class Watchdog:
    """Kills a worker whose simulator call has been running for longer than `timeout_s`."""

    def __init__(self, actor: ray.actor.ActorHandle, timeout_s: float | None) -> None:
        self.actor = actor
        self.timeout_s = timeout_s
        self.reason = ""
        self._task = asyncio.create_task(self._watch()) if timeout_s else None

    async def _watch(self) -> None:
        limit = float(self.timeout_s or 0)
        wait = limit
        while True:
            await asyncio.sleep(max(wait, MIN_POLL_S))
            try:
                busy: float = await asyncio.wait_for(self.actor.busy_s.remote(), limit)
            except TimeoutError:
                busy = math.inf  # the worker does not even answer: treat it as hung
            except ACTOR_FAULTS:
                return
            if busy is not None and busy >= limit:
                self.reason = f"a simulator call hung for more than {limit:g} s; the watchdog killed its actor"
                ray.kill(self.actor)
                return
            wait = limit - (busy or 0.0)

    async def stop(self) -> None:
        """Stop watching."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


async def run_attempt(actor: ray.actor.ActorHandle, task: Task, replay: TraceReplay,
                      step_timeout_s: float | None) -> Attempt:
    """Run `task` on `actor`, replaying its events as they stream in; a dead or hung actor fails the attempt."""
    started = time.monotonic()
    watchdog = Watchdog(actor, step_timeout_s)
    try:
        async for ref in actor.run.remote(task):
            for blob in await ref:
                attempt = replay.apply(pickle.loads(blob))
                if attempt is not None:
                    return attempt
        raise RuntimeError(f"the worker's event stream for {task.key} ended without the episode's end")
    except ACTOR_FAULTS as exc:
        lines = str(exc).strip().splitlines() or [type(exc).__name__]
        reason = watchdog.reason or f"its Ray actor died after {time.monotonic() - started:.1f} s ({lines[0]})"
        return Attempt("failed", reason=reason, unreachable=isinstance(exc, ActorUnavailableError))
    finally:
        await watchdog.stop()
