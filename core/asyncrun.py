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

When a run is cut off (Ctrl-C, a stop) while a worker thread is making any other executor call that returns a
coroutine, the await is cancelled, the coroutine is never awaited, and Python prints `RuntimeWarning: coroutine ...
was never awaited` at exit. `ClosingExecutor` keeps each coroutine its calls return until it is started, and closes
those never started when the loop shuts it down.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import sys
import threading
from collections.abc import Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class ClosingExecutor(ThreadPoolExecutor):
    """A thread pool whose calls' coroutine results are closed at shutdown if nobody started them."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="suite")
        self._made: list[Coroutine[Any, Any, Any]] = []
        self._made_lock = threading.Lock()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run `fn` in a worker thread; a coroutine it returns is kept until it is started or closed."""
        return super().submit(self._call, fn, args, kwargs)

    def _call(self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """`fn(*args, **kwargs)` in the worker thread, its coroutine result kept before the caller is woken (in the
        thread, not by a done-callback that would take the future's lock twice ahead of the caller's wake-up)."""
        result = fn(*args, **kwargs)
        if inspect.iscoroutine(result):
            with self._made_lock:
                self._made = [c for c in self._made if _unstarted(c)]
                self._made.append(result)
        return result

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the threads, then close every coroutine they returned that was never started."""
        super().shutdown(wait=wait, cancel_futures=cancel_futures)
        with self._made_lock:
            made, self._made = self._made, []
        for coro in made:
            if _unstarted(coro):
                coro.close()


_PlatformLoop = asyncio.ProactorEventLoop if sys.platform == "win32" else asyncio.SelectorEventLoop


class SuiteEventLoop(_PlatformLoop):  # type: ignore[valid-type,misc]  # the platform's default loop class
    """An event loop on which litellm's dispatch of an async call runs at once, without suspending the call."""

    def run_in_executor(self, executor: Any, func: Any, *args: Any) -> asyncio.Future[Any]:
        """As asyncio's, except litellm's dispatch to the default executor: made here, its future already done."""
        if executor is None and not args and _is_litellm_dispatch(func):
            done = self.create_future()
            try:
                done.set_result(func())  # the provider's coroutine, awaited by litellm at once (never left unstarted)
            except (SystemExit, KeyboardInterrupt):
                raise
            except BaseException as exc:  # handed to the awaiting call, as from a thread
                done.set_exception(exc)
            return done
        return super().run_in_executor(executor, func, *args)


def new_loop() -> asyncio.AbstractEventLoop:
    """A new `SuiteEventLoop` whose default executor is a `ClosingExecutor`."""
    loop = SuiteEventLoop()
    loop.set_default_executor(ClosingExecutor())
    return loop


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
