"""Helpers for tests that run `suite` in a subprocess and interrupt it mid-run."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


def finished(root: Path) -> int:
    """Episodes of a run folder marked done so far (0 before its database exists)."""
    try:
        with sqlite3.connect(root / "run.sqlite") as db:
            return db.execute("SELECT COUNT(*) FROM episodes WHERE status='done'").fetchone()[0]
    except sqlite3.Error:
        return 0


def start_suite(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`python -m suite.cli.main ARGS` in its own process group, stderr captured."""
    return subprocess.Popen([sys.executable, "-m", "suite.cli.main", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)


def wait_finished(proc: subprocess.Popen[bytes], root: Path, count: int, timeout_s: float = 60) -> None:
    """Wait until `count` episodes are done (or the process ended, or time ran out)."""
    deadline = time.monotonic() + timeout_s
    while finished(root) < count and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)


def interrupt(proc: subprocess.Popen[bytes], timeout_s: float = 60) -> str:
    """Send Ctrl-C (SIGINT) and wait; returns the process's stderr."""
    proc.send_signal(signal.SIGINT)
    return proc.communicate(timeout=timeout_s)[1].decode()
