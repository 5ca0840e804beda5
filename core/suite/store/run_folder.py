"""The run folder: resolved config, SQLite database (WAL) of episodes and metadata, traces, frames."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from suite.contract.errors import DataError, SuiteError
from suite.contract.records import INFRA_OUTCOMES, EpisodeRecord
from suite.contract.schemas import parse_json, top_level_valid, validate
from suite.store.infra import status_with_infra
from suite.store.traces import ENCODE_ERRORS, NODE_LOST, Spend, TraceWriter, dumps, flush_all, read_trace, trace_spend

RECORD_SCHEMA = Path(__file__).parents[1] / "jsonschemas" / "episode_record.schema.json"
DB_NAME = "run.sqlite"
LOCK_NAME = ".lock"  # held (flock) by the process running the run
CONFIG_NAME = "config.yaml"
STAGING_PREFIX = ".creating-"  # a run folder being created (renamed to its name once whole)
#: What a run spent, by kind of attempt: `node_lost` are cut-off attempts whose node left a Ray cluster (their model
#: calls are paid again by the retry), apart from the other cut-off ones.
SPEND_KINDS = ("finished", "retried", "cut_off", NODE_LOST)

_SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS episodes (
    episode_id TEXT PRIMARY KEY,
    benchmark TEXT NOT NULL,
    task_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    record TEXT,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS superseded (
    episode_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    record TEXT NOT NULL,
    trace TEXT NOT NULL,
    superseded_at REAL NOT NULL,
    PRIMARY KEY (episode_id, attempt)
);
"""


def distinct_runs(run_dirs: list[Path]) -> list[Path]:
    """Run folders in the order given, each once (the same folder named twice, or by two paths, is read once)."""
    out: dict[Path, Path] = {}
    for run_dir in run_dirs:
        out.setdefault(Path(run_dir).resolve(), Path(run_dir))
    return list(out.values())


def safe_name(episode_id: str) -> str:
    """A file name for an episode id (ids may hold spaces, slashes and brackets)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", episode_id).strip("_")[:80]
    return f"{stem}-{hashlib.sha1(episode_id.encode()).hexdigest()[:8]}"


def _repoint_frames(text: str, stem: str, kept_stem: str) -> str:
    """A trace's text with its image references moved from `frames/<stem>/` to `frames/<kept_stem>/` (a line
    a kill cut in half is kept as it is)."""
    old, new = f"frames/{stem}/", f"frames/{kept_stem}/"
    lines = []
    for line in text.splitlines(keepends=True):
        if old in line:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                lines.append(line)
                continue
            for image in event.get("images") or []:
                if str(image.get("path", "")).startswith(old):
                    image["path"] = new + image["path"][len(old):]
            line = dumps(event) + "\n"
        lines.append(line)
    return "".join(lines)


def _locked(path: Path) -> bool:
    """Whether a live process holds the lock file at `path` (flock)."""
    if not path.exists():
        return False
    with path.open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


def creator_alive(staging: Path) -> bool:
    """Whether the process named in a temporary folder's name (`<prefix>-<pid>-<random>`: a run folder being created,
    a replay's run) still runs: between making the folder and locking it, another process creating a run beside it
    must not take it for stale."""
    try:
        pid = int(staging.name.rsplit("-", 2)[-2])
    except (IndexError, ValueError):
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    return True


def _check_database(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a run database that is damaged or holds what no run writes: a view or trigger (a query of it could
    run without end), or one of the run's tables replaced by something else. Nothing in it runs before this."""
    extra = db.execute("SELECT type, name FROM sqlite_master WHERE type IN ('view', 'trigger')"
                       " OR (name IN ('meta', 'episodes', 'superseded') AND type != 'table')").fetchone()
    if extra is not None:
        raise SuiteError(f"{path}: damaged run database (it holds a {extra[0]} {extra[1]!r}, which no run writes)")
    problem = db.execute("PRAGMA quick_check(1)").fetchone()[0]
    if problem != "ok":
        raise SuiteError(f"{path}: damaged run database ({problem})")


