"""Running the suite's top coroutine: `asyncio.run`, with a default executor that leaves no coroutine unawaited.

litellm's `acompletion` calls the provider in the loop's default executor, and that call returns the coroutine
which then makes the request. When a run is cut off (Ctrl-C, a stop) while a worker thread is making it, the await
is cancelled, the coroutine is never awaited, and Python prints `RuntimeWarning: coroutine ... was never awaited`
at exit. This executor keeps each coroutine its calls return until it is started, and closes those never started
when the loop shuts it down.
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
        """Run `fn` in a worker thread; a coroutine it returns is kept until it is started or closed. litellm's
        dispatch of an async call (`acompletion` hands its synchronous `completion` here, which only builds the
        request and returns the provider's coroutine) runs at once instead: no thread hop per model call."""
        if not args and not kwargs and _is_litellm_dispatch(fn):
            done: Future[Any] = Future()
            try:
                done.set_result(fn())
            except BaseException as exc:  # handed to the awaiting call, as from a thread
                done.set_exception(exc)
            self._keep(done)  # a cut-off await leaves its coroutine unstarted: closed at shutdown, as below
            return done
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(self._keep)
        return future

    def _keep(self, future: Future[Any]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        result = future.result()
        if inspect.iscoroutine(result):
            with self._made_lock:
                self._made = [c for c in self._made if _unstarted(c)]
                self._made.append(result)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the threads, then close every coroutine they returned that was never started."""
        super().shutdown(wait=wait, cancel_futures=cancel_futures)
        with self._made_lock:
            made, self._made = self._made, []
        for coro in made:
            if _unstarted(coro):
                coro.close()


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
    with asyncio.Runner() as runner:
        runner.get_loop().set_default_executor(ClosingExecutor())
        return runner.run(coro)
