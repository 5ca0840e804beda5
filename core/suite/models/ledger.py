"""Token and dollar accounting per episode and per run, with an optional budget."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Protocol

from suite.contract.errors import BudgetExceeded
from suite.models.reply import ModelReply


@dataclass
class Totals:
    """Sums over a set of replies: tokens spent on model calls, and apart from them those served from the cache."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0

    def add(self, reply: ModelReply) -> None:
        """Count one reply."""
        (prompt, completion), (cached_prompt, cached_completion) = reply.spent_and_cached
        self.calls += 1
        self.cached_calls += reply.cached
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.cached_prompt_tokens += cached_prompt
        self.cached_completion_tokens += cached_completion
        self.cost_usd += reply.cost_usd
        self.cost_known = self.cost_known and reply.cost_known


class Ledger(Protocol):
    """What a model client needs from a cost ledger (a Ray actor can back the same two calls)."""

    def check(self) -> None:
        """Raise BudgetExceeded when no new model call may start."""

    def record(self, reply: ModelReply, episode: str | None = None) -> None:
        """Count one reply for the run and its episode."""


class CostLedger:
    """Run and per-episode totals; once the run total reaches `max_cost_usd`, no new call may start."""

    def __init__(self, max_cost_usd: float | None = None) -> None:
        self.max_cost_usd = max_cost_usd
        self._run = Totals()
        self._episodes: dict[str, Totals] = {}
        self._lock = threading.Lock()

    def check(self) -> None:
        """Raise BudgetExceeded when the budget is spent (called before every new model call)."""
        if self.max_cost_usd is not None and self._run.cost_usd >= self.max_cost_usd:
            raise BudgetExceeded(
                f"the cost budget of ${self.max_cost_usd:.4f} is spent (${self._run.cost_usd:.4f} so far)"
            )

    def record(self, reply: ModelReply, episode: str | None = None) -> None:
        """Count a reply for the run and, when given, its episode (in-flight calls count after the budget)."""
        with self._lock:
            self._run.add(reply)
            if episode is not None:
                self._episodes.setdefault(episode, Totals()).add(reply)

    @property
    def total(self) -> Totals:
        """A copy of the run's totals."""
        with self._lock:
            return replace(self._run)

    def episode(self, key: str) -> Totals:
        """A copy of one episode's totals (zero when it made no call)."""
        with self._lock:
            return replace(self._episodes.get(key) or Totals())

    def snapshot(self) -> tuple[Totals, dict[str, Totals]]:
        """The run's and every episode's totals, as plain data (a restarted ledger `restore`s them)."""
        with self._lock:
            return replace(self._run), {k: replace(v) for k, v in self._episodes.items()}

    def restore(self, snapshot: tuple[Totals, dict[str, Totals]]) -> None:
        """Take over the totals of a `snapshot`."""
        with self._lock:
            self._run, self._episodes = replace(snapshot[0]), dict(snapshot[1])
