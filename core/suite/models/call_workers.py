"""Model-call worker processes (`model.call_workers`): litellm's work per call runs beside the event loop.

litellm spends about 1-1.5 ms of CPU on every call (building the request, its logging object, reading the
response). At a fast local server's speed that work, not the model, caps how many episodes one event loop can
drive. `CallWorkers` forks processes that each run an event loop of their own and make the calls they are sent;
the run's loop keeps everything else (the cache, the ledger, the rate limiter, retries and their backoff), and
sends each attempt as one request dict and gets back a `CallResult` or a `CallFailure` judged where it was raised.

The workers are forked from the process before its run starts (before its event loop and its threads), so they
hold what it registered: plugins' scripts declared `any_process`, litellm's settings. Calls to a model answered
in this process only (a custom provider registered here, a script that keeps state) never go to a worker
(`runs_anywhere`). A worker that dies fails its calls in flight as transient model failures, which the retry
policy sends to the others or, with none left, into this process."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import sys
import weakref
from dataclasses import dataclass, field
from typing import Any

from suite.models.call_result import CallResult, Pricing, call_litellm
from suite.models.event_loops import run_to_completion
from suite.models.litellm_setup import load_litellm
from suite.models.retry import CallFailure
from suite.models.scripted import find_script
from suite.models.transport import DEFAULT_LIMITS, CallLimits

HEADER = struct.Struct("!I")
#: `model.call_workers: auto`: one process per core, at most this many (none on one core: nothing to spread to)
MAX_AUTO = 4
_POOLS: weakref.WeakSet[CallWorkers] = weakref.WeakSet()
_WARM = False


def auto_count(setting: Any) -> int:
    """The number of worker processes `model.call_workers` asks for (`auto`: one per core, at most 4; 0 on one
    core or off Linux)."""
    if setting is None or setting == "auto":
        cores = os.cpu_count() or 1
        if cores < 2 or not sys.platform.startswith("linux"):  # fork alone carries in-process registrations
            return 0
        return min(MAX_AUTO, cores)
    return int(setting)


def runs_anywhere(model: str) -> bool:
    """Whether a call to `model` is answered the same from any process: a litellm provider, or a script that
    declares `any_process`; not a custom provider registered in this process (it may keep state here)."""
    provider, _, name = model.partition("/")
    if not name:
        return True
    if provider == "scripted":
        script = find_script(name)
        return script is not None and script.any_process
    litellm = sys.modules.get("litellm")  # not loaded: no provider was registered with it (nor is it loaded here)
    custom = {entry["provider"] for entry in litellm.custom_provider_map} if litellm is not None else set()
    return provider not in custom


@dataclass
class _Worker:
    """One worker process, its end of the socket pair, and its calls in flight."""

    sock: socket.socket
    process: multiprocessing.process.BaseProcess
    pending: dict[int, asyncio.Future[CallResult]] = field(default_factory=dict)
    loop: asyncio.AbstractEventLoop | None = None
    writer: asyncio.StreamWriter | None = None
    reader_task: asyncio.Task[None] | None = None
    connecting: asyncio.Task[None] | None = None
    waiting: int = 0  # calls that chose this worker and wait for its connection (not yet in `pending`)
    alive: bool = True


class CallWorkers:
    """A pool of forked processes that make litellm calls for this process's event loop."""

    def __init__(self, count: int) -> None:
        warm_up()  # here, once: every worker starts with litellm loaded and its first-call work done
        context = multiprocessing.get_context("fork")
        pairs = [socket.socketpair() for _ in range(count)]
        inherited = [w.sock for pool in _POOLS for w in pool._workers]  # other runs' pools, still open
        self._workers: list[_Worker] = []
        self._next_id = 0
        for index, (mine, theirs) in enumerate(pairs):
            others = [*inherited, *(s for pair in pairs for s in pair if s is not theirs)]
            process = context.Process(target=_serve, args=(theirs, others), name=f"suite-model-calls-{index}",
                                      daemon=True)
            process.start()
            theirs.close()
            self._workers.append(_Worker(mine, process))
        _POOLS.add(self)

    @property
    def size(self) -> int:
        """How many worker processes are still serving calls."""
        return sum(w.alive for w in self._workers)

    async def call(self, request: dict[str, Any], pricing: Pricing, limits: CallLimits = DEFAULT_LIMITS) -> CallResult:
        """Make one attempt within `limits` in the least busy worker (in this process when none is alive)."""
        worker = await self._pick()
        if worker is None:
            return await call_litellm(request, pricing, limits)
        self._next_id += 1
        call_id = self._next_id
        try:
            body = _frame(("call", call_id, request, pricing, limits))
        except (pickle.PicklingError, TypeError, AttributeError):  # metadata only this process can hold
            return await call_litellm(request, pricing, limits)
        future: asyncio.Future[CallResult] = asyncio.get_running_loop().create_future()
        worker.pending[call_id] = future
        writer = worker.writer
        try:
            if writer is None:  # its connection ended while this call waited for it: a transient failure
                raise CallFailure.worker_lost("the model-call worker's connection ended")
            writer.write(body)
            if writer.transport.get_write_buffer_size() > 1 << 20:
                await writer.drain()  # a long prompt (images) waits for the socket, not the loop
            return await future
        except asyncio.CancelledError:
            if worker.pending.pop(call_id, None) is not None and worker.alive and writer is not None:
                with contextlib.suppress(Exception):
                    writer.write(_frame(("cancel", call_id)))
            raise
        finally:
            worker.pending.pop(call_id, None)

    async def _pick(self) -> _Worker | None:
        """The live worker with the fewest calls in flight, connected to the running loop."""
        live = [w for w in self._workers if w.alive]
        if not live:
            return None
        worker = min(live, key=lambda w: len(w.pending) + w.waiting)
        loop = asyncio.get_running_loop()
        if worker.loop is not loop:  # one connection per loop, however many calls ask for it at once
            if worker.connecting is None or worker.connecting.get_loop() is not loop:
                worker.connecting = loop.create_task(self._connect(worker, loop))
            worker.waiting += 1  # counted at once: a run's first calls all arrive before any connection is made
            try:
                await asyncio.shield(worker.connecting)
            finally:
                worker.waiting -= 1
        return worker

    async def _connect(self, worker: _Worker, loop: asyncio.AbstractEventLoop) -> None:
        """Attach the worker's socket to `loop` (a copy of it: an earlier loop's transport owns the last one)."""
        _disconnect(worker)
        _fail_pending(worker, "its event loop ended")
        reader, writer = await asyncio.open_unix_connection(sock=worker.sock.dup())
        worker.loop, worker.writer = loop, writer
        worker.reader_task = loop.create_task(self._read(worker, reader, writer),
                                              name=f"suite-model-calls-reader-{worker.process.name}")

    async def _read(self, worker: _Worker, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Resolve the futures of the worker's answers until its socket closes."""
        try:
            while True:
                call_id, ok, payload = await _read_frame(reader)
                future = worker.pending.pop(call_id, None)
                if future is None or future.done():
                    continue
                if ok:
                    future.set_result(payload)
                else:
                    future.set_exception(payload)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            if worker.writer is writer and worker.alive:  # not a reconnection's or close()'s own abort
                worker.alive = False
                _fail_pending(worker, f"the model-call worker process ended (exit code {worker.process.exitcode})")

    def close(self) -> None:
        """Stop every worker (their calls in flight are dropped) and wait for them briefly."""
        for worker in self._workers:
            worker.alive = False
            with contextlib.suppress(OSError):  # the socket itself, whatever copies of it are open: EOF at once
                worker.sock.shutdown(socket.SHUT_RDWR)
            _disconnect(worker)
            worker.sock.close()
        for worker in self._workers:
            worker.process.join(timeout=2)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=2)
        _POOLS.discard(self)


