"""The Ray executor: each simulator is an actor; the driver writes every trace and record to the run store."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import ray
from omegaconf import OmegaConf
from suite.errors import SuiteError
from suite.executors.ray_attempt import ACTOR_FAULTS, TraceReplay, run_attempt
from suite.executors.ray_cluster import Pool, connected, plan
from suite.executors.ray_models import clients, detach, start_services, travelling_scripts
from suite.executors.ray_worker import EpisodeWorker, WorkerPayload
from suite.records import Task
from suite.runner import FileSink

if TYPE_CHECKING:
    from suite.runner import RunSession


class RayExecutor:
    """Same episodes and records as the local executor, spread over Ray actors with declared resources."""

    async def run(self, session: RunSession, tasks: list[Task]) -> str:
        """Run every task on worker actors; returns `complete`, or `stopped` when the cost budget ran out."""
        cfg = session.cfg
        with connected(cfg.ray.get("address")):
            pools = plan(session.host, cfg, tasks)
            services = start_services(cfg) if clients(session.model) else None
            payload = WorkerPayload(OmegaConf.to_container(cfg, resolve=True), detach(session.model), services,
                                    travelling_scripts(session.model))
            fleet = Fleet(session, ray.put(payload))
            try:
                await fleet.run(pools)
            finally:
                if services is not None:
                    ray.kill(services)
        return "stopped" if fleet.stopped else "complete"


class Fleet:
    """`run.concurrency` slots, each with one worker actor at a time, taking episodes until none are left.

    A slot keeps its actor for the next episode of the same pool and moves to another pool (with a new actor)
    when its own is empty; a dead or hung actor is replaced by a fresh one and the episode retried.
    """

    def __init__(self, session: RunSession, payload: Any) -> None:
        self.session = session
        self.payload = payload
        self.concurrency = max(1, int(session.cfg.run.concurrency))
        self.max_retries = max(0, int(session.cfg.ray.max_retries))
        self.step_timeout_s = session.cfg.ray.get("step_timeout_s")
        self.stopped = False

    def note(self, message: str) -> None:
        """A line above the progress display."""
        if self.session.progress:
            self.session.progress.note(f"ray: {message}")

    async def run(self, pools: list[Pool]) -> None:
        """Drain every pool; the first error stops every slot and is raised."""
        slots = min(self.concurrency, sum(len(p.tasks) for p in pools), sum(p.capacity for p in pools))
        total = ray.cluster_resources()
        self.note(f"{slots} simulator actor(s) at once on a cluster with {total.get('CPU', 0):g} CPU, "
                  f"{total.get('GPU', 0):g} GPU")
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(slots):
                    group.create_task(self.slot(pools))
        except BaseExceptionGroup as errors:
            raise errors.exceptions[0] from None

    @staticmethod
    def choose(pools: list[Pool], current: Pool | None) -> Pool | None:
        """The pool a slot serves next: its own while it has episodes, else one with room for another actor."""
        if current is not None and current.tasks:
            return current
        return max((p for p in pools if p.tasks and p.bound < p.capacity), key=lambda p: len(p.tasks), default=None)

    async def spawn(self, pool: Pool) -> Any:
        """A fresh worker actor for `pool`, once it has started."""
        actor = EpisodeWorker.options(**pool.options).remote(self.payload)
        try:
            error = await actor.ready.remote()
        except ACTOR_FAULTS as exc:
            raise SuiteError(f"a Ray worker actor could not start: {str(exc).strip().splitlines()[0]}") from None
        if error is not None:
            ray.kill(actor)
            raise error
        return actor

    async def slot(self, pools: list[Pool]) -> None:
        """Take episodes, one at a time, until no pool has any left for this slot or the budget stopped the run."""
        actor, pool = None, None
        try:
            while not self.stopped and (choice := self.choose(pools, pool)) is not None:
                if choice is not pool:
                    if actor is not None:
                        ray.kill(actor)
                        actor = None
                    if pool is not None:
                        pool.bound -= 1
                    pool, choice.bound = choice, choice.bound + 1
                if actor is None:
                    actor = await self.spawn(pool)
                if pool.tasks and not self.stopped:
                    actor = await self.episode(pool, actor, pool.tasks.popleft())
        finally:
            if actor is not None:
                ray.kill(actor)
            if pool is not None:
                pool.bound -= 1

    async def episode(self, pool: Pool, actor: Any, task: Task) -> Any:
        """Run one episode to its record, retrying on fresh actors; returns the actor to reuse, or None."""
        session, store = self.session, self.session.store
        started, failures, replay = time.monotonic(), 0, None
        session.in_flight.add(task.key)
        try:
            while True:
                if actor is None:
                    actor = await self.spawn(pool)
                store.mark_running(task.key)
                replay = TraceReplay(task, FileSink(store.open_trace(task.key)))
                attempt = await run_attempt(actor, task, replay, self.step_timeout_s)
                if attempt.kind == "finished":
                    session.complete(task, attempt.result)
                    self.stopped = self.stopped or session.stop_cause is not None
                    if attempt.retire:  # a simulator call it gave up on still runs there
                        ray.kill(actor)
                        return None
                    return actor
                if attempt.kind == "budget":
                    store.mark_pending([task.key])
                    self.stopped = True
                    return actor
                ray.kill(actor)
                actor, failures = None, failures + 1
                if failures > self.max_retries:
                    session.complete(task, replay.fail(f"{attempt.reason}; gave up after {failures} attempt(s)",
                                                       time.monotonic() - started))
                    return None
                replay.abandon()
                self.note(f"{task.key}: {attempt.reason}; retrying on a fresh actor ({failures}/{self.max_retries})")
        except asyncio.CancelledError:  # unfinished: `--resume` runs it again
            if replay is not None:
                replay.abandon()
            store.mark_pending([task.key])
            raise
        finally:
            session.in_flight.discard(task.key)
