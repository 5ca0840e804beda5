"""HoloMind's bounds on its own model calls (agent.holomind.max_*): a degenerate plan or critic cannot make a step
cost thousands of requests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class CapReached(Exception):
    """A cap was hit: the agent stops the episode, and the reason is its failure's note."""


@dataclass(frozen=True)
class Caps:
    """At most `goals` goals in a plan (more ends the episode), the newest `rules` experience rules in a prompt (older
    ones are dropped), and `calls_per_step` model calls between two actions (one more ends the episode)."""

    goals: int = 24
    rules: int = 16
    calls_per_step: int = 64

    @classmethod
    def of(cls, section: Any) -> Caps:
        """The caps an `agent.holomind` section sets (the defaults for those it leaves out)."""
        base = cls()
        return cls(int(section.get("max_goals", base.goals)), int(section.get("max_rules", base.rules)),
                   int(section.get("max_calls_per_step", base.calls_per_step)))
