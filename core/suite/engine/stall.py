"""A run that makes no progress: an episode repeating the same failed action is warned about once, and a stall limit
(its benchmark's protocol rule, or `run.stall_limit`) ends it as `stalled`, the agent's failure."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from suite.contract.records import StepRecord

#: How much of the repeated action a warning shows.
SHOWN_CHARS = 80


@dataclass(frozen=True)
class StallRule:
    """After how many identical failed actions in a row an episode is warned about, and ended (0: never)."""

    warn_after: int = 0
    end_after: int = 0

    def __bool__(self) -> bool:
        """Whether the rule does anything."""
        return bool(self.warn_after or self.end_after)


def stall_rule(run: Any, declared: int | None) -> StallRule:
    """A benchmark's rule in a run: `run.repeat_warning`, and `run.stall_limit` when set, else the benchmark's
    declared `BenchmarkSpec.stall_limit` (`run` is the run's config section)."""
    limit = run.get("stall_limit")
    return StallRule(int(run.get("repeat_warning") or 0), int(declared or 0) if limit is None else int(limit))


def _key(record: StepRecord) -> str:
    """What makes two failed steps the same action: the parsed action, or the reply that did not parse."""
    action = record.action
    if not action.ok:
        return f"reply:{record.reply}"
    return f"action:{json.dumps(action.value, sort_keys=True, default=str)}"


def _shown(record: StepRecord) -> str:
    action = record.action
    text = action.text or (repr(action.value) if action.ok else f"unparsable: {record.reply or ''}")
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


class StallWatch:
    """Counts one episode's identical failed actions in a row against its rule."""

    def __init__(self, rule: StallRule, episode: str) -> None:
        self.rule = rule
        self.episode = episode
        self.count = 0
        self.stalled = False
        self.reason = ""
        self._key: str | None = None
        self._warned = False

    def observe(self, record: StepRecord, failed: bool) -> str | None:
        """Count one finished step (`failed`: its action failed or did not parse); returns the warning to give
        now (at most one per episode), and sets `stalled` once the episode must end."""
        if not failed:
            self._key, self.count = None, 0
            return None
        key = _key(record)
        self.count = self.count + 1 if key == self._key else 1
        self._key = key
        repeated = f"the same failed action {self.count} times in a row ({_shown(record)})"
        if 0 < self.rule.end_after <= self.count:
            self.stalled, self.reason = True, f"stalled: {repeated} (stall limit {self.rule.end_after})"
            return self._warn(f"{self.episode}: ended as stalled after {repeated}")
        if 0 < self.rule.warn_after <= self.count:
            then = (f"it ends as stalled at {self.rule.end_after}" if self.rule.end_after
                    else "it runs on to its step budget (run.stall_limit=N ends such episodes)")
            return self._warn(f"{self.episode}: {repeated}: the agent makes no progress; {then}")
        return None

    def _warn(self, message: str) -> str | None:
        if self._warned:
            return None
        self._warned = True
        return message


def protocol_note(run: Any, benchmark: str, declared: int | None) -> str | None:
    """Why a run's `run.stall_limit` makes `benchmark`'s episodes end otherwise than its protocol says (`declared`:
    its `BenchmarkSpec.stall_limit`), or None when it does not."""
    limit = run.get("stall_limit")
    if limit is None or int(limit) == int(declared or 0):
        return None
    rule = (f"its protocol ends them after {declared} identical failed actions in a row" if declared
            else "its protocol has no such rule")
    ends = (f"{benchmark} episodes end as stalled after {int(limit)} identical failed actions in a row" if limit
            else f"{benchmark} episodes never end as stalled")
    return f"run.stall_limit={int(limit)}: {ends}, and {rule}: this run is not the paper's protocol"
