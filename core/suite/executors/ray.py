"""The Ray executor: each simulator is an actor; the driver writes every trace and record to the run store."""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from suite.contract.config import plain
from suite.contract.records import Task
from suite.executors.ray_attempt import ACTOR_FAULTS, TraceReplay, run_attempt
from suite.executors.ray_cluster import Pool, Worker, capacity, connected, forwarded_env, live_nodes, plan
from suite.executors.ray_models import (
    NodeModelCalls,
    calls_anywhere,
    clients,
    close_services,
    detach,
    start_services,
    travelling_scripts,
)
from suite.executors.ray_worker import EpisodeWorker, WorkerPayload

if TYPE_CHECKING:
    from suite.engine.runner import RunSession

#: How often a waiting slot looks again for room, and how stale the driver's view of the cluster may be.
WAIT_S = 0.5
#: How long an attempt whose actor became unreachable waits to learn whether its node died (Ray's health checks
#: declare a node dead after about 15 s).
NODE_GRACE_S = 45.0


class RayExecutor:
    """Same episodes and records as the local executor, spread over Ray actors with declared resources."""

    async def run(self, session: RunSession, tasks: list[Task]) -> str:
        """Run every task on worker actors; returns `complete`, or `stopped` when the cost budget ran out or
        episodes no node could host were left pending."""
        cfg = session.cfg
        joined = connected(cfg.ray.get("address"), cfg.ray.get("node_ip_address"))
        with joined, tempfile.TemporaryDirectory(prefix="suite-ray-") as state:
            pools = plan(session.host, cfg, tasks)
            services = None
            if clients(session.model):
                services = start_services(cfg, Path(state) / "ledger.pkl", f"suite-model-services-{uuid.uuid4().hex}")
            scripts = travelling_scripts(session.model)
            payload = WorkerPayload(plain(cfg), detach(session.model), services, scripts)
            node_calls = NodeCallers(scripts) if wants_node_calls(cfg, session.model) else None
            if node_calls is not None:
                node_calls.prestart()
            fleet = Fleet(session, ray.put(payload), pools, node_calls)
            try:
                await fleet.run()
            finally:
                if node_calls is not None:
                    node_calls.close()
                if services is not None:
                    await close_services(services)
                    ray.kill(services)
        if fleet.left_pending and session.stop_cause is None:
            session.stop_cause = (f"{len(fleet.left_pending)} episode(s) were left pending: no node of the cluster "
                                  "offered their resources (ray.unplaceable_timeout_s); `suite run --resume` runs them")
        return "stopped" if fleet.stopped or fleet.left_pending else "complete"


def wants_node_calls(cfg: Any, model: Any) -> bool:
    """Whether the run's worker actors send their model calls to a `NodeModelCalls` actor per node: some client may
    call from any process, and `model.call_workers` is not 0."""
    return cfg.model.get("call_workers", "auto") != 0 and calls_anywhere(model)


class NodeCallers:
    """The run's `NodeModelCalls` actors, one per node where a worker actor started, owned by the driver."""

    def __init__(self, scripts: list[Any]) -> None:
        self.scripts = scripts
        self.actors: dict[str, Any] = {}

    def on(self, node_id: str) -> Any:
        """The model-call actor of node `node_id`, started (pinned there) on first use."""
        if node_id not in self.actors:
            here = NodeAffinitySchedulingStrategy(node_id, soft=False)
            self.actors[node_id] = NodeModelCalls.options(  # type: ignore[attr-defined]  # a Ray ActorClass
                scheduling_strategy=here, runtime_env={"env_vars": forwarded_env()}).remote(self.scripts)
        return self.actors[node_id]

    def prestart(self) -> None:
        """Start the driver's node's actor now, loading litellm while the first worker actors start, when that node
        can host workers (it has CPUs)."""
        here = ray.get_runtime_context().get_node_id()
        if live_nodes().get(here, {}).get("CPU", 0) > 0:
            self.on(here)

    def close(self) -> None:
        """End every one (their calls are over: every episode has ended)."""
        for actor in self.actors.values():
            ray.kill(actor)
        self.actors.clear()


