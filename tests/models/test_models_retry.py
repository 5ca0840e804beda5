"""Retries on 429, 5xx, timeouts and connection errors; one clear ModelError otherwise."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from suite.contract.errors import ModelError
from suite.models import ModelClient, RetryPolicy, load_litellm, register_provider

MSGS = [{"role": "user", "content": "hi"}]


def _flaky(failures: list[Exception]) -> Any:
    """A CustomLLM that raises the given exceptions in turn, then answers "ok"."""
    litellm = load_litellm()

    class Flaky(litellm.CustomLLM):
        calls = 0

        async def acompletion(self, *args: Any, model_response: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            type(self).calls += 1
            if failures:
                raise failures.pop(0)
            model_response.choices[0].message.content = "ok"
            return model_response

    handler = Flaky()
    register_provider("flaky", handler)
    return handler


def _errors(kind: str, n: int) -> list[Exception]:
    litellm = load_litellm()
    count = itertools.count()  # a 500 repeating its body stops the retries: these differ (test_models_local)
    make = {
        "429": lambda: litellm.RateLimitError("slow down", llm_provider="flaky", model="m"),
        "503": lambda: litellm.ServiceUnavailableError("down", llm_provider="flaky", model="m"),
        "500": lambda: litellm.InternalServerError(f"boom {next(count)}", llm_provider="flaky", model="m"),
        "timeout": lambda: litellm.Timeout("too slow", model="m", llm_provider="flaky"),
        "connection": lambda: litellm.APIConnectionError("refused", llm_provider="flaky", model="m"),
        "401": lambda: litellm.AuthenticationError(
            "bad key sk-abcdefghijklmnop", llm_provider="flaky", model="m"
        ),
        "400": lambda: litellm.BadRequestError("bad request", llm_provider="flaky", model="m"),
    }[kind]
    return [make() for _ in range(n)]


@pytest.mark.parametrize("kind", ["429", "503", "500", "timeout", "connection"])
def test_transient_errors_are_retried_then_succeed(kind: str, fast_retry: RetryPolicy) -> None:
    handler = _flaky(_errors(kind, 2))
    reply = asyncio.run(ModelClient("flaky/m", retry=fast_retry).complete(MSGS))
    assert (reply.text, reply.attempts, handler.calls) == ("ok", 3, 3)


@pytest.mark.parametrize("kind", ["401", "400"])
def test_client_errors_are_not_retried(kind: str, fast_retry: RetryPolicy) -> None:
    handler = _flaky(_errors(kind, 1))
    with pytest.raises(ModelError) as err:
        asyncio.run(ModelClient("flaky/m", retry=fast_retry).complete(MSGS))
    assert handler.calls == 1 and err.value.attempts == 1 and err.value.status == int(kind)
    assert "sk-abcdefghijklmnop" not in str(err.value)


def test_last_retry_raises_one_line_model_error(fast_retry: RetryPolicy) -> None:
    handler = _flaky(_errors("429", 10))
    with pytest.raises(ModelError) as err:
        asyncio.run(ModelClient("flaky/m", retry=fast_retry).complete(MSGS))
    message = str(err.value)
    assert handler.calls == fast_retry.attempts
    assert "\n" not in message
    assert message == (
        "model flaky/m failed after 4 attempt(s): provider flaky, status 429, RateLimitError: slow down"
    )
    assert err.value.__cause__ is None and err.value.__context__ is None  # nothing that could hold a key


def test_backoff_is_exponential_and_capped() -> None:
    policy = RetryPolicy(attempts=5, base_s=1.0, max_s=3.0)
    waits = []
    for attempt in range(1, 5):
        state = type("State", (), {"attempt_number": attempt})()
        waits.append(policy.retrying().wait(state))  # type: ignore[arg-type]
    assert 1.0 <= waits[0] <= 2.0 and 2.0 <= waits[1] <= 3.0 and waits[2] == waits[3] == 3.0
