"""A run whose first episodes all fail with one permanent model error, or never reach the server, stops, exit 4
(issue 11 item 4c, issue 20 item 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.contract.records import EpisodeRecord
from suite.engine.failfast import FirstFailures, fatal_cause, permanent_cause, unreachable_cause
from suite.models import load_litellm, register_script
from suite.models.retry import NEVER_REACHED
from suite.store.run_folder import RunStore
from suite_template.plugin import greedy_reply

FAST = ["model.retries=1", "model.backoff_base_s=0.01", "model.backoff_max_s=0.02", "model.cache=false"]


def test_a_rejected_key_stops_the_run_and_leaves_the_rest_pending(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    key = {"valid": False}

    def provider(messages: list[dict[str, Any]]) -> str:
        """Rejects the key until it is fixed, then answers as the greedy baseline."""
        if not key["valid"]:
            raise load_litellm().AuthenticationError("Incorrect API key provided: sk-****", llm_provider="scripted",
                                                     model="keyed")
        return greedy_reply(messages)

    register_script("keyed", provider)
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--model", "scripted/keyed", "--concurrency", "1", "--out",
                 str(out), *FAST]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("stopped: the first 3 episode(s) all failed with one model error that no retry fixes "
                              "(status 401, AuthenticationError: ")
    assert "9 episode(s) not run stay pending" in err[-1] and f"--resume {out} --retry-infra" in err[-1]
    store = RunStore(out)
    assert store.counts() == {"done": 3, "pending": 9}
    assert store.meta()["status"] == "stopped" and "AuthenticationError" in store.meta()["stop_cause"]
    store.close()

    key["valid"] = True
    assert main(["run", "--resume", str(out), "--retry-infra", "--no-report"]) == 0
    records = RunStore(out).records()
    assert len(records) == 12 and all(r["outcome"] == "success" for r in records)


def test_a_run_of_one_episode_with_a_permanent_error_does_not_exit_0(tmp_path: Path) -> None:
    def missing(messages: list[dict[str, Any]]) -> str:
        raise load_litellm().NotFoundError("The model does not exist", llm_provider="scripted", model="gone")

    register_script("gone", missing)
    assert main(["run", "--plugins", "template", "--model", "scripted/gone", "--tasks", "c01", "--out",
                 str(tmp_path / "r"), "--no-report", *FAST]) == 4


def test_transient_and_mixed_failures_let_the_run_go_on(tmp_path: Path) -> None:
    def flaky(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        """c00 and c01 meet a rate limit that outlasts the retries; the others answer."""
        if metadata["episode"] in ("counter/c00", "counter/c01"):
            raise load_litellm().RateLimitError("slow down", llm_provider="scripted", model="flaky")
        return greedy_reply(messages)

    register_script("flaky", flaky)
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--model", "scripted/flaky", "--concurrency", "1",
                 "--tasks", "c00,c01,c02,c03", "--out", str(out), "--no-report", *FAST]) == 5  # infra failures
    assert RunStore(out).counts() == {"done": 4}


def _record(outcome: str, reason: str | None) -> EpisodeRecord:
    return EpisodeRecord(episode_id="b/t", benchmark="b", task_id="t", task_category=None, agent="direct", model="m",
                         seed=0, outcome=outcome, failure_category=None, failure_reason=reason, metrics={}, steps=0,
                         end_reason=outcome if outcome == "model_error" else "done", prompt_tokens=0,
                         completion_tokens=0, cost_usd=0.0, duration_s=0.0, trace="t", data_source="x")


def _error(status: int, kind: str, text: str) -> EpisodeRecord:
    return _record("model_error", f"model m failed after 1 attempt(s): provider p, status {status}, {kind}: {text}")


def test_only_the_same_permanent_error_in_every_first_episode_stops() -> None:
    rejected = _error(401, "AuthenticationError", "bad key")
    assert permanent_cause(rejected) == "status 401, AuthenticationError: bad key"
    for transient in (_error(429, "RateLimitError", "x"), _error(503, "ServiceUnavailableError", "x"),
                      _error(408, "Timeout", "x"), _record("agent_failure", "status 401, X: y")):
        assert permanent_cause(transient) is None
    watch = FirstFailures(planned=10)
    assert [watch.observe(rejected) for _ in range(4)] == [
        None, None, "one model error that no retry fixes (status 401, AuthenticationError: bad key)", None]
    mixed = FirstFailures(planned=10)
    assert [mixed.observe(r) for r in (rejected, _error(404, "NotFoundError", "no model"), rejected)] == [None] * 3
    late = FirstFailures(planned=10)
    assert [late.observe(r) for r in (_record("success", None), rejected, rejected, rejected)] == [None] * 4
    assert FirstFailures(planned=2).needed == 2 and FirstFailures(planned=0).needed == 1


def test_a_model_server_that_refuses_every_connection_stops_the_run(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A loopback port where nothing listens: every call is refused, whatever the retries; the run stops."""
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--model", "openai/x", "model.params.api_key=sk-test",
                 "model.params.api_base=http://127.0.0.1:9/v1", "--concurrency", "1", "--out", str(out),
                 *FAST]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("stopped: the first 3 episode(s) all failed with one connection error after every "
                              "retry: the model's server was never reached (")
    assert f"--resume {out} --retry-infra" in err[-1]
    store = RunStore(out)
    assert store.counts() == {"done": 3, "pending": 9} and store.status() == "stopped"
    assert all(r["failure_reason"].endswith(NEVER_REACHED) for r in store.records())


def test_connection_errors_decide_only_when_the_same_in_every_first_episode() -> None:
    refused = _record("model_error", "model m failed after 6 attempt(s): provider p, status 500, InternalServerError: "
                                     "Connection error." + NEVER_REACHED)
    dns = _record("model_error", "model m failed after 6 attempt(s): provider gemini, status 500, APIConnectionError: "
                                 "Cannot connect to host h:443 ssl:<ssl.SSLContext object at 0x7f6f26417c80> [Name or "
                                 "service not known]" + NEVER_REACHED)
    dns_again = _record("model_error", dns.failure_reason.replace("0x7f6f26417c80", "0x7f0000000001"))
    assert unreachable_cause(refused) == "InternalServerError: Connection error."
    assert permanent_cause(refused) is None and fatal_cause(_error(503, "ServiceUnavailableError", "x")) is None
    watch = FirstFailures(planned=5)
    assert [watch.observe(r) for r in (dns, dns_again, dns)][-1].startswith("one connection error after every retry")
    mixed = FirstFailures(planned=5)
    assert [mixed.observe(r) for r in (dns, refused, dns)] == [None] * 3
