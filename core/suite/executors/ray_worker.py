"""The Ray actor that hosts simulators: it runs whole episodes and streams their events to the driver."""

from __future__ import annotations

import asyncio
import gc
import itertools
import pickle
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import ray
from omegaconf import DictConfig, OmegaConf

from suite.contract.errors import BudgetExceeded, SuiteError
from suite.contract.records import Observation, Settlement, StepRecord, Task
from suite.engine.agents import Agent, AgentContext
from suite.engine.host import build_host
from suite.engine.loop import TraceSink, run_episode
from suite.engine.stall import stall_rule
from suite.executors.ray_models import SharedLedger, attach, register_scripts, use_node_calls
from suite.models import Script
from suite.models.event_loops import loop_in_thread
from suite.store.run_folder import safe_name
from suite.store.traces import frame_path

#: Events, each pickled when it happens: ("start", observation), ("step", record, observation), ("warning", message),
#: ("end", EpisodeEnd), ("budget",) when the cost budget stopped the episode, ("raise", exception).
Event = tuple[Any, ...]
#: How long the worker gathers events into one message (fast steps travel in batches, slow ones alone).
BATCH_WINDOW_S = 0.01


@dataclass
class WorkerPayload:
    """What every worker gets from the driver: plain data and actor handles, nothing unpicklable.

    `model` is the run's model as `ray_models.detach` ships it; `services` the shared limiter and ledger actor
    (None when the run has no ModelClient); `scripts` the driver's scripted models, registered again here."""

    config: dict[str, Any]
    model: Any = None
    services: Any = None
    scripts: list[Script] = field(default_factory=list)


@dataclass
class EpisodeEnd:
    """How an episode ended; `abandoned` when a blocking call it gave up on is still running."""

    end_reason: str
    error: str | None
    settlement: Settlement
    duration_s: float
    abandoned: bool


