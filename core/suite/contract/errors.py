"""Error types that the CLI turns into one clear line and a non-zero exit."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path


class SuiteError(Exception):
    """A user-facing error: its message is printed as one line, without a traceback."""

    exit_code = 2


class ConfigError(SuiteError):
    """A bad configuration key or value."""


class PluginError(SuiteError):
    """An unknown, disabled or broken plugin."""


class DataError(SuiteError):
    """A data file that is missing or does not match its schema."""

    def __init__(self, path: str | Path, pointer: str, expected: str) -> None:
        self.path = str(path)
        self.pointer = pointer or "/"
        self.expected = expected
        super().__init__(f"{self.path}: at {self.pointer}: {expected}")


class ModelError(SuiteError):
    """A model call that failed after retries (recorded as `model_error`, never an agent failure): its provider, HTTP
    status and attempts where known."""

    provider: str | None = None
    status: int | None = None
    attempts: int | None = None


class MissingApiKey(SuiteError):
    """The model's provider needs an API key that is not set."""


class BudgetExceeded(SuiteError):
    """The run's `--max-cost` was reached; no new model call may start."""


#: what a write says when the disk (or the user's quota, or the file size limit) is full
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def disk_full(exc: BaseException) -> bool:
    """Whether an error is a write that failed for want of space: ENOSPC, a quota or file size limit, or SQLite's
    `database or disk is full`."""
    if isinstance(exc, OSError):
        return exc.errno in _FULL_ERRNOS
    return isinstance(exc, sqlite3.OperationalError) and "disk is full" in str(exc)
