"""A run's infra failures (`model_error`, `env_error`, `timeout`): how many, their most common cause, and the one
line a run that ends with some prints."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from suite.contract.records import INFRA_OUTCOMES

#: What differs between two reports of one fault (an object's address in a repr)
VOLATILE = re.compile(r"\b0x[0-9a-fA-F]+\b")
#: How much of the most common cause the summary line shows
CAUSE_CHARS = 240


def is_infra(outcome: str) -> bool:
    """Whether an episode outcome is an infra failure (it leaves the agent's denominators)."""
    return outcome in INFRA_OUTCOMES


def same_fault(text: str) -> str:
    """A failure reason with what differs between two reports of one fault masked, so that they compare equal."""
    return VOLATILE.sub("0x…", " ".join(text.split()))


def status_with_infra(status: str, infra: int) -> str:
    """The status every command shows: a complete run with infra failures says how many (`complete, 9 infra
    failures`), so it is never mistaken for a clean one."""
    if status != "complete" or not infra:
        return status
    return f"complete, {infra} infra failure{'s' if infra != 1 else ''}"


@dataclass(frozen=True)
class InfraSummary:
    """How many finished episodes ended in each infra outcome, and the most common cause with its count."""

    total: int
    finished: int
    outcomes: dict[str, int]
    cause: str
    cause_count: int

    def line(self, root: Path | str) -> str:
        """One line: how many, the most common cause, and the command that runs them again."""
        kinds = ", ".join(f"{n} {o}" for o, n in sorted(self.outcomes.items()))
        cause = self.cause if len(self.cause) <= CAUSE_CHARS else self.cause[:CAUSE_CHARS - 1] + "…"
        return (f"infra failures: {self.total} of {self.finished} episodes ({kinds}), not counted in any score; most "
                f"common cause ({self.cause_count}x): {cause}; fix it, then run them again with "
                f"`suite run --resume {root} --retry-infra`")


def summarize_infra(records: Iterable[dict[str, Any]]) -> InfraSummary | None:
    """The infra failures among a run's finished episode records (None when there are none)."""
    records = list(records)
    failed = [r for r in records if is_infra(r["outcome"])]
    if not failed:
        return None
    causes = Counter(f"{r['outcome']}: {same_fault(r.get('failure_reason') or 'no reason given')}" for r in failed)
    cause, count = causes.most_common(1)[0]
    return InfraSummary(len(failed), len(records), dict(Counter(r["outcome"] for r in failed)), cause, count)
