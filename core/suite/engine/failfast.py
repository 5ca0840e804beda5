"""Stops a run whose first episodes all failed with the same model error that no retry fixes (a rejected key, an
unknown model) or with the same connection error after every retry (a refused connection, an unknown host): every
later episode would fail alike, and a run of nothing but model errors must not look complete.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from suite.contract.records import EpisodeRecord
from suite.models.retry import NEVER_REACHED, RETRY_STATUSES
from suite.store.infra import same_fault

#: How many first finished episodes must fail alike before a run stops (fewer when the run plans fewer).
WINDOW = 3
#: The status and reason in the text of a model error (`suite.models.retry.model_error` writes them so).
MODEL_ERROR = re.compile(r"status (\d{3}|-), (\w+): (.*)$", re.DOTALL)


def permanent_cause(record: EpisodeRecord) -> str | None:
    """`status 401, AuthenticationError: ...` for an episode ended by a 4xx model error a retry would not fix."""
    found = MODEL_ERROR.search(record.failure_reason or "") if record.outcome == "model_error" else None
    if found is None or found.group(1) == "-":
        return None
    status = int(found.group(1))
    if not 400 <= status < 500 or status in RETRY_STATUSES:
        return None
    return f"status {status}, {found.group(2)}: {found.group(3)}"


def unreachable_cause(record: EpisodeRecord) -> str | None:
    """`InternalServerError: ... Connection error.` for an episode whose model calls never reached the server, after
    every retry (a refused connection, a name that does not resolve, a timeout)."""
    reason, marker, _ = (record.failure_reason or "").partition(NEVER_REACHED)
    if record.outcome != "model_error" or not marker:
        return None
    found = MODEL_ERROR.search(reason)
    return None if found is None else same_fault(f"{found.group(2)}: {found.group(3)}")


def fatal_cause(record: EpisodeRecord) -> str | None:
    """Why this episode's model error would end every later episode too (None when a later one may fare better)."""
    permanent = permanent_cause(record)
    if permanent is not None:
        return f"one model error that no retry fixes ({permanent})"
    unreachable = unreachable_cause(record)
    if unreachable is not None:
        return f"one connection error after every retry: the model's server was never reached ({unreachable})"
    return None


@dataclass
class FirstFailures:
    """Watches the first finished episodes of a run (this process's share of it) for one fatal model error."""

    planned: int
    window: int = WINDOW
    causes: list[str | None] = field(default_factory=list)

    @property
    def needed(self) -> int:
        """How many first episodes decide."""
        return max(1, min(self.window, self.planned))

    def observe(self, record: EpisodeRecord) -> str | None:
        """Note a finished episode; returns the cause to stop for once the first `needed` all failed with it."""
        if len(self.causes) >= self.needed:
            return None
        self.causes.append(fatal_cause(record))
        if len(self.causes) == self.needed and self.causes[0] is not None and len(set(self.causes)) == 1:
            return self.causes[0]
        return None
