"""The suite's event loops: `asyncio.run` with litellm's dispatch made at once, and a default executor that leaves no
coroutine unawaited.

litellm's `acompletion` hands its synchronous `completion` (which only builds the request and returns the
provider's coroutine, no I/O) to the loop's default executor and awaits it. Through a thread, or even answered at
once through `run_in_executor`, that await suspends the call for a round or two of the loop; with many episodes in
flight, every call's model request then waits for every other ready episode's work, the requests leave together,
the replies come back together, and the episodes move in lockstep, each step paying for everyone's (bench/overhead.py,
64 episodes of a 100 ms model on 2 cores, every call in the run's process: 0.58 of the ideal steps/s, 0.90 without
the suspension). `SuiteEventLoop` runs exactly that dispatch inline and hands back a finished future, so the call
goes on without suspending.

Every other call to the default executor (`asyncio.to_thread`: simulator calls, long replies' parsing) goes to the
loop's `LoopThreads`, which hands each result straight to its asyncio future. When a run is cut off (Ctrl-C, a stop)
while a worker thread is making a call that returns a coroutine, the await is cancelled, the coroutine is never
awaited, and Python would print `RuntimeWarning: coroutine ... was never awaited` at exit; `LoopThreads` keeps each
such coroutine until it is started, and closes those never started when the loop shuts its threads down.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import os
import queue
import sys
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor
from typing import Any, TypeVar, TypeVarTuple

_T = TypeVar("_T")
_Ts = TypeVarTuple("_Ts")


class LoopThreads:
    """The worker threads of one event loop's default-executor calls (`asyncio.to_thread`, `run_in_executor(None,
    ...)`): each call's result is handed straight to its asyncio future, with no `concurrent.futures.Future` and no
    chained callbacks between them (a round trip of 64 us against 114 for `asyncio.to_thread` through a thread pool on
    a 2-core machine). As many threads as a `ThreadPoolExecutor` would start (one more only while none is idle); a
    call whose future was cancelled before its turn is not run; a coroutine a call returns is closed at shutdown if
    nobody started it (a run cut off while such a call was in flight would otherwise warn it was never awaited)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, max_workers: int | None = None) -> None:
        self._loop = loop
        self._max = max_workers or min(32, (os.cpu_count() or 1) + 4)
        self._calls: queue.SimpleQueue[tuple[asyncio.Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._threads: list[threading.Thread] = []
        self._made: list[Coroutine[Any, Any, Any]] = []
        self._lock = threading.Lock()

    def submit(self, func: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run `func()` in a worker thread; its result (or exception) becomes the returned future's."""
        future = self._loop.create_future()
        self._calls.put((future, func))
        if not self._idle.acquire(blocking=False):
            with self._lock:
                if len(self._threads) < self._max:
                    thread = threading.Thread(target=self._work, name=f"suite_{len(self._threads)}", daemon=True)
                    self._threads.append(thread)
                    thread.start()
        return future

    def shutdown(self, wait: bool = True) -> None:
        """Stop the threads once the calls queued are done (waiting for them with `wait`), then close every coroutine
        they returned that was never started."""
        with self._lock:
            threads, self._threads = self._threads, []
            for _ in threads:
                self._calls.put(None)
        if wait:
            for thread in threads:
                thread.join()
        with self._lock:
            made, self._made = self._made, []
        for coro in made:
            if _unstarted(coro):
                coro.close()

    def _work(self) -> None:
        """A worker thread: run the calls as they come, until told to stop."""
        while (item := self._calls.get()) is not None:
            self._run(*item)
            del item
            self._idle.release()

    def _run(self, future: asyncio.Future[Any], func: Callable[[], Any]) -> None:
        """Run one call whose future is still wanted and hand its outcome to the loop."""
        if future.cancelled():  # read from this thread: at worst a call cancelled meanwhile still runs
            return
        try:
            result, error = func(), None
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting call, as a thread pool does
            result, error = None, exc
        if inspect.iscoroutine(result):
            with self._lock:
                self._made = [c for c in self._made if _unstarted(c)]
                self._made.append(result)
        try:
            self._loop.call_soon_threadsafe(_settle, future, result, error)
        except RuntimeError:  # the loop is closed: nobody waits for the outcome any more
            pass


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """Give a worker thread's outcome to its future, unless the future was cancelled meanwhile."""
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


if sys.platform == "win32":
    _PlatformLoop = asyncio.ProactorEventLoop
else:
    _PlatformLoop = asyncio.SelectorEventLoop


class SuiteEventLoop(_PlatformLoop):  # the platform's default loop class
    """An event loop on which litellm's dispatch of an async call runs at once, without suspending the call, and whose
    default executor is its `LoopThreads`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._threads = LoopThreads(self)

    def run_in_executor(self, executor: Executor | None, func: Callable[[*_Ts], _T],
                        *args: *_Ts) -> asyncio.Future[_T]:
        """As asyncio's, except that the default executor's calls go to the loop's `LoopThreads` (unless an executor
        was set with `set_default_executor`), and litellm's dispatch is made here, its future already done."""
        if executor is not None:
            return super().run_in_executor(executor, func, *args)
        if not args and _is_litellm_dispatch(func):
            done = self.create_future()
            try:
                # the provider's coroutine (no args), awaited by litellm at once (never left unstarted)
                done.set_result(func(*args))
            except (SystemExit, KeyboardInterrupt):
                raise
            except BaseException as exc:  # handed to the awaiting call, as from a thread
                done.set_exception(exc)
            return done
        if getattr(self, "_default_executor", None) is not None:  # set by the caller: theirs to use
            return super().run_in_executor(executor, func, *args)
        # asyncio's own refusals (a closed loop, a default executor already shut down): private methods of
        # BaseEventLoop in every supported Python, absent from typeshed
        self._check_closed()  # type: ignore[attr-defined]
        self._check_default_executor()  # type: ignore[attr-defined]
        return self._threads.submit(functools.partial(func, *args) if args else func)

    async def shutdown_default_executor(self, *args: Any) -> None:
        """Stop the worker threads once their calls are done, waiting in a thread of its own as asyncio does (and
        shut down an executor set with `set_default_executor`, if any)."""
        await super().shutdown_default_executor(*args)  # marks it shut down: run_in_executor refuses calls
        stopped = self.create_future()

        def stop() -> None:
            self._threads.shutdown(wait=True)
            self.call_soon_threadsafe(stopped.set_result, None)

        thread = threading.Thread(target=stop, name="suite-threads-shutdown", daemon=True)
        thread.start()
        try:
            await stopped
        finally:
            thread.join()

    def close(self) -> None:
        """Close the loop; its worker threads stop once their calls are done, unwaited for (as asyncio's executor)."""
        super().close()
        self._threads.shutdown(wait=False)


def new_loop() -> asyncio.AbstractEventLoop:
    """A new `SuiteEventLoop`."""
    return SuiteEventLoop()


def loop_in_thread(name: str) -> asyncio.AbstractEventLoop:
    """A `new_loop` running forever in a daemon thread called `name` (an actor's loop beside Ray's own)."""
    loop = new_loop()
    threading.Thread(target=loop.run_forever, name=name, daemon=True).start()
    return loop


def _is_litellm_dispatch(fn: Any) -> bool:
    """Whether `fn` is litellm's `partial(context.run, partial(litellm.main.completion, ..., acompletion=True))`."""
    main = sys.modules.get("litellm.main")
    if main is None or not isinstance(fn, functools.partial) or not fn.args:
        return False
    inner = fn.args[0]
    return (isinstance(getattr(fn.func, "__self__", None), contextvars.Context) and isinstance(inner, functools.partial)
            and inner.func is getattr(main, "completion", None) and inner.keywords.get("acompletion") is True)


def _unstarted(coro: Coroutine[Any, Any, Any]) -> bool:
    return inspect.getcoroutinestate(coro) == inspect.CORO_CREATED


def run_to_completion(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine to completion (Ctrl-C cancels it and raises KeyboardInterrupt)."""
    with asyncio.Runner(loop_factory=new_loop) as runner:
        return runner.run(coro)
