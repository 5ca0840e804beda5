"""A response cache in SQLite keyed by the exact request and its position in a run (WAL: safe across threads and
processes).

Each reply is stored under its request hash and the run that asked for it (its `cache_scope`, a random id in the
run's metadata), so another run asking the same never replaces it. A run reuses its own replies always (a resume,
`--retry-infra`); the latest reply another run stored for the request is reused only when `across_runs`
(`--cache`, `model.cache=true`), and is then marked as such, so the report can say how many replies came from an
earlier run. Caches opened with no run (`run=None`, a library user's) share the replies stored so.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from suite.models.cache_writer import CacheWriter, process_id, writer_for
from suite.models.redact import is_secret_name
from suite.models.reply import ModelReply

CACHE_FILE = "responses.sqlite"
#: Position: `(episode, step, call)` of a request inside a run; None for a request outside any episode.
Position = tuple[str, int | None, int]
NOT_IN_KEY = frozenset({"timeout", "metadata", "max_retries", "num_retries", "api_version", "organization"})
URL_PARAMS = frozenset({"api_base", "base_url"})
SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created_at REAL NOT NULL
) WITHOUT ROWID
"""
#: Columns added since the table's first version, each with its type (added to older cache files on open).
#: `run` and `request` (the request hash; the row's key is `<request>:<run>` for a run's reply) since runs were kept
#: apart.
ADDED_COLUMNS = {"finish_reason": "TEXT", "truncated_chars": "INTEGER NOT NULL DEFAULT 0", "run": "TEXT",
                 "request": "TEXT"}
_COLUMNS = "text, prompt_tokens, completion_tokens, finish_reason, truncated_chars, run"


def _cached(row: tuple[Any, ...], run: str | None) -> CachedReply:
    """A queued row (`cache_writer.INSERT`'s order) as the reply it holds."""
    return CachedReply(row[2], row[3], row[4], row[6], row[7], earlier_run=row[8] != run)


def default_cache_path() -> Path:
    """`$SUITE_CACHE_DIR/responses.sqlite`, else `~/.cache/embodied-suite/responses.sqlite`."""
    root = os.environ.get("SUITE_CACHE_DIR") or Path.home() / ".cache" / "embodied-suite"
    return Path(root) / CACHE_FILE


