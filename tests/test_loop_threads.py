"""The suite's loops run default-executor calls (`asyncio.to_thread`) in their own worker threads: results,
exceptions, context, cancellation and shutdown as a thread pool gives them."""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
import time

import pytest
from suite.models.event_loops import LoopThreads, new_loop, run_to_completion

LABEL: contextvars.ContextVar[str] = contextvars.ContextVar("label", default="none")


def test_a_call_returns_its_result_or_raises_its_exception_with_the_callers_context() -> None:
    async def calls() -> tuple[str, str]:
        LABEL.set("episode 3")
        seen = await asyncio.to_thread(LABEL.get)
        with pytest.raises(ZeroDivisionError):
            await asyncio.to_thread(lambda: 1 / 0)
        return seen, await asyncio.to_thread(lambda: threading.current_thread().name)

    seen, thread = run_to_completion(calls())
    assert seen == "episode 3" and thread != threading.current_thread().name


def test_calls_run_side_by_side_up_to_the_thread_limit_and_threads_are_reused() -> None:
    async def many() -> tuple[float, int]:
        start = time.perf_counter()
        await asyncio.gather(*[asyncio.to_thread(time.sleep, 0.2) for _ in range(4)])
        elapsed = time.perf_counter() - start
        for _ in range(20):
            await asyncio.to_thread(int)
        return elapsed, len(asyncio.get_running_loop()._threads._threads)  # type: ignore[attr-defined]

    elapsed, threads = run_to_completion(many())
    assert elapsed < 0.6 and 4 <= threads <= min(32, (os.cpu_count() or 1) + 4)  # as a thread pool's


def test_a_call_cancelled_before_its_turn_never_runs() -> None:
    ran: list[int] = []

    async def cancelled() -> None:
        loop = asyncio.get_running_loop()
        threads = LoopThreads(loop, max_workers=1)
        blocker = threads.submit(lambda: time.sleep(0.2))
        queued = threads.submit(lambda: ran.append(1))
        queued.cancel()
        await blocker
        await asyncio.sleep(0.05)
        threads.shutdown(wait=True)

    run_to_completion(cancelled())
    assert ran == []


def test_a_coroutine_a_call_made_is_closed_at_shutdown_when_nobody_started_it() -> None:
    async def reply() -> str:
        return "never awaited"

    loop = new_loop()
    made = loop.run_until_complete(loop.run_in_executor(None, reply))
    loop.run_until_complete(loop.shutdown_default_executor())
    loop.close()
    with pytest.raises(RuntimeError, match="cannot reuse already awaited coroutine"):
        made.send(None)  # closed, not left to warn at exit


def test_an_executor_set_as_the_loops_default_is_the_one_used() -> None:
    from concurrent.futures import ThreadPoolExecutor

    async def named() -> str:
        return await asyncio.to_thread(lambda: threading.current_thread().name)

    loop = new_loop()
    loop.set_default_executor(ThreadPoolExecutor(thread_name_prefix="theirs"))
    try:
        assert loop.run_until_complete(named()).startswith("theirs")
    finally:
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