class Fleet:
    """`run.concurrency` slots, each running one episode at a time on a worker actor, until none are left.

    A pool's actors each run up to `per_actor` episodes at once: a slot takes an actor with room (the fullest, so a
    pool's episodes fill few actors) and starts a new one only when every one started or starting is full and
    more fit the live nodes. A slot keeps its actor for the next episode of the same pool and moves to another
    pool when its own is empty or has lost its room; an actor no slot uses any more passes to a pool needing the
    same resources, or is ended. A dead or hung actor is replaced by a fresh one and its episodes retried. How many
    actors a pool may have follows the live nodes of the cluster: an episode whose node left runs again elsewhere
    without counting as a failure, and episodes that no live node can host wait, with a message, up to
    `ray.unplaceable_timeout_s`, then are left pending for `--resume`.
    """

    def __init__(self, session: RunSession, payload: Any, pools: list[Pool],
                 node_calls: NodeCallers | None = None) -> None:
        ray_cfg = session.cfg.ray
        self.session = session
        self.payload = payload
        self.node_calls = node_calls
        self.pools = pools
        self.concurrency = max(1, int(session.cfg.run.concurrency))
        self.max_retries = max(0, int(ray_cfg.max_retries))
        self.step_timeout_s = ray_cfg.get("step_timeout_s")
        self.start_timeout_s = float(ray_cfg.get("actor_start_timeout_s") or 300)
        self.unplaceable_timeout_s = float(ray_cfg.get("unplaceable_timeout_s", 900))
        self.stopped = False
        self.left_pending: list[str] = []
        self.nodes: dict[str, dict[str, float]] = {}
        self._seen_at = -WAIT_S
        self._waiting_since: dict[int, float] = {}

    def note(self, message: str) -> None:
        """A line above the progress display."""
        if self.session.progress:
            self.session.progress.note(f"ray: {message}")

    async def run(self) -> None:
        """Drain every pool; the first error stops every slot and is raised."""
        slots = min(self.concurrency, sum(len(p.tasks) for p in self.pools))
        total = ray.cluster_resources()
        self.note(f"up to {slots} simulator actor(s) at once on a cluster with {total.get('CPU', 0):g} CPU, "
                  f"{total.get('GPU', 0):g} GPU")
        self.look(force=True)
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(slots):
                    group.create_task(self.slot())
        except BaseExceptionGroup as errors:
            raise errors.exceptions[0] from None
        finally:
            for pool in self.pools:  # handed to a pool whose episodes another slot took
                for worker in pool.workers:
                    ray.kill(worker.actor)
                pool.workers.clear()

    def look(self, force: bool = False) -> None:
        """Bring each pool's capacity up to date with the live nodes (at most every WAIT_S unless forced)."""
        now = time.monotonic()
        if not force and now - self._seen_at < WAIT_S:
            return
        self._seen_at, self.nodes = now, live_nodes()
        for pool in self.pools:
            pool.capacity = capacity(pool.resources, list(self.nodes.values()))
            pool.wake()
            if pool.capacity or not pool.tasks:
                if self._waiting_since.pop(id(pool), None) is not None and pool.tasks:
                    self.note(f"a node for {self.benchmarks(pool)} joined; its episodes run again")
                continue
            since = self._waiting_since.setdefault(id(pool), now)
            if since == now:
                self.note(f"{len(pool.tasks)} episode(s) of {self.benchmarks(pool)} wait: no live node offers "
                          f"{pool.resources}; they are left pending for --resume after "
                          f"{self.unplaceable_timeout_s:g} s (ray.unplaceable_timeout_s) unless such a node joins")
            elif now - since >= self.unplaceable_timeout_s:
                keys, names = [t.key for t in pool.tasks], self.benchmarks(pool)
                pool.tasks.clear()
                self.session.store.mark_pending(keys)
                self.left_pending += keys
                self.note(f"left {len(keys)} episode(s) of {names} pending: no node offered {pool.resources} for "
                          f"{self.unplaceable_timeout_s:g} s; `suite run --resume` runs them")

    @staticmethod
    def benchmarks(pool: Pool) -> str:
        """The benchmarks of a pool's waiting episodes."""
        return ", ".join(sorted({t.benchmark for t in pool.tasks})) or "(none)"

    def choose(self, current: Pool | None) -> Pool | None:
        """The pool a slot serves next: its own while it has episodes and room, else one with room for another
        actor (None: wait)."""
        if current is not None and current.tasks and 0 < current.bound <= current.slots:
            return current
        return max((p for p in self.pools if p.tasks and p is not current and p.bound < p.slots),
                   key=lambda p: len(p.tasks), default=None)

    async def spawn(self, pool: Pool) -> Worker | None:
        """A fresh worker actor for `pool`, once it has started; None when it did not start in time or its node
        went away (the caller tries again later). A plugin's error while starting is raised."""
        actor = EpisodeWorker.options(**pool.options).remote(self.payload)  # type: ignore[attr-defined]  # an ActorClass
        try:
            error, where = await asyncio.wait_for(actor.ready.remote(), self.start_timeout_s)
        except asyncio.CancelledError:
            ray.kill(actor)
            raise
        except (TimeoutError, *ACTOR_FAULTS) as exc:
            ray.kill(actor)
            why = f"not started after {self.start_timeout_s:g} s" if isinstance(exc, TimeoutError) else \
                (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            self.note(f"a worker actor for {self.benchmarks(pool)} did not start ({why}); trying again")
            self.look(force=True)
            return None
        if error is not None:
            ray.kill(actor)
            raise error
        if self.node_calls is not None:  # one round trip: the actor's model calls go to its node's caller
            try:
                await actor.use_node_calls.remote(self.node_calls.on(where["node_id"]))
            except ACTOR_FAULTS:
                ray.kill(actor)
                return None
        return Worker(actor, where, pool, pool.per_actor)

    async def lease(self, pool: Pool) -> Worker | None:
        """A worker of `pool` with room for one more episode (counted in its load): a started one with room, else
        one being started that has room left, else a fresh actor while more of the pool's fit the live nodes; None
        when none has room and none is starting, or a start failed (the caller tries again later). A plugin's error
        while starting is raised."""
        while True:
            live = [w for w in pool.workers if not w.retired]
            roomy = [w for w in live if w.load < w.room]
            if roomy:  # the fullest first: a pool's episodes fill few actors (each start costs seconds of CPU)
                worker = max(roomy, key=lambda w: w.load)
                worker.load += 1
                return worker
            if pool.starting and pool.claimed < pool.starting * pool.per_actor:
                await self.await_start(pool)
                continue
            if len(live) + pool.starting >= pool.capacity:
                if pool.starting:
                    await self.await_start(pool)
                    continue
                return None
            pool.starting += 1
            pool.claimed += 1
            try:
                spawned = await self.spawn(pool)
            finally:
                pool.starting -= 1
                pool.claimed -= 1
                pool.wake()
            if spawned is not None:
                pool.workers.append(spawned)
                spawned.load = 1
            return spawned

    @staticmethod
    async def await_start(pool: Pool) -> None:
        """Wait, with a claim on its room, until a worker of `pool` being started is up (or something changed)."""
        pool.claimed += 1
        try:
            await pool.changed.wait()
        finally:
            pool.claimed -= 1

    def release(self, worker: Worker, retire: bool = False) -> None:
        """One episode slot stops using `worker` (`retire`: it takes no new episode). An actor nobody uses goes to
        another pool with episodes left whose simulators need the same resources (no new start: the actor loads
        every plugin), else it is ended."""
        pool = worker.pool
        worker.load -= 1
        if retire and not worker.retired:
            worker.retired = True
            pool.workers.remove(worker)
        if worker.load <= 0:
            if worker in pool.workers:
                pool.workers.remove(worker)
            heir = None if worker.retired or pool.tasks else next(
                (p for p in self.pools if p.tasks and p is not pool and p.resources == pool.resources), None)
            if heir is None:
                ray.kill(worker.actor)
            else:
                worker.pool, worker.room = heir, min(worker.room, heir.per_actor)
                heir.workers.append(worker)
                heir.wake()
        pool.wake()

    def remaining(self) -> bool:
        """Whether any pool still has episodes to hand out."""
        return any(p.tasks for p in self.pools)

    async def slot(self) -> None:
        """Take episodes, one at a time, until no pool has any left or the budget stopped the run."""
        worker: Worker | None = None
        pool: Pool | None = None
        try:
            while not self.stopped and self.remaining():
                self.look()
                choice = self.choose(pool)
                if choice is not pool:
                    if worker is not None:
                        self.release(worker)
                        worker = None
                    if pool is not None:
                        pool.bound -= 1
                    pool = choice
                    if pool is not None:
                        pool.bound += 1
                if pool is None:
                    await asyncio.sleep(WAIT_S)
                    continue
                if worker is None and (worker := await self.lease(pool)) is None:
                    await asyncio.sleep(WAIT_S)
                    continue
                if pool.tasks and not self.stopped:
                    held, worker = worker, None  # the episode holds the lease now, and gives back the one to reuse
                    worker = await self.episode(pool, held, pool.tasks.popleft())
        finally:
            if worker is not None:
                self.release(worker)
            if pool is not None:
                pool.bound -= 1

    async def lost(self, worker: Worker, unreachable: bool) -> bool:
        """Whether the worker's node has left the cluster; for an unreachable actor, wait up to NODE_GRACE_S for
        the cluster to say whether its node is gone."""
        deadline = time.monotonic() + (NODE_GRACE_S if unreachable else 0.0)
        while True:
            self.look(force=True)
            if worker.where["node_id"] not in self.nodes:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(WAIT_S)

    async def episode(self, pool: Pool, worker: Worker | None, task: Task) -> Worker | None:
        """Run one episode to its record, retrying on fresh actors; returns the worker to reuse (still leased), or
        None (released).

        An attempt whose node left the cluster does not count as a failure: the episode goes back to its pool
        and runs again from the start wherever there is room. Any error leaves the episode pending."""
        session, store = self.session, self.session.store
        started, failures, replay = time.monotonic(), 0, None
        session.in_flight.add(task.key)
        try:
            while True:
                if worker is None and (worker := await self.lease(pool)) is None:
                    store.mark_pending([task.key])
                    pool.tasks.appendleft(task)
                    return None
                store.mark_running(task.key)
                replay = TraceReplay(task, session.sink(task))
                attempt = await run_attempt(worker.actor, task, replay, self.step_timeout_s)
                if attempt.kind == "finished" and attempt.result is not None:
                    session.complete(task, attempt.result, worker.where)
                    self.stopped = self.stopped or session.stop_cause is not None
                    if attempt.retire:  # a simulator call it gave up on still runs there
                        self.release(worker, retire=True)
                        return None
                    return worker
                if attempt.kind == "budget":
                    store.mark_pending([task.key])
                    self.stopped = True
                    return worker
                ray.kill(worker.actor)
                self.release(worker, retire=True)
                gone, worker = worker, None
                if await self.lost(gone, attempt.unreachable):
                    replay.abandon(lost_node=gone.where["node"])
                    store.mark_pending([task.key])
                    pool.tasks.appendleft(task)
                    self.note(f"{task.key}: its node {gone.where['node']} left the cluster; it runs again "
                              "from the start elsewhere")
                    return None
                where, failures = gone.where, failures + 1
                if failures > self.max_retries:
                    session.complete(task, replay.fail(f"{attempt.reason}; gave up after {failures} attempt(s)",
                                                       time.monotonic() - started), where)
                    return None
                replay.abandon()
                self.note(f"{task.key}: {attempt.reason}; retrying on a fresh actor ({failures}/{self.max_retries})")
        except BaseException:  # unfinished (cancelled, or the run stops on an error): `--resume` runs it again
            if worker is not None:
                self.release(worker)
            if replay is not None:
                replay.abandon()
            store.mark_pending([task.key])
            raise
        finally:
            session.in_flight.discard(task.key)