def key_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters that can change a reply: no credentials, timeouts or metadata; URLs without secrets."""
    kept: dict[str, Any] = {}
    for name, value in params.items():
        if value is None or name in NOT_IN_KEY or is_secret_name(name):
            continue
        if name in URL_PARAMS:
            value = _public_url(str(value))
        elif isinstance(value, Mapping):
            value = key_params(value)
        kept[name] = value
    return kept


def _public_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"


#: `json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)`, made once
_REQUEST = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def request_hash(
    model: str, messages: list[dict[str, Any]], params: Mapping[str, Any], position: Position | None = None
) -> str:
    """sha256 of the canonical JSON of model, messages, `params` (already passed through key_params) and the
    request's `position` in a run, so repeats, steps and calls within a step are distinct samples."""
    request: dict[str, Any] = {"model": model, "messages": messages, "params": params}
    if position is not None:
        request["position"] = position
    canonical = _REQUEST.encode(request)
    # surrogatepass: a lone surrogate in a prompt (from a data file) still hashes, to bytes no other text has
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class CachedReply:
    """What the cache keeps of a reply."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None = None
    truncated_chars: int = 0
    earlier_run: bool = False  # stored by another run than the cache's (reused only across runs)


class ResponseCache:
    """Replies by request hash in one SQLite file; one connection per thread, reopened after fork; puts are
    committed by the process's writer thread of the file (`suite.models.cache_writer`).

    `run`: the run whose replies these are (None: no run); `across_runs`: whether replies stored by other runs are
    reused (module docstring); `only_process`: no other process stores replies of `run` while this one runs (the
    local executor: the run folder's lock keeps a second one out), so a request of the run that it stored neither
    before this process opened the file nor since is known to be absent without a query."""

    def __init__(self, path: str | Path | None = None, run: str | None = None, across_runs: bool = False,
                 only_process: bool = False) -> None:
        self.path = Path(path) if path else default_cache_path()
        self.run = run
        self.across_runs = across_runs
        self.only_process = only_process and run is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[tuple[int, sqlite3.Connection]] = []
        self._writer: tuple[int, CacheWriter] | None = None
        self._stored: tuple[int, set[str]] | None = None
        self._connection()

    def _connect(self) -> sqlite3.Connection:
        """A new connection to the file, its table brought up to date."""
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(SCHEMA)
        present = {row[1] for row in conn.execute("PRAGMA table_info(replies)")}
        for column, kind in ADDED_COLUMNS.items():
            if column not in present:
                try:
                    conn.execute(f"ALTER TABLE replies ADD COLUMN {column} {kind}")
                except sqlite3.OperationalError:  # another process added it first
                    pass
        conn.execute("CREATE INDEX IF NOT EXISTS replies_request ON replies(request)")
        conn.execute("CREATE INDEX IF NOT EXISTS replies_run ON replies(run)")
        return conn

    def _connection(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) != process_id():
            conn = self._connect()
            local.conn, local.pid = conn, process_id()
            with self._lock:
                self._connections.append((process_id(), conn))
        return local.conn

    def _queue(self) -> CacheWriter:
        """This process's writer of the file."""
        pid = process_id()
        if self._writer is None or self._writer[0] != pid:
            self._writer = (pid, writer_for(self.path, self._connect))
        return self._writer[1]

    def _may_hold(self, row_key: str) -> bool:
        """Whether the file may hold this row (always, unless `only_process` tells what this run stored)."""
        if not self.only_process:
            return True
        pid = process_id()
        if self._stored is None or self._stored[0] != pid:
            keys = self._queue().stored_keys(self.run, lambda: [row[0] for row in self._connection().execute(
                "SELECT key FROM replies WHERE run = ?", (self.run,))])
            self._stored = (pid, keys)
        return row_key in self._stored[1]

    async def aget(self, key: str) -> CachedReply | None:
        """`get`, as the model client asks (a cache served from another process answers without blocking)."""
        return self.get(key)

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for a request hash, or None (also for another run's reply unless `across_runs`)."""
        queue, row_key = self._queue(), self._row_key(key)
        queued = queue.get(row_key)
        if queued is not None:
            return _cached(queued, self.run)
        row = None
        if self._may_hold(row_key):
            row = self._connection().execute(f"SELECT {_COLUMNS} FROM replies WHERE key = ?", (row_key,)).fetchone()
        if row is None and self.across_runs:
            conn = self._connection()  # the latest another run stored (or one stored before runs had ids)
            queued = queue.latest(key) or queue.get(key)
            if queued is not None:
                return _cached(queued, self.run)
            row = conn.execute(f"SELECT {_COLUMNS} FROM replies WHERE request = ? ORDER BY created_at DESC LIMIT 1",
                               (key,)).fetchone() or conn.execute(
                f"SELECT {_COLUMNS} FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        text, prompt_tokens, completion_tokens, finish_reason, truncated_chars, run = row
        return CachedReply(text, prompt_tokens, completion_tokens, finish_reason, truncated_chars, run != self.run)

    def _row_key(self, key: str) -> str:
        """The row of this run's reply to a request: `<request>:<run>` (the request hash alone without a run)."""
        return key if self.run is None else f"{key}:{self.run}"

    def put(self, key: str, reply: ModelReply) -> None:
        """Store a reply's text, token counts, finish reason and truncation under its request hash (readable at
        once; committed by the writer thread within `cache_writer.FLUSH_AFTER_S`)."""
        row_key = self._row_key(key)
        self._queue().put(row_key, (row_key, reply.model, reply.text, reply.prompt_tokens, reply.completion_tokens,
                                    time.time(), reply.finish_reason, reply.truncated_chars, self.run, key))

    def flush(self) -> None:
        """Commit every reply put so far (by any cache of this process on this file)."""
        self._queue().flush()

    def close(self) -> None:
        """Commit what was put, then close this process's connections (a later call reopens one)."""
        self.flush()
        with self._lock:
            mine = [c for pid, c in self._connections if pid == process_id()]
            self._connections = [(pid, c) for pid, c in self._connections if pid != process_id()]
        for conn in mine:
            conn.close()
        self._local = threading.local()
