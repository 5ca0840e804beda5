"""Run progress: a rich live display on a terminal, plain lines otherwise (or with NO_COLOR)."""

from __future__ import annotations

import os
import sys
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class RunProgress:
    """Episodes done/total, success so far, tokens, cost and ETA."""

    def __init__(self, total: int, console: Console | None = None, live: bool | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.total = total
        self.done = 0
        self.success = 0
        self.tokens = 0
        self.cost = 0.0
        self.started = time.monotonic()
        if live is None:
            live = self.console.is_terminal and not os.environ.get("NO_COLOR") and sys.stderr.isatty()
        self._progress: Progress | None = None
        if live:
            self._progress = Progress(
                TextColumn("[bold]episodes"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[stats]}"),
                TimeRemainingColumn(),
                console=self.console,
                transient=False,
            )
            self._task = self._progress.add_task("run", total=total, stats=self._stats())

    def _stats(self) -> str:
        rate = f"{100 * self.success / self.done:.0f}%" if self.done else "-"
        return f"success {rate}  tokens {self.tokens:,}  cost ${self.cost:.4f}"

    def __enter__(self) -> RunProgress:
        if self._progress:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress:
            self._progress.stop()

    def advance(self, success: bool, tokens: int, cost: float, label: str) -> None:
        """One episode finished."""
        self.done += 1
        self.success += int(success)
        self.tokens += tokens
        self.cost += cost
        if self._progress:
            self._progress.update(self._task, completed=self.done, stats=self._stats())
            return
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done * (self.total - self.done)
        print(f"[{self.done}/{self.total}] {label}  {self._stats()}  eta {eta:.0f}s", file=sys.stderr, flush=True)

    def note(self, message: str) -> None:
        """A message above the progress display."""
        self.console.print(message, highlight=False)
