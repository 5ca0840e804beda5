"""The SQLite response cache: hits skip the model, survive new instances and processes, hold no secrets."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from suite.models import (
    CostLedger,
    ModelClient,
    ModelReply,
    ResponseCache,
    default_cache_path,
    register_script,
    request_hash,
)
from suite.models.cache import key_params

MSGS = [{"role": "user", "content": "same question"}]


def test_hit_makes_no_second_call_and_survives_a_new_cache(tmp_path: Path) -> None:
    script = register_script("t-cached", lambda messages: "answer")
    path = tmp_path / "responses.sqlite"
    ledger = CostLedger()
    first = asyncio.run(
        ModelClient("scripted/t-cached", cache=ResponseCache(path), ledger=ledger).complete(MSGS)
    )
    again = asyncio.run(
        ModelClient("scripted/t-cached", cache=ResponseCache(path), ledger=ledger).complete(MSGS)
    )
    assert script.calls == 1
    assert (first.cached, again.cached, again.text, again.attempts, again.cost_usd) == (
        False,
        True,
        "answer",
        0,
        0.0,
    )
    assert again.request_hash == first.request_hash
    assert (again.prompt_tokens, again.completion_tokens) == (first.prompt_tokens, first.completion_tokens)
    assert (ledger.total.calls, ledger.total.cached_calls) == (2, 1)


def test_params_that_change_the_output_change_the_key(tmp_path: Path) -> None:
    script = register_script("t-keyed", lambda messages: "answer")
    cache = ResponseCache(tmp_path / "c.sqlite")

    async def run() -> None:
        await ModelClient("scripted/t-keyed", cache=cache, temperature=0.0).complete(MSGS)
        await ModelClient("scripted/t-keyed", cache=cache, temperature=0.7).complete(MSGS)
        await ModelClient("scripted/t-keyed", cache=cache, temperature=0.7, timeout=5).complete(
            MSGS
        )  # same key
        await ModelClient("scripted/t-keyed", cache=None, temperature=0.7).complete(MSGS)  # disabled

    asyncio.run(run())
    assert script.calls == 3


def test_key_params_drop_credentials_and_url_secrets() -> None:
    params = {
        "temperature": 0.2,
        "max_tokens": 64,
        "api_key": "sk-secret",
        "aws_secret_access_key": "x",
        "azure_ad_token": "y",
        "extra_headers": {"Authorization": "Bearer z"},
        "extra_body": {"top_k": 5, "access_token": "t"},
        "api_base": "https://user:pw@host.example:8443/v1?key=abc#frag",
        "timeout": 30,
        "metadata": {"episode": "e"},
    }
    assert key_params(params) == {
        "temperature": 0.2,
        "max_tokens": 64,
        "extra_body": {"top_k": 5},
        "api_base": "https://host.example:8443/v1",
    }


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.sampled_from(["temperature", "top_p", "seed", "max_tokens"]), st.integers(0, 9)))
def test_request_hash_ignores_key_order(params: dict[str, int]) -> None:
    message = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    flipped = {"content": [{"text": "hi", "type": "text"}], "role": "user"}
    assert request_hash("m", [message], params) == request_hash(
        "m", [flipped], dict(reversed(params.items()))
    )
    assert request_hash("m", [message], params) != request_hash("m", [message], {**params, "n": 2})


def test_default_location_follows_suite_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SUITE_CACHE_DIR", str(tmp_path))
    assert default_cache_path() == tmp_path / "responses.sqlite"
    monkeypatch.delenv("SUITE_CACHE_DIR")
    assert default_cache_path() == Path.home() / ".cache" / "embodied-suite" / "responses.sqlite"


WRITER = """
import sys
from concurrent.futures import ThreadPoolExecutor
from suite.models import ModelReply, ResponseCache
cache = ResponseCache(sys.argv[1])
for i in range(150):
    key = f"{sys.argv[2]}-{i}"
    cache.put(key, ModelReply(key, 1, 2, 0.0, False, 0.0, key, 1, "m"))
    assert cache.get(f"{sys.argv[2]}-{i // 2}") is not None
