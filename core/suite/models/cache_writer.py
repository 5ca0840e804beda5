"""Write-behind for the response cache: replies are committed by one thread per cache file, off the event loop.

A put costs the caller a dict insert; the writer thread commits the rows put in the next `FLUSH_AFTER_S` in one
transaction, as one multi-row INSERT per `ROWS_PER_INSERT` rows. SQLite runs without the GIL, so its page writes and
WAL checkpoints overlap the episodes; one statement lets go of the GIL once for all its rows, where a row at a time
(`executemany`) took it back for every row and so made the episodes' thread hand it over each time. Until then
every cache of the process on that file reads the rows from memory. They are committed when the cache is closed and
when the process exits normally (Ctrl-C included); a kill (SIGKILL, power loss) loses at most the last
`FLUSH_AFTER_S` of replies, which a resumed run asks again, as it asks again the calls that were in flight.

The cache is optional: a commit that fails (a full disk, a file-size limit, a file that cannot be opened) warns
once, with its cause, and this process stops writing to that file (what it had queued is dropped, what is
committed stays); the run goes on, its replies are just not stored.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: How long the writer gathers puts before committing them (the most a kill can lose).
FLUSH_AFTER_S = 0.05
INSERT = ("INSERT OR REPLACE INTO replies (key, model, text, prompt_tokens, completion_tokens, created_at, "
          "finish_reason, truncated_chars, run, request) VALUES ")
ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#: The most rows one INSERT statement holds (10 parameters each, within SQLite's default limit of 32,766).
ROWS_PER_INSERT = 500
#: A row as INSERT takes it: (key, model, text, prompt_tokens, completion_tokens, created_at, finish_reason,
#: truncated_chars, run, request).
Row = tuple[Any, ...]
CREATED, RUN, REQUEST = 5, 8, 9  # places in a row

_writers: dict[tuple[int, Path], CacheWriter] = {}
_writers_lock = threading.Lock()
_pid = [os.getpid()]  # this process's id, made again in a forked child (os.getpid is a system call)
os.register_at_fork(after_in_child=lambda: _pid.__setitem__(0, os.getpid()))


def process_id() -> int:
    """`os.getpid()`, without a system call."""
    return _pid[0]


class CacheWriter:
    """The rows this process put to one cache file that are not committed yet, and the thread that commits them."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], path: Path | None = None) -> None:
        self._connect = connect
        self._path = path
        self._pending: dict[str, Row] = {}
        self._wake = threading.Condition()
        self._flushing = threading.Lock()
        self._thread: threading.Thread | None = None
        self.failure: BaseException | None = None  # the failed commit that stopped this writer
        self._stored: dict[str | None, set[str]] = {}  # by run: the row keys it has in the file or queued

    def put(self, key: str, row: Row) -> None:
        """Queue a row under its key (the writer commits it within FLUSH_AFTER_S); dropped once a commit failed."""
        with self._wake:
            if self.failure is not None:
                return
            first = not self._pending
            self._pending[key] = row
            stored = self._stored.get(row[RUN])
            if stored is not None:
                stored.add(key)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="suite-cache-writer", daemon=True)
                self._thread.start()
            elif first:
                self._wake.notify()

    def get(self, key: str) -> Row | None:
        """The queued row under `key`, if it is not committed yet."""
        return self._pending.get(key)

    def latest(self, request: str) -> Row | None:
        """The most recently created queued row for a request hash (any run's), if any."""
        rows = [row for row in list(self._pending.values()) if row[REQUEST] == request]
        return max(rows, key=lambda row: row[CREATED]) if rows else None

    def stored_keys(self, run: str | None, load: Callable[[], list[str]]) -> set[str]:
        """Every row key of `run` in the file or queued: what `load` reads from the file the first time (no commit
        runs meanwhile), kept current by this process's puts. Complete only while no other process stores rows of
        that run."""
        with self._flushing:
            stored = self._stored.get(run)
            if stored is None:
                in_file = load()
                with self._wake:
                    queued = [key for key, row in self._pending.items() if row[RUN] == run]
                    stored = self._stored.setdefault(run, {*in_file, *queued})
        return stored

    def flush(self) -> None:
        """Commit every queued row now, on a connection of its own (a failure stops the writer, with a warning);
        with none queued, nothing is opened."""
        if not self._pending:
            return
        try:
            conn = self._connect()
            try:
                self._commit(conn)
            finally:
                conn.close()
        except Exception as exc:  # noqa: BLE001 - the cache is optional
            self._give_up(exc)

    def _commit(self, conn: sqlite3.Connection) -> None:
        """Commit the rows queued now in one transaction, then drop them from the queue (unless put again)."""
        with self._flushing:
            batch = dict(self._pending)
            if not batch:
                return
            rows = list(batch.values())
            conn.execute("BEGIN IMMEDIATE")
            try:
                for start in range(0, len(rows), ROWS_PER_INSERT):
                    insert_rows(conn, rows[start:start + ROWS_PER_INSERT])
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # SQLite has rolled back already on some errors (a full disk)
                    with contextlib.suppress(sqlite3.Error):  # the commit's error is the cause to report
                        conn.execute("ROLLBACK")
                raise
            with self._wake:
                for key, row in batch.items():
                    if self._pending.get(key) is row:
                        del self._pending[key]

    def _run(self) -> None:
        """The writer thread: wait for a put, gather the puts of the next FLUSH_AFTER_S, commit them."""
        conn: sqlite3.Connection | None = None
        while True:
            with self._wake:
                while not self._pending:
                    self._wake.wait()
            time.sleep(FLUSH_AFTER_S)
            try:
                conn = conn or self._connect()
                self._commit(conn)
            except Exception as exc:  # noqa: BLE001 - the cache is optional
                self._give_up(exc)

    def _give_up(self, exc: BaseException) -> None:
        """Stop writing after a failed commit: drop the queued rows and warn once with the cause."""
        with self._wake:
            if self.failure is not None:
                return
            self.failure = exc
            self._pending.clear()
        where = f" {self._path}" if self._path is not None else ""
        warnings.warn(f"the response cache{where} cannot be written ({type(exc).__name__}: {exc}); the run goes "
                      "on without storing its replies there", stacklevel=2)


def insert_rows(conn: sqlite3.Connection, rows: list[Row]) -> None:
    """Insert (or replace) `rows` with one statement: SQLite lets go of the GIL once for all of them."""
    conn.execute(INSERT + ", ".join([ROW] * len(rows)), [value for row in rows for value in row])


def writer_for(path: Path, connect: Callable[[], sqlite3.Connection]) -> CacheWriter:
    """This process's writer of the cache file at `path` (shared by every cache on that file)."""
    key = (process_id(), path.resolve())
    writer = _writers.get(key)
    if writer is None:
        with _writers_lock:
            writer = _writers.setdefault(key, CacheWriter(connect, path))
    return writer


@atexit.register
def flush_all() -> None:
    """Commit what every writer of this process holds (at exit: the writer threads are daemons)."""
    pid = process_id()
    for (owner, _), writer in list(_writers.items()):
        if owner == pid:
            writer.flush()
