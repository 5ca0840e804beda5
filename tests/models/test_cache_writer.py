"""The response cache's write-behind: puts are readable at once, committed by a thread, at close and at exit."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from suite.models import ModelClient, ModelReply, ResponseCache, cache_writer, register_script
from suite.models.cache_writer import FLUSH_AFTER_S, ROWS_PER_INSERT, CacheWriter


def _reply(text: str) -> ModelReply:
    return ModelReply(text, 1, 2, 0.0, False, 0.0, text, 1, "m")


def _rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM replies").fetchone()[0]


def test_a_put_is_read_back_at_once_by_every_cache_of_the_process_and_committed_soon(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    first = ResponseCache(path, run="r")
    first.put("k", _reply("answer"))
    hit = ResponseCache(path, run="r").get("k")  # another cache on the same file, before the commit
    assert hit is not None and hit.text == "answer" and not hit.earlier_run
    shared = ResponseCache(path, run="other", across_runs=True).get("k")
    assert shared is not None and shared.earlier_run
    deadline = time.monotonic() + 60
    while _rows(path) == 0 and time.monotonic() < deadline:  # the writer thread commits within FLUSH_AFTER_S
        time.sleep(FLUSH_AFTER_S)
    assert _rows(path) == 1


INTERRUPTED = """
import sys
from suite.models import ModelReply, ResponseCache
cache = ResponseCache(sys.argv[1])
for i in range(20):
    cache.put(f"k{i}", ModelReply("a", 1, 2, 0.0, False, 0.0, "k", 1, "m"))
raise KeyboardInterrupt
"""


def test_replies_put_just_before_ctrl_c_are_committed_at_exit(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    done = subprocess.run([sys.executable, "-c", INTERRUPTED, str(path)], capture_output=True, text=True, timeout=120)
    assert "KeyboardInterrupt" in done.stderr
    assert _rows(path) == 20


class FullDisk(ResponseCache):
    """A cache whose file cannot grow (SQLite's page limit stands in for a full disk or a file-size limit)."""

    def _connect(self) -> sqlite3.Connection:
        conn = super()._connect()
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count={pages}")
        return conn


def test_a_cache_that_cannot_be_written_warns_once_with_the_cause_and_the_calls_go_on(tmp_path: Path) -> None:
    cache = FullDisk(tmp_path / "full.sqlite", run="r")
    client = ModelClient("scripted/t-full-disk", cache=cache)
    register_script("t-full-disk", lambda messages: "a long reply " * 2000)
    with pytest.warns(UserWarning) as caught:
        for episode in range(20):
            reply = asyncio.run(client.complete([{"role": "user", "content": "hi"}], episode=f"e{episode}"))
            assert reply.text.startswith("a long reply")  # no put raises into the episode that makes it
            time.sleep(FLUSH_AFTER_S)
        cache.close()  # the flush at the end fails no more either
    messages = [str(w.message) for w in caught if "response cache" in str(w.message)]
    assert len(messages) == 1, messages
    assert "database or disk is full" in messages[0] and "cannot rollback" not in messages[0]
    assert "goes on without storing its replies" in messages[0]


def test_a_failed_commit_is_not_hidden_by_a_failed_rollback(tmp_path: Path) -> None:
    broken = tmp_path / "no-table.sqlite"
    sqlite3.connect(broken).close()  # a file without the replies table: every commit fails
    writer = CacheWriter(lambda: sqlite3.connect(broken, isolation_level=None, check_same_thread=False), broken)
    writer.put("k", ("k", "m", "text", 1, 2, 0.0, None, 0, None, "k"))
    with pytest.warns(UserWarning, match=f"response cache {broken} cannot be written .*no such table"):
        writer.flush()
    writer.put("k2", ("k2", "m", "text", 1, 2, 0.0, None, 0, None, "k2"))  # dropped: the writer stopped
    assert writer.get("k2") is None and writer.failure is not None


def test_a_run_in_one_process_reads_back_what_it_stored_before_and_since_and_skips_the_query_otherwise(
        tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    earlier = ResponseCache(path, run="r")  # e.g. the process that ran the run before a resume
    earlier.put("before", _reply("stored before"))
    earlier.close()
    ResponseCache(path, run="other").put("theirs", _reply("another run's"))
    cache = ResponseCache(path, run="r", only_process=True)
    statements: list[str] = []
    cache._connection().set_trace_callback(statements.append)
    hit = cache.get("before")
    assert hit is not None and hit.text == "stored before"
    ResponseCache(path, run="r").put("since", _reply("put since"))  # another cache of this process, same run
    since = cache.get("since")
    assert since is not None and since.text == "put since"
    statements.clear()
    assert cache.get("theirs") is None and cache.get("never") is None
    assert not [s for s in statements if "FROM replies" in s]  # known absent: no query
    across = ResponseCache(path, run="r", across_runs=True, only_process=True).get("theirs")
    assert across is not None and across.earlier_run  # --cache still looks at other runs' replies


def test_a_commit_inserts_its_rows_with_one_statement_per_chunk_and_keeps_every_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One statement lets go of the GIL once for all its rows (executemany took it back for every row)."""
    monkeypatch.setattr(cache_writer, "FLUSH_AFTER_S", 600.0)  # the writer thread leaves the commit to flush()
    path = tmp_path / "c.sqlite"
    ResponseCache(path).close()  # the table
    statements: list[str] = []

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        conn.set_trace_callback(statements.append)
        return conn

    writer = CacheWriter(connect)
    rows = {f"k{i}": (f"k{i}", "m", f"text {i}\x00é", i, 2 * i, 1764275000.1234567 + i, None if i % 2 else "stop",
                      i % 3, "r", f"q{i}") for i in range(ROWS_PER_INSERT + 7)}
    for key, row in rows.items():
        writer.put(key, row)
    writer.flush()
    inserts = [s for s in statements if s.startswith("INSERT")]
    assert len(inserts) == 2  # ROWS_PER_INSERT rows, then the 7 left
    with sqlite3.connect(path) as db:
        stored = {r[0]: r for r in db.execute("SELECT key, model, text, prompt_tokens, completion_tokens, created_at, "
                                              "finish_reason, truncated_chars, run, request FROM replies")}
    assert stored == rows


def test_a_flush_with_nothing_queued_opens_nothing(tmp_path: Path) -> None:
    """At exit every writer is flushed: one whose cache folder is gone by then (a temporary one) must not fail."""

    def gone() -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    CacheWriter(gone).flush()
