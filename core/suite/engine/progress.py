"""Run progress: a rich live display on a terminal, plain lines otherwise (or with NO_COLOR)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from suite.contract.controls import InertConsole, visible


def eta_seconds(elapsed_s: float, steps_done: int, budget_done: int, budget_left: float) -> float | None:
    """Seconds left: the steps the unfinished episodes' budgets hold, scaled by the share of their budgets the
    finished episodes used, at the run's time per finished step so far (None before a step is finished)."""
    if steps_done <= 0 or budget_done <= 0:
        return None
    return budget_left * (steps_done / budget_done) * (elapsed_s / steps_done)


class RunProgress:
    """Episodes done/total, the agent's success so far (infra failures apart), tokens, cost and ETA (from steps and
    step budgets, once `concurrency` episodes have finished: before that, the episodes in flight together have made
    progress the finished ones do not show)."""

    def __init__(self, total: int, console: Console | None = None, live: bool | None = None, concurrency: int = 1,
                 budgets: Sequence[int | None] = ()) -> None:
        self.console = console or InertConsole(stderr=True)
        self.total = total
        self.concurrency = max(1, concurrency)
        self.done = 0
        self.success = 0
        self.infra = 0
        self.tokens = 0
        self.cost = 0.0
        self.steps = 0
        self.budget_done = 0
        known = [b for b in budgets if b]
        self._budget_left = float(sum(known))
        self._unknown_left = total - len(known)  # episodes without a step budget: counted at the mean steps used
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
                TextColumn("eta {task.fields[eta]}"),
                console=self.console,
                transient=False,
            )
            self._task = self._progress.add_task("run", total=total, stats=self._stats(), eta="-")

    def _stats(self) -> str:
        judged = self.done - self.infra  # episodes the agent is scored on: infra failures leave the denominators
        rate = f"{100 * self.success / judged:.0f}% of {judged}" if judged else "-"
        infra = f"  infra failures {self.infra}" if self.infra else ""
        return f"success {rate}{infra}  tokens {self.tokens:,}  cost ${self.cost:.4f}"

    def eta(self) -> float | None:
        """Seconds left by `eta_seconds`, or None until a first wave of episodes (`concurrency`, or all of a smaller
        run) has finished: the first of several episodes run together finishes after about as long as all of them,
        so its time alone would multiply the run's length by the concurrency."""
        if self.done < min(self.concurrency, self.total):
            return None
        mean_budget = self.budget_done / self.done if self.done else 0.0
        left = self._budget_left + max(self._unknown_left, 0) * mean_budget
        return eta_seconds(time.monotonic() - self.started, self.steps, self.budget_done, left)

    def __enter__(self) -> RunProgress:
        if self._progress:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress:
            self._progress.stop()

    def advance(self, success: bool, tokens: int, cost: float, label: str, steps: int = 1,
                budget: int | None = None, infra: bool = False) -> None:
        """One episode finished after `steps` steps of its step `budget` (None: it has none); `infra` when it ended in
        an infra failure (it then counts apart, not against the agent's success rate)."""
        self.done += 1
        self.success += int(success)
        self.infra += int(infra)
        self.tokens += tokens
        self.cost += cost
        steps = max(steps, 1)
        self.steps += steps
        if budget:
            self._budget_left -= budget
        else:
            self._unknown_left -= 1
        self.budget_done += max(budget or steps, steps)
        eta = self.eta()
        shown = "-" if eta is None else f"{eta:.0f}s"
        if self._progress:
            self._progress.update(self._task, completed=self.done, stats=self._stats(), eta=shown)
            return
        print(f"[{self.done}/{self.total}] {visible(label)}  {self._stats()}  eta {shown}", file=sys.stderr, flush=True)

    def note(self, message: str) -> None:
        """A message above the progress display."""
        self.console.print(message, highlight=False)
