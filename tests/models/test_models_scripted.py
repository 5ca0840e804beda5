"""Scripted models and mock_response, end to end through litellm.acompletion."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from suite.contract.errors import ModelError
from suite.models import ModelClient, RetryPolicy, get_script, load_litellm, register_replay, register_script

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def test_scripted_model_goes_through_litellm() -> None:
    seen: list[Any] = []

    def script(messages: list[dict[str, Any]]) -> str:
        seen.append(messages)
        return "move north"

    register_script("t-echo", script)
    messages = [{"role": "user", "content": [{"type": "text", "text": "where?"}, IMAGE]}]
    reply = asyncio.run(ModelClient("scripted/t-echo").complete(messages))
    assert reply.text == "move north"
    assert (reply.cached, reply.attempts, reply.cost_usd, reply.cost_known) == (False, 1, 0.0, True)
    assert reply.prompt_tokens > 765 and reply.completion_tokens == 3  # image part counted, text estimated
    assert seen == [messages]  # image parts reach the script unchanged
    direct = asyncio.run(load_litellm().acompletion(model="scripted/t-echo", messages=messages))
    assert direct.choices[0].message.content == "move north"
    assert get_script("t-echo").calls == 2


def test_async_script_with_latency_and_metadata() -> None:
    async def script(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return f"{metadata['episode']}:{metadata['step']}"

    register_script("t-meta", script, latency_s=0.05)
    reply = asyncio.run(
        ModelClient("scripted/t-meta").complete([{"role": "user", "content": "x"}], episode="ep", step=3)
    )
    assert reply.text == "ep:3"
    assert reply.latency_s >= 0.05


def test_replay_serves_recorded_replies_per_episode() -> None:
    replay = register_replay({"a": ["a0", "a1"], "b": ["b0", None]})
    client = ModelClient("scripted/replay")

    async def run() -> list[str]:
        msgs = [{"role": "user", "content": "x"}]
        return [
            (await client.complete(msgs, episode="a")).text,
            (await client.complete(msgs, episode="b")).text,
            (await client.complete(msgs, episode="a")).text,
            (await client.complete(msgs, episode="a", step=0)).text,
        ]

    assert asyncio.run(run()) == ["a0", "b0", "a1", "a0"]
    assert replay({}, {"episode": "a", "step": 1}) == "a1"
    with pytest.raises(ModelError, match=r"status 400.*no recorded reply for episode 'b' step 1") as err:
        asyncio.run(client.complete([{"role": "user", "content": "x"}], episode="b", step=1))
    assert err.value.attempts == 1  # a script error is not retried


def test_unknown_script_and_script_bug_are_not_retried(fast_retry: RetryPolicy) -> None:
    calls = 0

    def broken(messages: list[dict[str, Any]]) -> str:
        nonlocal calls
        calls += 1
        raise ZeroDivisionError("oops")

    register_script("t-broken", broken)
    with pytest.raises(ModelError, match="ZeroDivisionError: oops"):
        asyncio.run(
            ModelClient("scripted/t-broken", retry=fast_retry).complete([{"role": "user", "content": "x"}])
        )
    assert calls == 1
    with pytest.raises(ModelError, match="no script registered as 'scripted/t-missing'"):
        asyncio.run(ModelClient("scripted/t-missing").complete([{"role": "user", "content": "x"}]))


def test_mock_response_passes_straight_to_litellm(
    monkeypatch: pytest.MonkeyPatch, fast_retry: RetryPolicy
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a mock needs no key
    client = ModelClient("openai/gpt-4o-mini", mock_response="mocked reply", temperature=0.0)
    reply = asyncio.run(client.complete([{"role": "user", "content": "hi"}]))
    assert reply.text == "mocked reply"
    assert reply.prompt_tokens > 0 and reply.cost_usd == 0.0  # mocks are free even for a priced model
    rate_limited = ModelClient("openai/gpt-4o-mini", mock_response="litellm.RateLimitError", retry=fast_retry)
    with pytest.raises(ModelError, match="status 429") as err:
        asyncio.run(rate_limited.complete([{"role": "user", "content": "hi"}]))
    assert err.value.attempts == fast_retry.attempts
