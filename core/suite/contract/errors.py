"""Error types that the CLI turns into one clear line and a non-zero exit."""

from __future__ import annotations

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