def warm_up() -> None:
    """Load litellm and its tokenizer, and make one call to its built-in mock (its lazy imports and first-call caches,
    about 0.4 s of CPU), once per process, unless a loop is running in this thread (then only litellm is loaded)."""
    global _WARM
    if _WARM:
        return
    litellm = load_litellm()
    getattr(litellm, "encoding", None)  # its tokenizer, loaded lazily by the first call to a custom provider
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pricing = Pricing("openai/suite-warm-up", None, True)
        request = {"model": pricing.model, "messages": [{"role": "user", "content": "warm up"}],
                   "mock_response": "ok", "max_retries": 0, "timeout": 10}
        run_to_completion(call_litellm(request, pricing))
        _WARM = True


def _frame(message: tuple[Any, ...]) -> bytes:
    """`message` pickled, behind its length."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


async def _read_frame(reader: asyncio.StreamReader) -> Any:
    """The next message `_frame` wrote (IncompleteReadError at the end of the stream)."""
    size = HEADER.unpack(await reader.readexactly(HEADER.size))[0]
    return pickle.loads(await reader.readexactly(size))


async def attempt(
    request: dict[str, Any], pricing: Pricing, limits: CallLimits = DEFAULT_LIMITS
) -> tuple[bool, CallResult | CallFailure]:
    """One attempt where it is made (a worker process, a node's model-call actor): (True, its result) or (False,
    its failure judged here), to be raised where the call was asked for."""
    try:
        return True, await call_litellm(request, pricing, limits)
    except Exception as exc:  # noqa: BLE001 - judged here, raised by the caller
        return False, CallFailure.judge(exc)


def _disconnect(worker: _Worker) -> None:
    """Drop the worker's connection to its loop: its reader task and its transport."""
    if worker.reader_task is not None and not worker.reader_task.done():
        with contextlib.suppress(RuntimeError):  # its loop is closed: the task goes with it
            worker.reader_task.cancel()
    if worker.writer is not None:
        with contextlib.suppress(Exception):
            worker.writer.transport.abort()
    worker.reader_task, worker.writer, worker.loop = None, None, None