class RunStore:
    """One run folder; writes are append-only and transactional, so a crash loses nothing finished."""

    def __init__(self, root: Path, create: bool = False) -> None:
        self.root = Path(root)
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        elif not (self.root / DB_NAME).is_file():
            raise SuiteError(f"{self.root}: not a run folder (no {DB_NAME})")
        (self.root / "traces").mkdir(exist_ok=True)
        self._lock = threading.Lock()
        self._lock_file: IO[str] | None = None
        self.db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        path = self.root / DB_NAME
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        try:
            _check_database(db, path)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA_SQL)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise SuiteError(f"{path}: not a readable run database ({exc})") from None
        except SuiteError:
            db.close()
            raise
        return db

    @classmethod
    def create(cls, names: Iterable[Path], fill: Callable[[RunStore, Path], None]) -> RunStore:
        """Create a run folder atomically, locked by this process: `fill(store, root)` writes its config, metadata
        and episode list under a hidden temporary name beside it, which is then renamed to the first of `names`
        that is free (`fill` runs again if a race took the name). A crash leaves either a whole run or no folder
        (only a hidden `.creating-*` one that `suite runs` skips and the next run created there removes)."""
        names = iter(names)
        root = next(names)
        root.parent.mkdir(parents=True, exist_ok=True)
        for stale in root.parent.glob(f"{STAGING_PREFIX}*"):
            if stale.is_dir() and not _locked(stale / LOCK_NAME) and not creator_alive(stale):
                shutil.rmtree(stale, ignore_errors=True)
        staging = root.parent / f"{STAGING_PREFIX}{root.name}-{os.getpid()}-{secrets.token_hex(4)}"
        store = cls(staging, create=True)
        try:
            store.lock()
            while True:
                fill(store, root)
                store.db.close()  # SQLite refuses writes to a database whose file was renamed under it
                try:
                    staging.rename(root)  # fails if `root` holds anything (an empty folder is replaced)
                    break
                except OSError as exc:
                    store.db = store._connect()
                    following = next(names, None)
                    if following is None:
                        raise SuiteError(f"cannot create the run folder {root}: {exc.strerror}") from None
                    root = following
            store.root = root
            store.db = store._connect()
        except BaseException:
            store.close()
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return store

    def creation_problem(self) -> str | None:
        """Why this folder is not a whole run (a process died while creating it, before runs were created
        atomically), or None."""
        meta = self.meta()
        if not (self.root / CONFIG_NAME).is_file():
            return f"it has no {CONFIG_NAME}"
        if "benchmarks" not in meta:
            return "its metadata was never written"
        planned, registered = meta.get("planned_episodes"), sum(self.counts().values())
        if not registered:
            return "its episode list was never written"
        if planned is not None and registered != planned:
            return f"its episode list holds {registered} of {planned} episodes"
        return None

    def close(self) -> None:
        """Close the database (and give up the run lock, if held)."""
        self.db.close()
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def lock(self) -> None:
        """Claim the run for this process; a SuiteError if another live process is running it."""
        handle = (self.root / LOCK_NAME).open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            owner = handle.read().strip() or "another process"
            handle.close()
            raise SuiteError(f"{self.root} is being run by {owner}; wait for it to end (or stop it) first") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        self._lock_file = handle

    def in_use(self) -> bool:
        """Whether a live process holds the run's lock (a run marked running without one has crashed)."""
        return _locked(self.root / LOCK_NAME)

    def status(self) -> str:
        """The run's status as every command shows it: the stored one (`running`, `complete`, `stopped`,
        `interrupted`), except that a run marked running that no live process holds has `crashed`, and a complete
        run with infra failures says how many (`complete, 9 infra failures`)."""
        status = str(self.meta().get("status", "unknown"))
        if status == "running" and not self.in_use():
            return "crashed"
        return status_with_infra(status, self.infra_failures())

    def infra_failures(self) -> int:
        """Finished episodes whose outcome is an infra failure (`model_error`, `env_error`, `timeout`)."""
        marks = ", ".join("?" * len(INFRA_OUTCOMES))
        query = f"SELECT COUNT(*) FROM episodes WHERE status='done' AND json_extract(record, '$.outcome') IN ({marks})"
        return int(self.db.execute(query, INFRA_OUTCOMES).fetchone()[0])

    def set_meta(self, **values: Any) -> None:
        """Store run metadata values (JSON)."""
        with self._lock:
            self.db.executemany(
                "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                [(k, json.dumps(v, sort_keys=True, default=str)) for k, v in values.items()],
            )

    def meta(self) -> dict[str, Any]:
        """All run metadata (a DataError naming the database when a value is not JSON)."""
        meta = {}
        for key, value in self.db.execute("SELECT key, value FROM meta"):
            try:
                meta[key] = json.loads(value)  # as json.dumps wrote it (a NaN included)
            except (ValueError, TypeError, RecursionError):
                raise DataError(self.root / DB_NAME, f"metadata {key!r}", "a JSON value") from None
        return meta

    def add_episodes(self, episodes: Iterable[tuple[str, str, str]]) -> None:
        """Register episodes (id, benchmark, task id) as pending; existing ones are left alone."""
        now = time.time()
        with self._lock:
            start = self.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR IGNORE INTO episodes(episode_id, benchmark, task_id, position, updated_at)"
                " VALUES(?, ?, ?, ?, ?)",
                [(e, b, t, start + i, now) for i, (e, b, t) in enumerate(episodes)],
            )
            self.db.execute("COMMIT")

    def unfinished(self) -> list[str]:
        """Episode ids not yet finished, in registration order (pending, or running when a crash hit)."""
        rows = self.db.execute("SELECT episode_id FROM episodes WHERE status != 'done' ORDER BY position")
        return [r[0] for r in rows]

    def counts(self) -> dict[str, int]:
        """Episodes per status."""
        return dict(self.db.execute("SELECT status, COUNT(*) FROM episodes GROUP BY status").fetchall())

    def mark_running(self, episode_id: str) -> None:
        """Note that an episode started (its attempt count goes up)."""
        with self._lock:
            self.db.execute(
                "UPDATE episodes SET status='running', attempts=attempts+1, updated_at=? WHERE episode_id=?"
                " AND status != 'done'",
                (time.time(), episode_id),
            )

    def mark_pending(self, episode_ids: Iterable[str]) -> None:
        """Put unfinished episodes back to pending (after Ctrl-C or a budget stop)."""
        with self._lock:
            self.db.executemany(
                "UPDATE episodes SET status='pending' WHERE episode_id=? AND status != 'done'",
                [(e,) for e in episode_ids],
            )

    def finish(self, record: EpisodeRecord) -> bool:
        """Store a finished episode's record once; returns False if it was already finished."""
        data = record.to_json()
        validate(data, RECORD_SCHEMA, f"episode record {record.episode_id}")
        with self._lock:
            cur = self.db.execute(
                "UPDATE episodes SET status='done', record=?, updated_at=? WHERE episode_id=? AND status != 'done'",
                (json.dumps(data, sort_keys=True), time.time(), record.episode_id),
            )
        return cur.rowcount == 1

    def reopen(self, outcomes: Iterable[str]) -> dict[str, int]:
        """Put finished episodes with these outcomes back to pending, keeping their records and traces.

        Each trace (and frames folder) is first copied to `<name>.superseded-<n>`, then the record moves to the
        `superseded` table in one transaction, so a crash at any point loses neither the old attempt nor the new.
        Returns how many episodes were reopened per outcome.
        """
        wanted = set(outcomes)
        rows = self.db.execute("SELECT episode_id, record FROM episodes WHERE status='done' ORDER BY position")
        counts: dict[str, int] = {}
        moves = []
        for eid, raw in rows.fetchall():
            record = self._record(eid, raw)
            outcome = record["outcome"]
            if outcome not in wanted:
                continue
            attempt = 1 + self.db.execute("SELECT COUNT(*) FROM superseded WHERE episode_id=?", (eid,)).fetchone()[0]
            kept = self._keep_attempt(eid, attempt)
            record["trace"] = kept
            moves.append((eid, attempt, json.dumps(record, sort_keys=True), kept))
            counts[outcome] = counts.get(outcome, 0) + 1
        now = time.time()
        with self._lock:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO superseded(episode_id, attempt, record, trace, superseded_at)"
                " VALUES(?, ?, ?, ?, ?)", [(*m, now) for m in moves])
            self.db.executemany("UPDATE episodes SET status='pending', record=NULL, updated_at=? WHERE episode_id=?",
                                [(now, m[0]) for m in moves])
            self.db.execute("COMMIT")
        for eid, *_ in moves:  # the kept copies are committed: the next attempt starts with no frames and no trace
            shutil.rmtree(self.root / "frames" / safe_name(eid), ignore_errors=True)
            self.trace_path(eid).unlink(missing_ok=True)
        return counts

    def superseded(self) -> list[dict[str, Any]]:
        """Records of earlier attempts replaced by a retry (`--retry-infra`), oldest first."""
        rows = self.db.execute("SELECT episode_id, record FROM superseded ORDER BY superseded_at, episode_id, attempt")
        return [self._record(eid, raw, "an earlier attempt of ") for eid, raw in rows]

    def _keep_attempt(self, episode_id: str, attempt: int) -> str:
        """Copy an episode's frames and trace to `.superseded-<attempt>` names (the copy's image references point
        at the copied frames); returns the trace copy's path."""
        stem, kept_stem = safe_name(episode_id), f"{safe_name(episode_id)}.superseded-{attempt}"
        frames = self.root / "frames" / stem
        if frames.is_dir():
            shutil.copytree(frames, frames.with_name(kept_stem), dirs_exist_ok=True)
        kept = self.root / "traces" / f"{kept_stem}.jsonl"
        trace = self.trace_path(episode_id)
        if trace.exists():
            text = _repoint_frames(trace.read_text(encoding="utf-8"), stem, kept_stem)
            kept.write_text(text, encoding="utf-8", errors=ENCODE_ERRORS)
        return str(kept.relative_to(self.root))

    def _keep_partial(self, episode_id: str) -> None:
        """Keep the trace (and frames) an unfinished earlier attempt left, as `<name>.partial-<n>`, before a new
        attempt starts: its steps and what they spent stay in the run (append-only). The trace is renamed first,
        so a crash never keeps it twice. A trace left by an attempt that `--retry-infra` superseded (its copy is
        kept already) is not kept again."""
        trace, stem = self.trace_path(episode_id), safe_name(episode_id)
        if not trace.exists():
            return
        if self._superseded_leftover(episode_id, trace):
            return
        flush_all()  # an earlier attempt's trace still open in this process is whole before it is read or moved
        taken = [int(m.group(1)) for p in trace.parent.glob(f"{stem}.partial-*.jsonl")
                 if (m := re.fullmatch(re.escape(stem) + r"\.partial-(\d+)\.jsonl", p.name))]
        kept_stem = f"{stem}.partial-{max(taken, default=0) + 1}"
        kept = trace.with_name(f"{kept_stem}.jsonl")
        trace.rename(kept)
        frames = self.root / "frames" / stem
        if frames.is_dir():
            frames.rename(frames.with_name(kept_stem))
            tmp = kept.with_suffix(".tmp")
            tmp.write_text(_repoint_frames(kept.read_text(encoding="utf-8"), stem, kept_stem), encoding="utf-8",
                           errors=ENCODE_ERRORS)
            tmp.replace(kept)

    def _superseded_leftover(self, episode_id: str, trace: Path) -> bool:
        """Whether `trace` is the finished attempt that `--retry-infra` superseded (a crash kept it from being
        removed after its copy was committed): it was last written before the episode was reopened."""
        last = self.db.execute("SELECT MAX(superseded_at) FROM superseded WHERE episode_id=?",
                               (episode_id,)).fetchone()[0]
        return last is not None and trace.stat().st_mtime <= last

    def partial_traces(self) -> list[Path]:
        """Traces of attempts that were cut off (Ctrl-C, `--max-cost`, a crash, a lost Ray actor) and never
        finished: the kept `*.partial-<n>.jsonl` ones and the current traces of unfinished episodes."""
        kept = sorted((self.root / "traces").glob("*.partial-*.jsonl"))
        current = [(e, self.trace_path(e)) for e in self.unfinished()]
        return kept + [p for e, p in current if p.exists() and not self._superseded_leftover(e, p)]

    def spend(self) -> dict[str, dict[str, Spend]]:
        """Per benchmark, every token and dollar the run spent: `finished` episodes (their records), `retried`
        (earlier attempts `--retry-infra` superseded), `cut_off` (attempts that never finished) and `node_lost`
        (those of them cut off because their Ray node left the cluster: the retry paid their calls again)."""
        out: dict[str, dict[str, Spend]] = defaultdict(lambda: {k: Spend() for k in SPEND_KINDS})
        for kind, records in (("finished", self.records()), ("retried", self.superseded())):
            for rec in records:
                out[rec["benchmark"]][kind].add(Spend(1, rec["steps"], rec["prompt_tokens"],
                                                      rec["completion_tokens"], rec["cost_usd"],
                                                      rec.get("cached_prompt_tokens", 0),
                                                      rec.get("cached_completion_tokens", 0),
                                                      rec.get("earlier_run_replies", 0)))
        for path in self.partial_traces():
            benchmark, spent, cause = trace_spend(path)
            if benchmark is not None:
                out[benchmark][NODE_LOST if cause == NODE_LOST else "cut_off"].add(spent)
        return dict(out)

    def records(self) -> list[dict[str, Any]]:
        """Every finished episode's record, in registration order."""
        rows = self.db.execute("SELECT episode_id, record FROM episodes WHERE status='done' ORDER BY position")
        return [self._record(eid, raw) for eid, raw in rows]

    def iter_records(self) -> Iterator[dict[str, Any]]:
        """Every finished episode's record, in registration order, read one at a time (for a reader of a large
        run that needs one at a time)."""
        rows = self.db.execute("SELECT episode_id, record FROM episodes WHERE status='done' ORDER BY position")
        for eid, raw in rows:
            yield self._record(eid, raw)

    def _record(self, episode_id: str, raw: Any, attempt: str = "") -> dict[str, Any]:
        """A stored record read back: a DataError naming the database and the episode when it is not valid JSON or
        not a whole episode record (a folder damaged after the run, or written by hand)."""
        source = f"{self.root / DB_NAME} (record of {attempt}episode {episode_id!r})"
        data = parse_json(raw, source) if isinstance(raw, str) else raw
        if not top_level_valid(data, RECORD_SCHEMA):  # every record was validated when stored: a quick check
            validate(data, RECORD_SCHEMA, source)  # names the first problem
        return dict(data)

    def trace_path(self, episode_id: str) -> Path:
        """Where an episode's JSONL trace lives."""
        return self.root / "traces" / f"{safe_name(episode_id)}.jsonl"

    def open_trace(self, episode_id: str) -> TraceWriter:
        """Start an episode's trace afresh (an unfinished attempt's partial trace is kept as `.partial-<n>`)."""
        self._keep_partial(episode_id)
        return TraceWriter(self.root, self.trace_path(episode_id), safe_name(episode_id))

    def read_trace(self, episode_id: str, prompts: bool = True) -> list[dict[str, Any]]:
        """An episode's trace events, each step with its prompt (see `suite.store.traces.read_trace`)."""
        return read_trace(self.trace_path(episode_id), prompts)
