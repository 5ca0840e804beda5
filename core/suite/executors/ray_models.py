"""One rate limiter, one cost ledger and one response cache for a whole Ray run: a small actor on the driver's node,
and the proxies each worker uses."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import gc
import pickle
import threading
import warnings
from pathlib import Path
from typing import Any, cast

import ray
from omegaconf import DictConfig
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from suite.contract.errors import BudgetExceeded
from suite.models import (
    CostLedger,
    Limit,
    ModelClient,
    ModelReply,
    RateLimiter,
    ResponseCache,
    Script,
    Totals,
    get_script,
    register_script,
)
from suite.models.cache import CachedReply
from suite.models.call_result import CallResult, Pricing
from suite.models.call_workers import attempt, runs_anywhere, warm_up
from suite.models.event_loops import loop_in_thread
from suite.models.retry import CallFailure
from suite.models.transport import CallLimits

SCRIPTED = "scripted"
#: How long an attempt lost with its node's model-call actor waits for Ray to restart that actor.
RESTART_WAIT_S = 120.0
#: Replies a worker counts before sending them to the shared ledger, when there is no budget.
LEDGER_BATCH = 64
#: A response cache as shipped to workers: its SQLite path on the driver's node, run scope, reuse across runs.
CacheSpec = tuple[Path, str | None, bool]


@ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=-1)
class ModelServices:
    """Holds the run's `RateLimiter`, `CostLedger` and response caches; every worker's model client talks to this
    one actor.

    Pinned to the driver's node and restarted by Ray whenever its process dies; the ledger is saved to
    `state_path` (a file on the driver's node) after every change and read back on a restart, so a restart
    loses no spend; the rate limiter's buckets start full again; the caches are SQLite files on the driver's node
    (the run's `model.cache_path`), opened again. Calls in flight at a restart are retried."""

    def __init__(self, limit: Limit, max_cost_usd: float | None, state_path: str | None = None) -> None:
        self.limiter = RateLimiter(default=limit)
        self.ledger = CostLedger(max_cost_usd)
        self.caches: dict[CacheSpec, ResponseCache] = {}
        self.state_path = Path(state_path) if state_path else None
        if self.state_path is not None and self.state_path.exists():
            self.ledger.restore(pickle.loads(self.state_path.read_bytes()))

    def _save(self) -> None:
        """Write the ledger's totals where a restarted actor finds them (replaced whole, never half-written)."""
        if self.state_path is None:
            return
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(self.ledger.snapshot()))
        tmp.replace(self.state_path)

    async def acquire(self, provider: str, tokens_estimate: int) -> None:
        """Wait until one request may start (the caller awaits this)."""
        await self.limiter.acquire(provider, tokens_estimate)

    async def settle(self, provider: str, tokens_used: int, tokens_reserved: int) -> None:
        """Charge a finished request's actual tokens."""
        self.limiter.record(provider, tokens_used, tokens_reserved)

    async def spent(self) -> str | None:
        """Why no new call may start (the budget is spent), or None."""
        try:
            self.ledger.check()
        except BudgetExceeded as exc:
            return str(exc)
        return None

    async def record(self, replies: list[tuple[ModelReply, str | None]]) -> None:
        """Count replies for the run and their episodes."""
        for reply, episode in replies:
            self.ledger.record(reply, episode)
        self._save()

    async def totals(self, episode: str | None) -> Totals:
        """The run's totals, or one episode's."""
        return self.ledger.total if episode is None else self.ledger.episode(episode)

    def _cache(self, spec: CacheSpec) -> ResponseCache:
        if spec not in self.caches:
            self.caches[spec] = ResponseCache(*spec)
        return self.caches[spec]

    async def cache_get(self, spec: CacheSpec, key: str) -> CachedReply | None:
        """The cached reply to a request, from the run's cache `spec`."""
        return self._cache(spec).get(key)

    async def cache_put(self, spec: CacheSpec, key: str, reply: ModelReply) -> None:
        """Store a reply in the run's cache `spec`."""
        self._cache(spec).put(key, reply)

    async def close(self) -> None:
        """Commit every cached reply (the caches' writer threads batch their commits) before the actor is killed."""
        for cache in self.caches.values():
            cache.close()


@ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=0)
class NodeModelCalls:
    """The model calls of every worker actor on one node: litellm (about 2 CPU-seconds and 120 MB to import) is
    loaded once per node, not by every worker actor, and its ~1 ms of CPU per call leaves the actors' loops.

    The driver starts one per node where a worker actor runs (pinned there, owned by the driver, killed at the end
    of the run) for the clients whose calls may be made in any process (`call_workers.runs_anywhere`). Each call is
    one attempt; a failure comes back judged (`CallFailure`), so the worker's retry policy treats it as it would
    one raised in its own process. Restarted by Ray when its process dies; calls in flight then are retried."""

    def __init__(self, scripts: list[Script]) -> None:
        register_scripts(scripts)
        warm_up()  # litellm loaded and its first call made now, while the node's worker actors start
        gc.freeze()  # litellm's modules are never scanned by a full collection (a stall of every call in flight)
        # the calls run on a suite loop of their own (litellm's dispatch without suspending, see
        # suite.models.event_loops), not on Ray's actor loop, which only passes them on
        self.loop = loop_in_thread("suite-model-calls")

    async def call(
        self, request: dict[str, Any], pricing: Pricing, limits: CallLimits
    ) -> tuple[bool, CallResult | CallFailure]:
        """Make one attempt within `limits`: (True, its result) or (False, its failure, judged here)."""
        made = asyncio.run_coroutine_threadsafe(attempt(request, pricing, limits), self.loop)
        return await asyncio.wrap_future(made)  # cancelled with it, when Ray cancels the call

    def ready(self) -> bool:
        """Answer once the actor serves (after a restart too)."""
        return True