def _fail_pending(worker: _Worker, why: str) -> None:
    """Fail the worker's calls in flight as transient model failures (the retry policy tries them again)."""
    for future in worker.pending.values():
        if not future.done():
            future.set_exception(CallFailure.worker_lost(why))
    worker.pending.clear()


# ------------------------------------------------------------------------------------------- in the worker


def _serve(sock: socket.socket, inherited: list[socket.socket]) -> None:
    """A worker's life: ignore Ctrl-C and SIGTERM (the parent decides), close the parent's sockets, serve until EOF,
    exit."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for other in inherited:
        other.close()
    gc.freeze()  # what was inherited (litellm's modules, the run's set-up) is never collected here: not scanned
    asyncio.events._set_running_loop(None)  # forked from a running loop: that loop is not this process's
    try:
        run_to_completion(_serve_calls(sock))  # litellm's dispatch made at once (see suite.models.event_loops)
    finally:  # at once: litellm's idle threads would hold up the interpreter's shutdown
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(0)


async def _serve_calls(sock: socket.socket) -> None:
    """Read calls and cancellations; answer each call when it ends, in any order."""
    reader, writer = await asyncio.open_unix_connection(sock=sock)
    running: dict[int, asyncio.Task[None]] = {}

    async def answer(call_id: int, request: dict[str, Any], pricing: Pricing, limits: CallLimits) -> None:
        try:
            ok, payload = await attempt(request, pricing, limits)
        except asyncio.CancelledError:
            return
        finally:
            running.pop(call_id, None)
        writer.write(_frame((call_id, ok, payload)))

    while True:
        try:
            message = await _read_frame(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            break
        if message[0] == "call":
            _, call_id, request, pricing, limits = message
            running[call_id] = asyncio.create_task(answer(call_id, request, pricing, limits))
        elif message[0] == "cancel" and message[1] in running:
            running.pop(message[1]).cancel()
    for task in running.values():
        task.cancel()
