"""OmniEAR's shortcut baselines: the fixed explore-then-DONE plan, the stop reply, and their ceilings."""

from __future__ import annotations

from suite.contract.records import Observation, Task
from suite.engine.host import build_host
from suite.validity.baselines import baselines_of
from suite_omniear import prompting
from suite_omniear.valid_replies import explore_then_done, stop_reply


def test_fixed_plan_explores_then_says_done_for_every_agent() -> None:
    task = Task("omniear", "t", {"agents": 2})
    first = prompting.parse_reply(explore_then_done(task, Observation(), 0), 2)
    later = prompting.parse_reply(explore_then_done(task, Observation(), 3), 2)
    assert first.value == {"agent_1": "EXPLORE", "agent_2": "EXPLORE"}
    assert later.value == {"agent_1": "DONE", "agent_2": "DONE"}
    assert prompting.parse_reply(stop_reply(task, Observation()), 2).value == later.value


def test_declared_baselines_and_ceilings() -> None:
    spec = build_host().benchmark("omniear")
    by_name = {b.name: b for b in baselines_of(spec)}
    assert list(by_name) == ["stop-at-once", "random", "fixed-plan"]
    assert all(b.ceiling_for("*") == 5.0 and b.chance_for("*") == 0.0 for b in by_name.values())
