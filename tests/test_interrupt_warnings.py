"""Ctrl-C leaves no coroutine unawaited: no `RuntimeWarning: coroutine ... was never awaited` (issue 20 item 18)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import time
import warnings
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from run_processes import interrupt, start_suite, wait_finished
from suite.models.event_loops import run_to_completion as run_async


def test_a_coroutine_made_in_a_worker_thread_whose_await_was_cancelled_is_closed() -> None:
    """What litellm's acompletion does: its executor call returns the provider's coroutine; a cut-off run cancels
    the await while the thread is still making it."""

    def make_in_a_thread() -> Coroutine[Any, Any, str]:
        time.sleep(0.2)

        async def request() -> str:
            return "reply"

        return request()

    async def cut_off() -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(loop.run_in_executor(None, make_in_a_thread), 0.01)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_async(cut_off())
        gc.collect()
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []


def test_awaited_executor_results_still_arrive() -> None:
    async def both() -> tuple[int, str]:
        loop = asyncio.get_running_loop()

        async def reply() -> str:
            return "ok"

        made = await loop.run_in_executor(None, reply)
        return await loop.run_in_executor(None, lambda: 7), await made

    assert run_async(both()) == (7, "ok")


def test_ctrl_c_during_model_calls_prints_no_never_awaited_warning(tmp_path: Path) -> None:
    for attempt in range(3):  # the race is in flight model calls at the signal: try a few times
        out = tmp_path / f"r{attempt}"
        env = {**os.environ, "COUNTER_LATENCY_S": "0.1"}
        proc = start_suite(["run", "--plugins", "template", "--no-report", "--model", "scripted/counter-greedy",
                            "model.cache=false", "--concurrency", "4", "--out", str(out)], env)
        wait_finished(proc, out, 2)
        err = interrupt(proc)
        assert proc.returncode == 130, err[-500:]
        assert "never awaited" not in err and "RuntimeWarning" not in err, err[-1500:]


def test_litellms_dispatch_of_an_async_call_runs_on_the_loop_and_simulator_calls_in_threads() -> None:
    """`acompletion` hands its synchronous `completion` (which only builds the request and returns the provider's
    coroutine) to the default executor: the suite's runs it at once (no thread hop per model call); everything
    else still runs in a worker thread."""
    import threading

    from suite.models import ModelClient, register_script

    register_script("dispatch-probe", lambda messages: "ok")

    async def both() -> tuple[str, int, str, int]:
        executor = asyncio.get_running_loop()._threads  # type: ignore[attr-defined]  # its LoopThreads
        text = (await ModelClient("scripted/dispatch-probe").complete([{"role": "user", "content": "hi"}])).text
        threads_after_call = len(executor._threads)
        simulator = await asyncio.to_thread(lambda: threading.current_thread().name)
        return text, threads_after_call, simulator, len(executor._threads)

    text, after_call, simulator_thread, after_simulator = run_async(both())
    assert (text, after_call, after_simulator) == ("ok", 0, 1)
    assert simulator_thread != threading.current_thread().name


class _Suspensions:
    """Awaits a coroutine and counts how often it suspended (gave the event loop back)."""

    def __init__(self, coro: Coroutine[Any, Any, Any]) -> None:
        self.coro, self.count = coro, 0

    def __await__(self) -> Any:
        it = self.coro.__await__()
        try:
            waiting = it.send(None)
            while True:
                self.count += 1
                waiting = it.send((yield waiting))
        except StopIteration as stop:
            return stop.value


def test_a_model_call_that_answers_at_once_never_gives_the_loop_back() -> None:
    """Each suspension makes a call wait for every other ready episode's work, which keeps concurrent episodes in
    lockstep: a zero-latency model call through litellm must not suspend at all on the suite's loops (the run's,
    the model-call workers' and the Ray actors' `new_loop`)."""
    from suite.models import ModelClient, register_script
    from suite.models.event_loops import SuiteEventLoop, new_loop

    register_script("suspension-probe", lambda messages: "ok")
    client = ModelClient("scripted/suspension-probe")

    async def counted() -> tuple[str, int, bool]:
        call = _Suspensions(client.complete([{"role": "user", "content": "hi"}], episode="e", step=0))
        reply = await call
        return reply.text, call.count, isinstance(asyncio.get_running_loop(), SuiteEventLoop)

    assert run_async(counted()) == ("ok", 0, True)
    loop = new_loop()
    try:
        assert isinstance(loop, SuiteEventLoop)
        assert loop.run_until_complete(counted()) == ("ok", 0, True)
    finally:
        loop.close()
