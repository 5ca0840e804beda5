"""The taxonomy's precedence rule shared by every plugin (docs/plugins.md: "Outcomes")."""

from __future__ import annotations

import pytest
from suite.contract.records import Action, StepRecord, Task, Trajectory
from suite.engine.outcomes import failure_outcome, unparsable_steps


@pytest.mark.parametrize(
    ("replies", "unparsable", "budget_spent", "expected"),
    [
        (35, 35, True, "parse_failure"),  # a step cap reached by unparsable replies is still a parse failure
        (10, 10, False, "parse_failure"),  # ended by a failure limit
        (35, 34, True, "budget_exhausted"),  # one parsed reply: the agent acted, then ran out of steps
        (4, 3, False, "agent_failure"),
        (0, 0, False, "agent_failure"),  # no reply at all is no parse failure
        (0, 0, True, "budget_exhausted"),
    ],
)
def test_failure_outcome_precedence(replies: int, unparsable: int, budget_spent: bool, expected: str) -> None:
    assert failure_outcome(replies, unparsable, budget_spent) == expected


def test_unparsable_steps_counts_parse_failures() -> None:
    traj = Trajectory(Task("b", "t", {}))
    traj.steps = [StepRecord(0, Action("x")), StepRecord(1, Action.failure("no tag")), StepRecord(2, Action("y"))]
    assert unparsable_steps(traj) == 1
