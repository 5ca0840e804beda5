"""When an episode ends: goals met, a loop, too many failures in a row, or the step limits (paper §3.3).

Checked after every turn in this order: all goals met; the same action or sequence of actions repeated more
than 8 times in a row; 10 failed turns in a row; the step limits. The agent may take up to the soft limit
max(int(1.5N), 15) turns; on reaching it the limit grows by 10 when the last 10 turns touched an object the 10
before did not, or met a goal for the first time; it never takes more than the hard limit max(int(2N), 20).
Unparsable turns count as failures but not as actions of a loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_ACTION_REPEATS = 8
MAX_CONSECUTIVE_FAILURES = 10
OBJECT_NOVELTY_WINDOW = 10
SOFT_EXTENSION = 10

SUCCESS = "success"
MAX_REPEATS = "max_repeats"
MAX_FAILURES = "max_failures"
MAX_STEPS = "max_steps"
END_REASONS = (SUCCESS, MAX_REPEATS, MAX_FAILURES, MAX_STEPS)

NO_EXTENSION = "none"
EXTENDED = "extended"
HIT_HARD_LIMIT = "hit_hard_limit"


def repeats_tail(actions: list[str]) -> bool:
    """Whether the list ends with some action, or sequence of actions, repeated more than 8 times in a row."""
    times = MAX_ACTION_REPEATS + 1
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
    steps: int = 0
    failures_in_row: int = 0
    actions: list[str] = field(default_factory=list)
    objects: list[str | None] = field(default_factory=list)
    first_goal_steps: list[int] = field(default_factory=list)
    extension: str = NO_EXTENSION
    reason: str | None = None

    def record(self, action: str | None, obj: str | None, success: bool, all_goals: bool, new_goals: int) -> str | None:
        """Count one turn (`action` None when unparsable) and return the end reason, if the episode ends."""
        self.steps += 1
        if action is not None:
            self.actions.append(action)
        self.objects.append(obj)
        self.failures_in_row = 0 if success else self.failures_in_row + 1
        self.first_goal_steps += [self.steps] * new_goals
        self.reason = self._check(all_goals, action is not None)
        return self.reason

    def _check(self, all_goals: bool, parsed: bool) -> str | None:
        if all_goals:
            return SUCCESS
        if parsed and repeats_tail(self.actions):
            return MAX_REPEATS
        if self.failures_in_row >= MAX_CONSECUTIVE_FAILURES:
            return MAX_FAILURES
        if self.steps >= self.hard:
            self.extension = HIT_HARD_LIMIT
            return MAX_STEPS
        if self.steps >= self.soft:
            if not self.novel():
                return MAX_STEPS
            self.soft += SOFT_EXTENSION
            self.extension = EXTENDED
        return None

    def novel(self) -> bool:
        """Whether the last 10 turns met a goal for the first time or touched an object the 10 before did not."""
        window = OBJECT_NOVELTY_WINDOW
        if any(s > self.steps - window for s in self.first_goal_steps):
            return True
        recent = {o for o in self.objects[-window:] if o}
        before = {o for o in self.objects[-2 * window:-window] if o}
        return bool(recent - before)