class NodeCalls:
    """A worker's `ModelClient.workers` on Ray: each attempt made by its node's `NodeModelCalls` actor."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def _restarted(self) -> None:
        """Wait until Ray has restarted the actor (at most `RESTART_WAIT_S`; at once when it is gone for good), so
        that the retry of an attempt it lost finds it serving instead of spending the model's retries on a restart
        (its start, litellm's import included, takes seconds). `ready` is sent with task retries: with the class's
        at-most-once default, a call sent while the actor restarts fails at once instead of waiting for it."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(RESTART_WAIT_S):
                await self.actor.ready.options(max_task_retries=-1).remote()

    async def call(self, request: dict[str, Any], pricing: Pricing, limits: CallLimits) -> CallResult:
        """One attempt on the node's model-call actor; its death is a transient failure (retried)."""
        ref = self.actor.call.remote(request, pricing, limits)
        try:
            ok, payload = await ref
        except asyncio.CancelledError:
            ray.cancel(ref)
            raise
        except ray.exceptions.RayActorError as exc:
            await self._restarted()
            raise CallFailure.worker_lost(f"the node's model-call actor is gone: {type(exc).__name__}") from None
        if not ok:
            raise payload
        return payload


def register_scripts(scripts: list[Script]) -> None:
    """Register the driver's scripted models in this process (the driver's version wins, as it would locally)."""
    for script in scripts:
        register_script(script.name, script.fn, latency_s=script.latency_s, valid_reply=script.wants_valid_reply,
                        any_process=script.any_process)


def calls_anywhere(model: Any) -> bool:
    """Whether any client of the run's model may have its calls made by the nodes' model-call actors."""
    return any(runs_anywhere(c.model) for c in clients(model))


def use_node_calls(model: Any, actor: Any) -> None:
    """Send the attempts of every client that may call from any process to the node's model-call actor."""
    for client in clients(model):
        if runs_anywhere(client.model):
            client.workers = NodeCalls(actor)  # type: ignore[assignment]


class SharedLimiter:
    """The `Limiter` of a worker's model client, backed by the run's `ModelServices` actor."""

    def __init__(self, services: Any, limited: bool) -> None:
        self.services = services
        self.limited = limited

    async def acquire(self, provider: str, tokens_estimate: int) -> None:
        """Wait for the shared buckets (no round trip when no limit is configured)."""
        if self.limited:
            await self.services.acquire.remote(provider, tokens_estimate)

    def record(self, provider: str, tokens_used: int, tokens_reserved: int) -> None:
        """Settle a request's tokens with the shared buckets, without waiting."""
        if self.limited:
            self.services.settle.remote(provider, tokens_used, tokens_reserved)


class SharedLedger:
    """The cost ledger of a worker's model clients, backed by the run's `ModelServices` actor.

    Under a budget every reply is counted there before the next call may start; without one, replies are sent
    in batches (at least at the end of every episode: the worker calls `flush`), which keeps steps cheap.
    """

    def __init__(self, services: Any, max_cost_usd: float | None) -> None:
        self.services = services
        self.max_cost_usd = max_cost_usd
        self._pending: list[tuple[ModelReply, str | None]] = []
        self._lock = threading.Lock()

    def check(self) -> None:
        """Raise BudgetExceeded when the run's shared budget is spent (no round trip without a budget)."""
        if self.max_cost_usd is None:
            return
        reason = ray.get(self.services.spent.remote())
        if reason:
            raise BudgetExceeded(reason)

    def record(self, reply: ModelReply, episode: str | None = None) -> None:
        """Count a reply in the shared ledger: at once under a budget (the next check sees it), else batched."""
        if self.max_cost_usd is not None:
            ray.get(self.services.record.remote([(reply, episode)]))
            return
        with self._lock:
            self._pending.append((reply, episode))
            full = len(self._pending) >= LEDGER_BATCH
        if full:
            self.flush()

    def flush(self) -> Any:
        """Send the replies counted here that the shared ledger has not seen yet; the call's ref (None if none)."""
        with self._lock:
            pending, self._pending = self._pending, []
        return self.services.record.remote(pending) if pending else None

    @property
    def total(self) -> Totals:
        """The run's totals over every worker (this worker's unsent replies included)."""
        self.sync()
        return ray.get(self.services.totals.remote(None))

    def episode(self, key: str) -> Totals:
        """One episode's totals (this worker's unsent replies included)."""
        self.sync()
        return ray.get(self.services.totals.remote(key))

    def sync(self) -> None:
        """Flush, and wait until the shared ledger has counted it (its calls need not run in order)."""
        sent = self.flush()
        if sent is not None:
            ray.get(sent)


class SharedCache:
    """The response cache of a worker's model client, served by the run's `ModelServices` actor from the SQLite file
    on the driver's node: every node sees every reply, so a retry or `--resume` anywhere reuses them."""

    def __init__(self, services: Any, spec: CacheSpec) -> None:
        self.services = services
        self.spec = spec
        self.path, self.run, self.across_runs = spec

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for a request hash, or None (one round trip to the driver's node)."""
        return ray.get(self.services.cache_get.remote(self.spec, key))

    async def aget(self, key: str) -> CachedReply | None:
        """`get` without blocking the worker's event loop (its other episodes go on during the round trip): what
        the model client asks."""
        return await self.services.cache_get.remote(self.spec, key)

    def put(self, key: str, reply: ModelReply) -> None:
        """Store a reply, without waiting (calls from one worker reach the actor in order)."""
        self.services.cache_put.remote(self.spec, key, reply)

    def close(self) -> None:
        """Nothing to close here: the actor holds the file."""


def start_services(cfg: DictConfig, state_path: Path, name: str) -> Any:
    """The run's `ModelServices` actor (named `name`), with the configured limits and budget (as `shared_parts`
    reads them), pinned to the driver's node so that losing any other node leaves it alone."""
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    # @ray.remote makes the class an ActorClass (with .options and .remote); Ray's annotations do not say so
    return ModelServices.options(name=name, scheduling_strategy=here).remote(  # type: ignore[attr-defined]
        Limit(rpm=cfg.model.get("rpm"), tpm=cfg.model.get("tpm")), cfg.run.get("max_cost"), str(state_path))


async def close_services(services: Any, timeout_s: float = 10.0) -> None:
    """Ask the run's `ModelServices` to commit its caches; a dead or stuck actor only costs `timeout_s`."""
    try:
        await asyncio.wait_for(services.close.remote(), timeout_s)
    except Exception as exc:  # noqa: BLE001 - the run is over; its records are already stored
        warnings.warn(f"the response cache's last replies may not be committed: {exc}", stacklevel=2)


def clients(model: Any) -> list[ModelClient]:
    """The `ModelClient`s of the run's model: one, one per benchmark (a dict), or none."""
    if isinstance(model, dict):
        return [client for value in model.values() for client in clients(value)]
    return [model] if isinstance(model, ModelClient) else []


def travelling_scripts(model: Any) -> list[Script]:
    """The scripts this process registered behind `scripted/<name>` clients that can be shipped to workers."""
    names = sorted({c.model.split("/", 1)[1] for c in clients(model) if c.model.startswith(f"{SCRIPTED}/")})
    found = []
    for name in names:
        try:
            script = get_script(name)
            ray.cloudpickle.dumps(script)
        except Exception:  # noqa: BLE001 - not registered here, or not picklable: a plugin must register it there
            continue
        found.append(script)
    return found


def detach(model: Any) -> Any:
    """The run's model(s) ready to ship: each ModelClient copied without limiter and ledger, its cache as its path,
    run scope and whether it reuses other runs' replies."""
    if isinstance(model, dict):
        return {key: detach(value) for key, value in model.items()}
    if not isinstance(model, ModelClient):
        return model
    _ = model.provider  # worked out here (a bare name asks litellm): the copy never loads litellm to guess it
    clone = copy.copy(model)
    clone.limiter = clone.ledger = None  # type: ignore[assignment]
    clone.workers = None
    cache = model.cache
    clone.cache = (cache.path, cache.run, cache.across_runs) if cache is not None else None  # type: ignore[assignment]
    return clone


def attach(model: Any, services: Any, cfg: DictConfig, ledger: SharedLedger) -> Any:
    """Shipped model(s) bound to the run's shared limiter, to `ledger`, and to the run's shared response cache."""
    limiter = SharedLimiter(services, bool(cfg.model.get("rpm") or cfg.model.get("tpm")))

    def bind(client: Any) -> Any:
        if isinstance(client, dict):
            return {key: bind(value) for key, value in client.items()}
        if isinstance(client, ModelClient):
            client.limiter, client.ledger = limiter, ledger
            # `ship` left the cache's spec in the cache's place; the worker's client reaches the run's cache through
            # the services actor (a SharedCache answers as a ResponseCache does)
            shipped = cast(CacheSpec | None, client.cache)
            client.cache = None if shipped is None else SharedCache(services, shipped)  # type: ignore[assignment]
        return client

    return bind(model)
