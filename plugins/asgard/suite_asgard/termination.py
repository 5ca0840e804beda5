"""When an episode ends: goals met, a loop, too many failures in a row, or the step limits (paper §3.3).

Checked after every turn in this order, as the official harness does: all goals met; the same action or
sequence of actions repeated 8 times in a row at the end of the history (unparsable turns are in that history,
as one and the same entry); 10 failed turns in a row; the step limits. The step limits end an episode once the
turn count *exceeds* them: past the hard limit max(int(2N), 20) always; past the soft limit max(int(1.5N), 15)
unless the agent made progress, in which case the soft limit grows by 10. Progress is, first, a sticky flag
that any CLEAN, SLICE, SPRAY or DRINK whose preconditions held sets and that one extension consumes; failing
that, an object named in the last 10 turns that the 10 before did not name.

`TerminationRules` holds the three points where the paper's text reads differently (see the README):
`loop_repeats` (9 for "more than eight times"), `loop_counts_unparsable` and `progress` (`first_goal`: a goal
met for the first time in the last 10 turns, instead of the harness's action flag).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from suite.contract.errors import ConfigError

MAX_ACTION_REPEATS = 8
MAX_CONSECUTIVE_FAILURES = 10
OBJECT_NOVELTY_WINDOW = 10
SOFT_EXTENSION = 10
#: What an unparsable turn is in the loop history and in the novelty check (the harness's "None None").
UNPARSABLE_ENTRY = "(unparsable)"
#: Actions that set the progress flag once their preconditions hold.
PROGRESS_ACTIONS = frozenset({"CLEAN", "SLICE", "SPRAY", "DRINK"})

SUCCESS = "success"
MAX_REPEATS = "max_repeats"
MAX_FAILURES = "max_failures"
MAX_STEPS = "max_steps"
END_REASONS = (SUCCESS, MAX_REPEATS, MAX_FAILURES, MAX_STEPS)

NO_EXTENSION = "none"
EXTENDED = "extended"
HIT_HARD_LIMIT = "hit_hard_limit"

ACTION_FLAG = "action_flag"
FIRST_GOAL = "first_goal"
PROGRESS_RULES = (ACTION_FLAG, FIRST_GOAL)


@dataclass(frozen=True)
class TerminationRules:
    """The settings of the end rules: the harness's by default (`asgard.termination`)."""

    loop_repeats: int = MAX_ACTION_REPEATS
    loop_counts_unparsable: bool = True
    progress: str = ACTION_FLAG

    @classmethod
    def from_config(cls, section: Any) -> TerminationRules:
        """The rules of an `asgard.termination` mapping (missing keys keep the harness's values)."""
        values = dict(section or {})
        unknown = set(values) - {"loop_repeats", "loop_counts_unparsable", "progress"}
        if unknown:
            raise ConfigError(f"asgard.termination: unknown setting(s) {', '.join(sorted(unknown))}")
        rules = cls(**values)
        if not isinstance(rules.loop_repeats, int) or rules.loop_repeats < 2:
            raise ConfigError(f"asgard.termination.loop_repeats: expected an integer >= 2, got {rules.loop_repeats!r}")
        if rules.progress not in PROGRESS_RULES:
            raise ConfigError(f"asgard.termination.progress: {rules.progress!r} is not one of {PROGRESS_RULES}")
        return rules

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (kept in task data)."""
        return {"loop_repeats": self.loop_repeats, "loop_counts_unparsable": self.loop_counts_unparsable,
                "progress": self.progress}


def repeats_tail(actions: list[str], times: int = MAX_ACTION_REPEATS) -> bool:
    """Whether the list ends with some action, or sequence of actions, repeated `times` times in a row."""
    n = len(actions)
    for length in range(1, n // times + 1):
        tail = actions[n - length:]
        if all(actions[n - (i + 1) * length: n - i * length] == tail for i in range(1, times)):
            return True
    return False


@dataclass
class Termination:
    """Tracks one episode's turns and says when and why it ends."""

    soft: int
    hard: int
    rules: TerminationRules = field(default_factory=TerminationRules)
    steps: int = 0
    failures_in_row: int = 0
    actions: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    first_goal_steps: list[int] = field(default_factory=list)
    progress_flag: bool = False
    extension: str = NO_EXTENSION
    reason: str | None = None

    def record(self, action: str | None, obj: str | None, success: bool, all_goals: bool, new_goals: int = 0,
               progress: bool = False) -> str | None:
        """Count one turn and return the end reason, if the episode ends.

        `action` is the turn's `ACTION OBJECT` (None when unparsable), `progress` whether it was a CLEAN, SLICE,
        SPRAY or DRINK whose preconditions held, `new_goals` how many goals it met for the first time.
        """
        self.steps += 1
        parsed = action is not None
        if parsed or self.rules.loop_counts_unparsable:
            self.actions.append(action if action is not None else UNPARSABLE_ENTRY)
        self.objects.append(obj if parsed and obj is not None else UNPARSABLE_ENTRY)
        self.failures_in_row = 0 if success else self.failures_in_row + 1
        self.first_goal_steps += [self.steps] * new_goals
        self.progress_flag = self.progress_flag or progress
        self.reason = self._check(all_goals, parsed)
        return self.reason

    def _check(self, all_goals: bool, parsed: bool) -> str | None:
        if all_goals:
            return SUCCESS
        if (parsed or self.rules.loop_counts_unparsable) and repeats_tail(self.actions, self.rules.loop_repeats):
            return MAX_REPEATS
        if self.failures_in_row >= MAX_CONSECUTIVE_FAILURES:
            return MAX_FAILURES
        if self.steps > self.hard:
            self.extension = HIT_HARD_LIMIT
            return MAX_STEPS
        if self.steps > self.soft:
            if not (self._progress() or self.novel()):
                return MAX_STEPS
            self.soft += SOFT_EXTENSION
            self.extension = EXTENDED
        return None

    def _progress(self) -> bool:
        """The subgoal half of the extension rule (consumes the harness's flag)."""
        if self.rules.progress == FIRST_GOAL:
            return any(s > self.steps - OBJECT_NOVELTY_WINDOW for s in self.first_goal_steps)
        found, self.progress_flag = self.progress_flag, False
        return found

    def novel(self) -> bool:
        """Whether the last 10 turns named an object the 10 before did not (an unparsable turn names one)."""
        window = OBJECT_NOVELTY_WINDOW
        recent = set(self.objects[-window:])
        before = set(self.objects[-2 * window:-window])
        return bool(recent - before)
