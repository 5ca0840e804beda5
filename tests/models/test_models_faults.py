"""Malformed model replies: an empty `choices` list is a model fault; any text a model returns is kept."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from suite.contract.errors import ModelError
from suite.models import ModelClient, ResponseCache, RetryPolicy

MSGS = [{"role": "user", "content": "ping"}]
KEY = "sk-fake-0123456789abcdef"
EMPTY_CHOICES = json.dumps({
    "id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [],
    "usage": {"prompt_tokens": 7, "completion_tokens": 0, "total_tokens": 7},
})


def _reply_body(content: str) -> str:
    """A chat completion whose content is given as raw JSON text (so escapes reach the client as sent)."""
    return (
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, '
        f'"message": {{"role": "assistant", "content": {content}}}, "finish_reason": "stop"}}], '
        '"usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}}'
    )


def _client(server: Any, retry: RetryPolicy, **kwargs: Any) -> ModelClient:
    return ModelClient("openai/local-model", api_base=server.api_base, api_key=KEY, retry=retry, **kwargs)


def test_empty_choices_are_retried_as_a_model_fault(openai_server: Any, fast_retry: RetryPolicy) -> None:
    openai_server.then(body=EMPTY_CHOICES).then(text="finally")
    reply = asyncio.run(_client(openai_server, fast_retry).complete(MSGS))
    assert (reply.text, reply.attempts, len(openai_server.requests)) == ("finally", 2, 2)


def test_empty_choices_every_time_end_as_a_model_error(openai_server: Any, fast_retry: RetryPolicy) -> None:
    for _ in range(fast_retry.attempts):
        openai_server.then(body=EMPTY_CHOICES)
    with pytest.raises(ModelError, match=r"failed after 4 attempt\(s\).*no choices"):
        asyncio.run(_client(openai_server, fast_retry).complete(MSGS))
    assert len(openai_server.requests) == fast_retry.attempts


def test_a_lone_surrogate_is_kept_as_text_that_can_be_stored(
    openai_server: Any, fast_retry: RetryPolicy, tmp_path: Path
) -> None:
    """JSON may escape half a surrogate pair (`"\\ud800"`): the reply keeps every other character and the cache,
    SQLite and UTF-8 files take it."""
    openai_server.then(body=_reply_body(r'"Action: \ud800 FIND Apple \udfff"'))
    cache = ResponseCache(tmp_path / "c.sqlite")
    reply = asyncio.run(_client(openai_server, fast_retry, cache=cache).complete(MSGS))
    assert reply.text == "Action: \ufffd FIND Apple \ufffd"
    reply.text.encode("utf-8")  # storable anywhere
    again = asyncio.run(_client(openai_server, fast_retry, cache=cache).complete(MSGS))
    assert (again.cached, again.text) == (True, reply.text)
    cache.close()  # commits what the writer thread has not yet
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        assert db.execute("SELECT count(*) FROM replies").fetchone() == (1,)


def test_an_episode_whose_replies_have_no_choices_ends_as_a_model_error(openai_server: Any, tmp_path: Path) -> None:
    from suite.cli.main import main
    from suite.store.run_folder import RunStore

    for _ in range(2):
        openai_server.then(body=EMPTY_CHOICES)
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--tasks", "c02", "--model", "openai/local-model", "--no-report",
                 "--out", str(out), f"model.params.api_base={openai_server.api_base}",
                 f"model.params.api_key={KEY}", "model.retries=1", "model.backoff_base_s=0.001"]) == 5  # infra failure
    [record] = RunStore(out).records()
    assert (record["outcome"], record["end_reason"]) == ("model_error", "model_error")
    assert "no choices" in record["failure_reason"] and len(openai_server.requests) == 2


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@pytest.mark.parametrize("body", ["{not json", '{"choices": "x"}', "<html>bad gateway</html>", '{"id": 3}'])
def test_a_malformed_200_gets_every_configured_attempt(
    openai_server: Any, fast_retry: RetryPolicy, body: str
) -> None:
    """litellm reports an unreadable 200 as a 500 with the same message each time; that is a transient model fault,
    not a server repeating its error (issue 20 item 10): every attempt is made, then a model error."""
    for _ in range(fast_retry.attempts):
        openai_server.then(body=body)
    with pytest.raises(ModelError, match=rf"failed after {fast_retry.attempts} attempt\(s\)"):
        asyncio.run(_client(openai_server, fast_retry).complete(MSGS))
    assert len(openai_server.requests) == fast_retry.attempts


def test_a_malformed_200_then_a_good_reply_succeeds(openai_server: Any, fast_retry: RetryPolicy) -> None:
    openai_server.then(body="{not json").then(body="{not json").then(text="finally")
    reply = asyncio.run(_client(openai_server, fast_retry).complete(MSGS))
    assert (reply.text, reply.attempts, len(openai_server.requests)) == ("finally", 3, 3)
