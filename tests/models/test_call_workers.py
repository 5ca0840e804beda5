"""Model calls made in worker processes (`model.call_workers`): the same replies, failures, retries and accounting as
calls made on the run's loop, and a worker that dies or a call that is cancelled loses nothing."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite.contract.errors import ModelError
from suite.models import ModelClient, RetryPolicy, load_litellm, register_provider, register_script
from suite.models.call_workers import CallWorkers, auto_count, runs_anywhere
from suite.models.from_config import start_call_workers
from suite.models.retry import CallFailure, is_model_failure, is_transient, model_error

MSGS = [{"role": "user", "content": "hi"}]
FAST = RetryPolicy(attempts=4, base_s=0.01, max_s=0.02)


def _echo(messages: list[dict[str, Any]]) -> str:
    return "echo: " + messages[-1]["content"]


def _failing(messages: list[dict[str, Any]]) -> str:
    """Fails as the message asks; `flaky:<file>` fails until the file holds two marks (state kept in a file, so
    that the count is the same whichever process answers)."""
    litellm = load_litellm()
    text = messages[-1]["content"]
    if text == "400":
        raise litellm.BadRequestError("bad request", llm_provider="scripted", model="m")
    if text.startswith("flaky:"):
        path = Path(text.removeprefix("flaky:"))
        marks = path.read_text() if path.exists() else ""
        if len(marks) < 2:
            path.write_text(marks + "x")
            raise litellm.RateLimitError("slow down", llm_provider="scripted", model="m")
    return "ok"


@pytest.fixture(scope="module")
def workers() -> Any:
    register_script("cw-echo", _echo, any_process=True)
    register_script("cw-fail", _failing, any_process=True)
    register_script("cw-slow", _echo, latency_s=1.0, any_process=True)
    pool = CallWorkers(2)
    yield pool
    pool.close()


def _client(model: str, pool: CallWorkers | None, **kwargs: Any) -> ModelClient:
    client = ModelClient(model, retry=FAST, **kwargs)
    client.workers = pool
    return client


def _reply_fields(reply: Any) -> tuple[Any, ...]:
    return (reply.text, reply.prompt_tokens, reply.completion_tokens, reply.cost_usd, reply.cost_known,
            reply.finish_reason, reply.truncated_chars, reply.attempts, reply.request_hash)


def test_replies_equal_those_made_in_process(workers: CallWorkers) -> None:
    async def both(pool: CallWorkers | None) -> list[Any]:
        client = _client("scripted/cw-echo", pool, max_reply_chars=8)
        mock = _client("openai/gpt-4o-mini", pool, mock_response="a mocked reply", max_tokens=5)
        return [await client.complete([{"role": "user", "content": f"m{i}"}], episode="e", step=i)
                for i in range(3)] + [await mock.complete(MSGS)]

    here, there = asyncio.run(both(None)), asyncio.run(both(workers))
    assert [_reply_fields(r) for r in there] == [_reply_fields(r) for r in here]
    assert there[0].text == "echo: m0"[:8] and there[0].truncated_chars == 0 + len("echo: m0") - 8
    assert there[-1].text == "a mocked reply"


def test_failures_are_judged_and_retried_as_in_process(workers: CallWorkers, tmp_path: Path) -> None:
    async def run(pool: CallWorkers | None, mark: Path) -> tuple[Any, str]:
        client = _client("scripted/cw-fail", pool)
        retried = await client.complete([{"role": "user", "content": f"flaky:{mark}"}])
        with pytest.raises(ModelError) as failed:
            await client.complete([{"role": "user", "content": "400"}])
        return retried, str(failed.value)

    here, there = asyncio.run(run(None, tmp_path / "here")), asyncio.run(run(workers, tmp_path / "there"))
    assert (there[0].text, there[0].attempts) == (here[0].text, here[0].attempts) == ("ok", 3)
    assert there[1] == here[1]
    assert "BadRequestError" in there[1] and "after 1 attempt(s)" in there[1]


def test_a_failure_keeps_its_judgement_across_the_process_boundary() -> None:
    litellm = load_litellm()
    import pickle

    for exc, transient in ((litellm.RateLimitError("slow", llm_provider="p", model="m"), True),
                           (litellm.AuthenticationError("no key", llm_provider="p", model="m"), False),
                           (ValueError("a bug"), False)):
        judged = pickle.loads(pickle.dumps(CallFailure.judge(exc)))
        assert (is_transient(judged), is_model_failure(judged)) == (transient, is_model_failure(exc))
        assert str(judged) == str(exc) and judged.status_code == getattr(exc, "status_code", None)
        if is_model_failure(exc):
            assert str(model_error(judged, "m", "p", 1, [])) == str(model_error(exc, "m", "p", 1, []))


def test_a_worker_killed_mid_call_loses_no_call() -> None:
    pool = CallWorkers(1)
    try:
        async def run() -> Any:
            client = _client("scripted/cw-slow", pool)
            call = asyncio.ensure_future(client.complete([{"role": "user", "content": "survive"}]))
            await asyncio.sleep(0.3)
            os.kill(pool._workers[0].process.pid, signal.SIGKILL)
            return await asyncio.wait_for(call, 30)

        reply = asyncio.run(run())
        assert (reply.text, reply.attempts) == ("echo: survive", 2)  # the retry was made in this process
        assert pool.size == 0
    finally:
        pool.close()


def _pid(messages: list[dict[str, Any]]) -> str:
    return str(os.getpid())


def test_a_burst_of_first_calls_is_spread_over_the_workers() -> None:
    """A run's episodes all make their first call before any worker is connected to its loop: each call counts
    where it is going at once, so the burst is shared out instead of all going to the first worker."""
    register_script("cw-pid", _pid, latency_s=0.2, any_process=True)
    pool = CallWorkers(2)
    try:
        async def burst() -> list[str]:
            client = _client("scripted/cw-pid", pool, cache=None)
            replies = await asyncio.gather(*(client.complete(MSGS, episode=f"e{i}", step=0) for i in range(8)))
            return [r.text for r in replies]

        pids = asyncio.run(burst())
    finally:
        pool.close()
    assert sorted(pids.count(pid) for pid in set(pids)) == [4, 4]


def test_a_cancelled_call_leaves_the_worker_serving(workers: CallWorkers) -> None:
    async def run() -> Any:
        slow = _client("scripted/cw-slow", workers)
        call = asyncio.ensure_future(slow.complete([{"role": "user", "content": "cut"}]))
        await asyncio.sleep(0.2)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        return await _client("scripted/cw-echo", workers).complete(MSGS)

    assert asyncio.run(run()).text == "echo: hi"
    assert all(not w.pending for w in workers._workers)


def test_metadata_only_this_process_can_hold_is_answered_here(workers: CallWorkers) -> None:
    client = _client("scripted/cw-echo", workers)
    reply = asyncio.run(client.complete(MSGS, hints={"draw": lambda rng: "x"}))  # a lambda does not pickle
    assert reply.text == "echo: hi"


def test_calls_go_to_workers_only_for_models_that_answer_anywhere() -> None:
    register_script("cw-stateful", _echo)
    register_provider("cw-custom", load_litellm().CustomLLM())
    assert runs_anywhere("scripted/cw-echo") and runs_anywhere("openai/gpt-4o") and runs_anywhere("gpt-4o")
    assert not runs_anywhere("scripted/cw-stateful") and not runs_anywhere("cw-custom/m")
    assert not runs_anywhere("scripted/no-such-script")


def _cfg(**overrides: Any) -> Any:
    cfg = OmegaConf.create({"run": {"executor": "local", "concurrency": 8}, "model": {"call_workers": 1}})
    for key, value in overrides.items():
        OmegaConf.update(cfg, key.replace("__", "."), value)
    return cfg


def test_a_run_starts_workers_only_where_they_serve() -> None:
    clients = {"a": ModelClient("scripted/cw-echo"), "b": ModelClient("scripted/cw-stateful")}
    register_script("cw-stateful", _echo)
    assert start_call_workers(_cfg(run__executor="ray"), clients) is None
    assert start_call_workers(_cfg(run__concurrency=1, model__call_workers="auto"), clients) is None
    assert start_call_workers(_cfg(model__call_workers=0), clients) is None
    assert start_call_workers(_cfg(), {"b": clients["b"]}) is None
    pool = start_call_workers(_cfg(), clients)
    try:
        assert pool is not None and pool.size == 1
        assert clients["a"].workers is pool and clients["b"].workers is None
    finally:
        pool.close()
    assert all(w.process.exitcode is not None for w in pool._workers)
    one_at_a_time = start_call_workers(_cfg(run__concurrency=1), clients)  # a count given is obeyed
    assert one_at_a_time is not None
    one_at_a_time.close()


def test_auto_count_is_one_per_core_up_to_four(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert auto_count("auto") == 2 and auto_count(None) == 2 and auto_count(3) == 3 and auto_count(0) == 0
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert auto_count("auto") == 4
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert auto_count("auto") == 0


def test_close_ends_the_workers_by_themselves() -> None:
    pool = CallWorkers(2)
    pool.close()
    assert [w.process.exitcode for w in pool._workers] == [0, 0]  # not killed after close's wait (-9)


def test_a_wrong_setting_is_refused_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from suite.cli.main import main

    for bad in ("-1", "many", "2.5"):
        code = main(["run", "--plugins", "template", "--model", "scripted/cw-echo", "--out", str(tmp_path / bad),
                     "--no-report", f"model.call_workers={bad}"])
        assert code == 2 and "model.call_workers" in capsys.readouterr().err
        assert not (tmp_path / bad).exists()


def test_a_run_with_call_workers_stores_what_a_run_without_them_does(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from suite.cli.main import main
    from suite.store.run_folder import RunStore
    from suite_template.plugin import greedy_reply

    register_script("cw-greedy", greedy_reply, latency_s=0.01, any_process=True)
    common = ["run", "--plugins", "template", "--model", "scripted/cw-greedy", "--limit", "8", "--concurrency", "4",
              "--no-report", "model.cache=false"]
    for workers in ("0", "2"):
        assert main([*common, "--out", str(tmp_path / workers), f"model.call_workers={workers}"]) == 0
        said = "model calls made in 2 worker process(es)" in capsys.readouterr().err
        assert said == (workers == "2")

    def stored(root: Path) -> list[dict[str, Any]]:
        drop = {"duration_s", "agent_s", "env_s", "latency_s"}
        return [{k: v for k, v in r.items() if k not in drop} for r in RunStore(root).records()]

    assert stored(tmp_path / "2") == stored(tmp_path / "0") and len(stored(tmp_path / "0")) == 8


def test_a_run_whose_workers_cannot_start_makes_its_calls_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork(self: Any, count: int) -> None:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(CallWorkers, "__init__", no_fork)
    clients = {"a": ModelClient("scripted/cw-echo")}
    with pytest.warns(UserWarning, match="no worker process started"):
        assert start_call_workers(_cfg(), clients) is None
    assert clients["a"].workers is None


def test_a_run_whose_call_worker_is_killed_mid_run_loses_and_mischarges_nothing(tmp_path: Path) -> None:
    """Every episode finishes once with the outcome an undisturbed run gives it: the killed worker's calls in flight
    are retried (by the other worker), never an infra failure nor an agent failure."""
    import multiprocessing
    import threading

    from run_processes import finished
    from suite.cli.main import main
    from suite.store.run_folder import RunStore
    from suite_template.plugin import greedy_reply

    register_script("cw-greedy-slow", greedy_reply, latency_s=0.1, any_process=True)
    common = ["run", "--plugins", "template", "--model", "scripted/cw-greedy-slow", "--limit", "8", "--concurrency",
              "4", "--no-report", "model.cache=false", "model.retries=3", "model.backoff_base_s=0.05",
              "model.call_workers=2"]
    killed: list[int] = []

    def kill_one_worker_mid_run(root: Path) -> None:
        while finished(root) < 1:
            time.sleep(0.02)
        workers = [p for p in multiprocessing.active_children() if p.name.startswith("suite-model-calls")]
        os.kill(workers[0].pid, signal.SIGKILL)
        killed.append(finished(root))

    calm, disturbed = tmp_path / "calm", tmp_path / "disturbed"
    assert main([*common, "--out", str(calm)]) == 0
    killer = threading.Thread(target=kill_one_worker_mid_run, args=(disturbed,), daemon=True)
    killer.start()
    assert main([*common, "--out", str(disturbed)]) == 0
    killer.join(10)
    assert killed and killed[0] < 8, "the kill must land mid-run"

    def outcomes(root: Path) -> dict[str, tuple[str, int, int]]:
        return {r["episode_id"]: (r["outcome"], r["steps"], r["prompt_tokens"]) for r in RunStore(root).records()}

    assert outcomes(disturbed) == outcomes(calm) and len(outcomes(calm)) == 8
    assert RunStore(disturbed).counts() == {"done": 8}
