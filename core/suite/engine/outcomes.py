"""The failure taxonomy's precedence: which one outcome an episode that did not succeed gets (docs/plugins.md).

Success comes first, then the core's infra outcomes (`model_error`, `env_error`, `timeout`, applied by the loop
over every outcome but success), then this rule, checked in order, first match wins:

1. `parse_failure`: the agent gave at least one reply and none of them could be parsed into an action, however
   the episode then ended (a step cap or a failure limit reached by unparsable replies is the symptom, not the
   cause);
2. `budget_exhausted`: the episode used up its step (or turn) budget;
3. `agent_failure`: anything else (the benchmark's own category says what).

An episode a stall limit ended (end reason `stalled`: the same failed action N times in a row) is the agent's
failure whatever its plugin settled it as (`stalled_outcome`): `parse_failure` when no reply parsed, else
`agent_failure`; never an infra outcome, nor `budget_exhausted` (it stopped short of its budget).
"""

from __future__ import annotations

from suite.contract.records import Trajectory

PARSE_FAILURE = "parse_failure"
BUDGET_EXHAUSTED = "budget_exhausted"
AGENT_FAILURE = "agent_failure"
#: the end reason of an episode a stall limit ended (`suite.engine.stall`)
STALLED = "stalled"


def unparsable_steps(trajectory: Trajectory) -> int:
    """The steps whose reply the plugin's `parse_action` could not turn into an action."""
    return sum(not s.action.ok for s in trajectory.steps)


def failure_outcome(replies: int, unparsable: int, budget_spent: bool) -> str:
    """The outcome of an episode that did not succeed, by the taxonomy's precedence (module docstring)."""
    if replies and unparsable >= replies:
        return PARSE_FAILURE
    return BUDGET_EXHAUSTED if budget_spent else AGENT_FAILURE


def stalled_outcome(outcome: str) -> str:
    """The outcome of a stalled episode its plugin settled as `outcome`: success and the agent's own failures stand,
    anything else (an infra outcome, `budget_exhausted`) is `agent_failure`."""
    return outcome if outcome in ("success", PARSE_FAILURE, AGENT_FAILURE) else AGENT_FAILURE
