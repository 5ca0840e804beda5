"""OmniEAR's settlement follows the taxonomy's precedence: unparsable replies up to the step cap are a parse failure."""

from __future__ import annotations

from suite.contract.records import Action, StepRecord, Task, Trajectory
from suite_omniear.scoring import settle


def _trajectory(actions: list[Action], end_reason: str) -> tuple[Task, Trajectory]:
    task = Task("omniear", "t", {"agents": 1, "scalar_max_size": False}, max_steps=len(actions))
    traj = Trajectory(task, steps=[StepRecord(i, a) for i, a in enumerate(actions)], end_reason=end_reason)
    return task, traj


def test_all_unparsable_to_the_step_cap_is_a_parse_failure() -> None:
    task, traj = _trajectory([Action.failure("Agent_1_Action not found")] * 35, "max_steps")
    got = settle(task, traj, success=False, done_claims=[])
    assert (got.outcome, got.category, got.metrics["parse_failures"]) == ("parse_failure", "unparsable", 35)


def test_one_parsed_reply_then_the_step_cap_is_budget_exhausted() -> None:
    actions = [Action({"agent_1": "EXPLORE"}, "EXPLORE")] + [Action.failure("Agent_1_Action not found")] * 34
    task, traj = _trajectory(actions, "max_steps")
    got = settle(task, traj, success=False, done_claims=[])
    assert (got.outcome, got.category) == ("budget_exhausted", "step_cap")


def test_success_wins_over_everything() -> None:
    task, traj = _trajectory([Action.failure("Agent_1_Action not found")] * 35, "max_steps")
    assert settle(task, traj, success=True, done_claims=[]).outcome == "success"