"""


def test_several_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    ResponseCache(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"p{n}"]) for n in range(3)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM replies").fetchone()[0] == 450
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_threads_share_one_cache(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "threads.sqlite")

    def work(n: int) -> int:
        for i in range(100):
            key = f"t{n}-{i}"
            cache.put(key, ModelReply(key, 1, 2, 0.0, False, 0.0, key, 1, "m"))
        return sum(cache.get(f"t{n}-{i}") is not None for i in range(100))

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(work, range(4))) == [100] * 4
    cache.close()


def test_the_position_of_a_request_is_part_of_its_key(tmp_path: Path) -> None:
    """Repeats, steps and calls within a step are distinct samples; the same position again is a hit."""
    script = register_script("t-position", lambda messages: f"sample {script.calls}")
    path = tmp_path / "c.sqlite"

    async def episode(client: ModelClient, eid: str) -> list[str]:
        texts = []
        for step in range(2):
            for _ in range(2):  # an agent asking twice per step with the same prompt
                texts.append((await client.complete(MSGS, episode=eid, step=step)).text)
        return texts

    async def run() -> list[list[str]]:
        client = ModelClient("scripted/t-position", cache=ResponseCache(path))
        return [await episode(client, eid) for eid in ("b/t1 #1", "b/t1 #2")]

    first = asyncio.run(run())
    assert script.calls == 8 and len({t for texts in first for t in texts}) == 8
    again = asyncio.run(run())  # a re-run of the same run: every request from the cache
    assert script.calls == 8 and again == first


def test_a_changed_script_is_not_served_its_old_replies(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")

    async def ask() -> str:
        return (await ModelClient("scripted/t-changed", cache=cache).complete(MSGS, episode="e", step=0)).text

    register_script("t-changed", lambda messages: "old")
    assert asyncio.run(ask()) == "old" and asyncio.run(ask()) == "old"
    register_script("t-changed", lambda messages: "new")
    assert asyncio.run(ask()) == "new"


SCRIPTED_RUN = """
import asyncio, sys
from suite.models import ModelClient, ResponseCache, register_script
script = register_script("t-process", lambda messages: "reply")
client = ModelClient("scripted/t-process", cache=ResponseCache(sys.argv[1]))
reply = asyncio.run(client.complete([{"role": "user", "content": "q"}], episode="e", step=0))
print(reply.cached, script.calls)
"""


def test_scripted_replies_are_not_cached_across_processes(tmp_path: Path) -> None:
    """A script's function may change between processes: its replies are never served to another process."""
    path = str(tmp_path / "c.sqlite")
    runs = [subprocess.run([sys.executable, "-c", SCRIPTED_RUN, path], capture_output=True, text=True, timeout=120)
            for _ in range(2)]
    assert [r.stdout.split() for r in runs] == [["False", "1"], ["False", "1"]], runs[-1].stderr


def test_a_long_reply_is_cut_and_says_so(tmp_path: Path) -> None:
    register_script("t-long", lambda messages: "ACTION: +1 " + "x" * 989)
    cache = ResponseCache(tmp_path / "c.sqlite")

    async def ask(cap: int | None) -> ModelReply:
        return await ModelClient("scripted/t-long", cache=cache, max_reply_chars=cap).complete(MSGS, episode="e")

    cut = asyncio.run(ask(100))
    assert (cut.text, cut.truncated_chars) == ("ACTION: +1 " + "x" * 89, 900)
    hit = asyncio.run(ModelClient("scripted/t-long", cache=cache, max_reply_chars=100).complete(MSGS, episode="e"))
    assert (hit.cached, hit.text, hit.truncated_chars) == (True, cut.text, 900)
    whole = asyncio.run(ask(None))  # another cap is another request: not served the cut reply
    assert (whole.cached, len(whole.text), whole.truncated_chars) == (False, 1000, 0)


def test_runs_keep_their_own_replies_and_share_them_only_across_runs(tmp_path: Path) -> None:
    """A run reads back its own reply to a request even after another run stored a different one; a third run
    reads another run's (the latest) only with `across_runs`, marked as an earlier run's."""
    from suite.models import ModelReply

    path = tmp_path / "c.sqlite"
    first, second = ResponseCache(path, run="a"), ResponseCache(path, run="b")
    first.put("k", ModelReply("from a", 1, 1, 0.0, False, 0.0, "k", 1, "m"))
    assert second.get("k") is None  # not without --cache
    second.put("k", ModelReply("from b", 1, 1, 0.0, False, 0.0, "k", 1, "m"))
    own = first.get("k")
    assert own is not None and own.text == "from a" and not own.earlier_run
    shared = ResponseCache(path, run="c", across_runs=True).get("k")
    assert shared is not None and shared.text == "from b" and shared.earlier_run
    assert ResponseCache(path, run="c").get("k") is None
