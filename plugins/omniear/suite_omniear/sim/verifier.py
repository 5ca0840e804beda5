"""Task verification: which validation checks hold now, with the reference's matching rules."""

from __future__ import annotations

from typing import Any

from suite_omniear.data import COLLABORATION_CATEGORIES, Check, TaskSpec
from suite_omniear.sim.world import World

COLLABORATION_WORDS = (
    "cooperate",
    "cooperation",
    "cooperatively",
    "work together",
    "collaborate",
    "collaboration",
    "together",
    "jointly",
    "team up",
)
COOP_KEY = "cooperative_modified_attributes"
#: The DONE report before and after the task completed (the reference formats done / 1 as a percentage).
DONE_MESSAGES = tuple(
    f"DONE command executed - Global task verification: {done}/1 tasks completed ({done / 1:.1%})" for done in (0, 1)
)


def needs_cooperation(task: TaskSpec) -> bool:
    """Collaboration categories, or any description containing a cooperation word (even inside an id)."""
    if task.category in COLLABORATION_CATEGORIES:
        return True
    text = task.description.lower()
    return any(word in text for word in COLLABORATION_WORDS)


def location_matches(actual: str, expected: str) -> bool:
    """`in:X`/`on:X` must match exactly; `:X` or a bare `X` accepts either relation."""
    if expected.startswith(("in:", "on:")):
        return actual == expected
    target = expected[1:] if expected.startswith(":") else expected
    return actual.partition(":")[2] == target if ":" in actual else actual == target


def condition_holds(world: World, obj_id: str, key: str, expected: Any, cooperative: bool) -> bool:
    """One condition of a check: location string match, or a `states` value (plus the cooperative mark)."""
    obj = world.objects.get(obj_id)
    if obj is None:
        return False
    if key == "location_id":
        return location_matches(obj.location_id, expected)
    if key not in obj.states or obj.states[key] != expected:
        return False
    return not cooperative or key in obj.states.get(COOP_KEY, ())


class Verifier:
    """Evaluates a task's checks against the world; completion is sticky once every check held."""

    def __init__(self, task: TaskSpec) -> None:
        self.checks: tuple[Check, ...] = task.checks
        self.cooperative = needs_cooperation(task)
        self.completed = False
        self._cached: tuple[int, tuple[int, ...]] = (-1, ())

    def passed(self, world: World) -> tuple[int, ...]:
        """Indices of the checks that hold right now (recomputed only after the world changed)."""
        if self._cached[0] == world.version:
            return self._cached[1]
        coop = self.cooperative
        result = []
        for index, check in enumerate(self.checks):
            if check.object_id not in world.objects:
                continue
            for key, value in check.conditions:
                if not condition_holds(world, check.object_id, key, value, coop):
                    break
            else:
                result.append(index)
        self._cached = (world.version, tuple(result))
        return self._cached[1]

    def all_hold(self, world: World) -> bool:
        """Every check holds now (a task without checks never completes, as in the reference)."""
        return bool(self.checks) and len(self.passed(world)) == len(self.checks)

    def update(self, world: World) -> bool:
        """Re-evaluate after a step or a DONE and return the sticky completion flag."""
        if not self.completed and self.all_hold(world):
            self.completed = True
        return self.completed

    def done_message(self) -> str:
        """The DONE command's report line."""
        return DONE_MESSAGES[self.completed]
