"""The real HTTP path, offline: `openai/<model>` with `api_base` on a loopback server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from suite.contract.errors import MissingApiKey, ModelError
from suite.models import ModelClient, ResponseCache, RetryPolicy

PARAM_KEY = "sk-fake-PARAM-0123456789abcdef"
ENV_KEY = "sk-fake-ENV-fedcba9876543210"
MSGS = [{"role": "user", "content": "ping"}]


def test_openai_compatible_server_over_http(openai_server: Any, fast_retry: RetryPolicy) -> None:
    client = ModelClient(
        "openai/local-model",
        api_base=openai_server.api_base,
        api_key=PARAM_KEY,
        temperature=0.0,
        retry=fast_retry,
    )
    reply = asyncio.run(client.complete(MSGS, episode="e1", step=0))
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("pong", 7, 2)
    assert (reply.cost_usd, reply.cost_known) == (0.0, False)  # not in litellm's cost map
    sent = openai_server.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == f"Bearer {PARAM_KEY}"
    assert sent["body"] == {"model": "local-model", "messages": MSGS, "temperature": 0.0}  # no metadata sent


def test_known_model_is_priced_from_the_local_cost_map(openai_server: Any) -> None:
    client = ModelClient("openai/gpt-4o-mini", api_base=openai_server.api_base, api_key=PARAM_KEY)
    reply = asyncio.run(client.complete(MSGS))
    assert reply.cost_known and reply.cost_usd == pytest.approx(7 * 0.15e-6 + 2 * 0.6e-6)
    assert client.ledger.total.cost_usd == reply.cost_usd


def test_http_503_and_timeout_are_retried(openai_server: Any, fast_retry: RetryPolicy) -> None:
    openai_server.then(status=503).then(delay_s=1.0).then(text="finally")
    client = ModelClient(
        "openai/local-model", api_base=openai_server.api_base, api_key=PARAM_KEY, timeout=0.3
    )
    client.retry = fast_retry
    reply = asyncio.run(client.complete(MSGS))
    assert (reply.text, reply.attempts, len(openai_server.requests)) == ("finally", 3, 3)


def test_http_401_is_not_retried_and_hides_the_key(openai_server: Any, fast_retry: RetryPolicy) -> None:
    openai_server.then(status=401, error=f"Incorrect API key provided: {PARAM_KEY}")
    client = ModelClient(
        "openai/local-model", api_base=openai_server.api_base, api_key=PARAM_KEY, retry=fast_retry
    )
    with pytest.raises(ModelError) as err:
        asyncio.run(client.complete(MSGS))
    message = str(err.value)
    assert len(openai_server.requests) == 1
    assert "provider openai, status 401, AuthenticationError" in message and "Incorrect API key" in message
    assert PARAM_KEY not in message and "\n" not in message


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch, openai_server: Any) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MissingApiKey, match="OPENAI_API_KEY"):
        asyncio.run(ModelClient("openai/gpt-4o-mini").complete(MSGS))
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(MissingApiKey, match="GEMINI_API_KEY"):
        asyncio.run(ModelClient("gemini/gemini-2.5-flash").complete(MSGS))
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)  # from the environment: no error, the server sees it
    asyncio.run(ModelClient("openai/local-model", api_base=openai_server.api_base).complete(MSGS))
    assert openai_server.requests[-1]["auth"] == f"Bearer {ENV_KEY}"


def test_keys_never_reach_the_cache_file(
    monkeypatch: pytest.MonkeyPatch,
    openai_server: Any,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    path = tmp_path / "responses.sqlite"
    cache = ResponseCache(path)
    for api_key in (PARAM_KEY, None):
        extra = {"api_key": api_key} if api_key else {}
        client = ModelClient("openai/local-model", api_base=openai_server.api_base, cache=cache, **extra)
        reply = asyncio.run(client.complete(MSGS, episode="e"))
        assert PARAM_KEY not in repr(reply) and ENV_KEY not in repr(reply)
    assert len(openai_server.requests) == 1  # same request, same key: the second is a hit
    cache.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"pong" in stored
    for secret in (PARAM_KEY, ENV_KEY, "PARAM", "ENV-"):
        assert secret.encode() not in stored


@pytest.mark.filterwarnings("ignore:.*ReadOnly")  # pydantic, on litellm's ollama types
def test_missing_base_url_is_not_a_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_API_BASE", raising=False)  # litellm lists it, but ollama has a default URL
    client = ModelClient("ollama/llama3", api_base="http://127.0.0.1:9/", retry=RetryPolicy(attempts=1))
    with pytest.raises(ModelError, match="provider ollama"):  # connection refused on the discard port
        asyncio.run(client.complete(MSGS))