class SimulatorCalls:
    """The episode loop's `offload` in a worker: simulator calls in worker threads, each timed while it runs, by
    episode (an actor may run several at once)."""

    def __init__(self) -> None:
        self._started: dict[int, tuple[str, float]] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def offload(self, episode: str) -> Callable[..., Awaitable[Any]]:
        """The `offload` of one episode: runs `fn` in a worker thread, noting when it started and when it returned
        (even if given up on)."""

        async def call(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
            key = next(self._ids)

            def timed() -> Any:
                with self._lock:
                    self._started[key] = (episode, time.monotonic())
                try:
                    return fn(*args, **kwargs)
                finally:
                    with self._lock:
                        del self._started[key]

            return await asyncio.to_thread(timed)

        return call

    def busy_s(self, episode: str | None = None) -> float | None:
        """How long the oldest call in flight (of `episode`, or of any) has been running, or None when none is."""
        with self._lock:
            oldest = min((t for e, t in self._started.values() if episode is None or e == episode), default=None)
        return None if oldest is None else time.monotonic() - oldest


class QueueSink(TraceSink):
    """Snapshots each event as it happens (pickled, like the local trace is written at once).

    An image is sent once: after its event is pickled it gets the path the driver stores it at, as the local
    trace writer gives it, so an image object that appears again (a static camera) is not stored twice."""

    def __init__(self, events: queue.Queue[bytes | None], task: Task) -> None:
        self.events = events
        self.stem = safe_name(task.key)

    def put(self, *event: Any) -> None:
        """Queue one event for the driver."""
        self.events.put(pickle.dumps(event, protocol=pickle.HIGHEST_PROTOCOL))

    def sent(self, observation: Observation, step: int) -> None:
        """Give the observation's new images the paths the driver stores them at."""
        for i, image in enumerate(observation.images):
            if image.path is None and image.png is not None:
                image.path = frame_path(self.stem, step, i)

    def start(self, task: Task, observation: Observation) -> None:
        """The episode was reset."""
        self.put("start", observation)
        self.sent(observation, 0)

    def step(self, record: StepRecord, observation: Observation) -> None:
        """A step finished."""
        self.put("step", record, observation)
        self.sent(observation, record.index + 1)

    def warn(self, message: str) -> None:
        """Something the driver tells the user now."""
        self.put("warning", message)


def portable(exc: BaseException) -> BaseException:
    """`exc` if it survives pickling, else a SuiteError carrying its type and message."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - e.g. an exception class whose __init__ takes other arguments
        return SuiteError(f"{type(exc).__name__}: {exc}")
    return exc


async def run_streamed(host: Any, cfg: DictConfig, make_agent: Callable[[str], Agent], task: Task, sink: QueueSink,
                       calls: SimulatorCalls) -> None:
    """Run one episode, queueing its events, its end (or why it stopped) and then None."""
    try:
        agent = make_agent(task.benchmark)
        result = await run_episode(host, task, agent, cfg.get(task.benchmark) or OmegaConf.create({}), sink,
                                   timeout_s=cfg.run.episode_timeout_s, offload=calls.offload(task.key),
                                   stall=stall_rule(cfg.run, host.benchmark(task.benchmark).stall_limit))
        traj = result.trajectory
        sink.put("end", EpisodeEnd(traj.end_reason, traj.error, result.settlement, result.duration_s,
                                   calls.busy_s(task.key) is not None))
    except BudgetExceeded:
        sink.put("budget")
    except BaseException as exc:  # noqa: BLE001 - raised again in the driver, as the local executor would
        sink.put("raise", portable(exc))
    finally:
        sink.events.put(None)


@ray.remote
class EpisodeWorker:
    """A simulator process: its own plugin manager, agents and model client; runs as many episodes at once as its
    pool's `episodes` (each `run` call streams one, on the actor's one event loop)."""

    def __init__(self, payload: WorkerPayload) -> None:
        self.error: BaseException | None = None
        self.ledger: SharedLedger | None = None
        self.calls = SimulatorCalls()
        self.loop = loop_in_thread("suite-episodes")  # litellm's dispatch made at once (see suite.models.event_loops)
        try:
            self.cfg = OmegaConf.create(payload.config)
            self.host = build_host()
            register_scripts(payload.scripts)
            self.model = payload.model
            if payload.services is not None:
                self.ledger = SharedLedger(payload.services, self.cfg.run.get("max_cost"))
                self.model = attach(payload.model, payload.services, self.cfg, self.ledger)
        except Exception as exc:  # noqa: BLE001 - reported by ready(), as the driver would have raised it
            self.error = portable(exc)
        gc.freeze()  # its set-up is never scanned by a full collection (a stall of every episode, see runner.execute)

    def ready(self) -> tuple[BaseException | None, dict[str, Any]]:
        """Answer once started: the error that kept this worker from starting (or None), and where it runs."""
        context = ray.get_runtime_context()
        gpus = [str(g) for g in context.get_accelerator_ids().get("GPU", [])]
        where = {"node": ray.util.get_node_ip_address(), "node_id": context.get_node_id()}
        return self.error, {**where, "gpus": gpus} if gpus else where

    def use_node_calls(self, actor: Any) -> None:
        """Make the model calls that may run in any process on the node's `NodeModelCalls` actor (the driver's)."""
        use_node_calls(self.model, actor)

    def busy_s(self) -> float | None:
        """How long the oldest simulator call in flight has been running (the driver's watchdog asks)."""
        return self.calls.busy_s()

    def run(self, task: Task) -> Iterator[list[bytes]]:
        """Run one episode, streaming batches of its pickled events until the last one."""
        events: queue.Queue[bytes | None] = queue.Queue()
        episode = run_streamed(self.host, self.cfg, self._agent, task, QueueSink(events, task), self.calls)
        asyncio.run_coroutine_threadsafe(episode, self.loop)
        while True:
            batch = [events.get()]
            window_ends = time.monotonic() + BATCH_WINDOW_S
            while batch[-1] is not None and (wait := window_ends - time.monotonic()) > 0:
                try:
                    batch.append(events.get(timeout=wait))
                except queue.Empty:
                    break
            done = batch[-1] is None
            if done and self.ledger is not None:
                self.ledger.sync()  # the episode's replies are in the shared ledger before its end is
            yield [e for e in batch if e is not None]
            if done:
                return

    def _agent(self, benchmark: str) -> Agent:
        spec = self.host.registry.agent(str(self.cfg.run.agent), benchmark)
        model = self.model.get(benchmark) if isinstance(self.model, dict) else self.model
        return spec.factory(AgentContext(self.host, benchmark, self.cfg, model))
