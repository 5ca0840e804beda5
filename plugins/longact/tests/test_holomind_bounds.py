"""HoloMind against degenerate replies (issue 20): its module readers never raise on any reply, and its caps bound
the model calls a step can make (goals per plan, rules in a prompt, calls per step)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf
from suite.contract.records import StepRecord
from suite.engine.agents import AgentContext
from suite.engine.loop import TraceSink, run_episode
from suite.models import register_script
from suite.models.client import ModelClient
from suite.models.reply import ModelReply
from suite.testing.replies import MB, hostile_replies, json_values
from suite_longact.holomind.agent import HoloMindAgent
from suite_longact.holomind.caps import Caps
from suite_longact.holomind.modules import Modules
from suite_longact.scoring import settle

from .conftest import first, kitchen_env


class Canned:
    """A module client that answers every call with the reply it is given."""

    model = "canned"

    def __init__(self) -> None:
        self.text = ""

    async def complete(self, messages: list[dict[str, Any]], **_: Any) -> ModelReply:
        return ModelReply(self.text, 1, 1, 0.0, False, 0.0, "h", 1, "canned")


def read_all(text: str) -> list[Any]:
    """Every module's reading of one reply (the same reply to each)."""
    client = Canned()
    client.text = text
    modules = Modules(dict.fromkeys(("high_planner", "low_planner", "executor", "critic"), client), "e",
                      caps=Caps(goals=10**9, calls_per_step=10**9))

    async def go() -> list[Any]:
        return [await modules.decompose("Make coffee.", ""), await modules.refine("g", [], [], ""),
                await modules.ground("g", "", ""), await modules.translate("s", "", "", ""),
                await modules.judge("plan", "s", "c", "ok", "", "")]

    return asyncio.run(go())


def test_a_number_where_text_is_expected_is_read_as_no_value() -> None:
    plan, *_ = read_all(json.dumps({"goals": [{"id": 7, "goal": "brew", "after": 3},
                                              {"id": [1], "goal": "pour", "after": ["g1", 7, {"x": 1}]}]}))
    assert plan == [{"id": "7", "goal": "brew", "after": []}, {"id": "g2", "goal": "pour", "after": ["g1", "7"]}]
    *_, (verdict, diagnosis, rule) = read_all(json.dumps({"verdict": 3, "diagnosis": [1], "rule": 2}))
    assert (verdict, diagnosis, rule) == ("Replan", "the critic's reply was not a verdict", None)
    assert read_all(json.dumps({"skill": "pick", "target": {"id": 1}}))[3] == ("pick", None)


@pytest.mark.parametrize("name", [name for name, _ in hostile_replies()])
def test_every_module_reads_a_hostile_reply_in_bounded_time(name: str) -> None:
    reply = dict(hostile_replies())[name]
    started = time.perf_counter()
    plan, goal, subgoals, (skill, _), (verdict, _, _) = read_all(reply)
    elapsed = time.perf_counter() - started
    assert plan and isinstance(goal, str) and isinstance(subgoals, list) and isinstance(skill, str)
    assert verdict in ("Pass", "Refine", "Replan")
    assert elapsed < 5 * 5 * max(1.0, len(reply) / MB)  # five readings, each far under 5 s per megabyte


KEYS = st.sampled_from(["goals", "goal", "id", "after", "subgoals", "skill", "target", "verdict", "diagnosis",
                        "rule"])


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(KEYS, json_values, max_size=5)
       | st.fixed_dictionaries({"goals": st.lists(st.dictionaries(KEYS, json_values, max_size=4), max_size=4)}))
def test_every_module_reads_any_json_value_under_its_keys(obj: dict[str, Any]) -> None:
    try:
        text = json.dumps(obj)
    except ValueError:
        return
    plan, goal, subgoals, (skill, target), (verdict, diagnosis, rule) = read_all(text)
    assert all(isinstance(g["id"], str) and isinstance(g["goal"], str) and all(isinstance(a, str) for a in g["after"])
               for g in plan)
    assert isinstance(goal, str) and all(isinstance(s, str) for s in subgoals)
    assert isinstance(skill, str) and (target is None or isinstance(target, str))
    assert verdict in ("Pass", "Refine", "Replan") and isinstance(diagnosis, str)
    assert rule is None or isinstance(rule, str)


class Recorder(TraceSink):
    """Keeps the steps."""

    def __init__(self) -> None:
        self.steps: list[StepRecord] = []

    def step(self, record: StepRecord, observation: Any) -> None:
        self.steps.append(record)


def degenerate(goals: int, calls: list[str]) -> Any:
    """A stand-in model whose planner gives `goals` goals, whose executor names no usable skill, and whose critic
    always asks for a replan with a new rule: without caps, one step makes thousands of calls."""
    def reply(messages: list[dict[str, Any]]) -> str:
        system = messages[0]["content"]
        calls.append(str(messages[1]["content"]))
        if system.startswith("You are the critic"):
            return json.dumps({"verdict": "Replan", "diagnosis": "again", "rule": f"rule number {len(calls)}"})
        if "high-level planner" in system and "Split" in system:
            return json.dumps({"goals": [{"id": f"g{i}", "goal": f"goal {i}", "after": []} for i in range(goals)]})
        if "high-level planner" in system:
            return json.dumps({"goal": "do it"})
        if "low-level planner" in system:
            return json.dumps({"subgoals": [f"sub {i}" for i in range(12)]})
        if "executor" in system:
            return json.dumps({"skill": "no_such_skill", "target": None})
        return json.dumps({"verdict": "Replan", "diagnosis": "again", "rule": f"rule number {len(calls)}"})

    return reply


def holomind_episode(model: str, **holomind: Any) -> tuple[Any, HoloMindAgent, Recorder]:
    apple = first(kitchen_env([]), "Apple")
    env = kitchen_env([{"object_id": apple.id, "object_type": "Apple", "attr": "isSliced", "target": True}])
    env.task.max_steps = 50
    env.task.data["instruction"] = "Slice the apple."
    cfg = OmegaConf.create({"agent": {"holomind": holomind}})
    agent = HoloMindAgent(AgentContext(None, "longact", cfg, ModelClient(model, cache=None)))

    class Host:
        def call(self, hook: str, bench: str, **kw: Any) -> Any:
            return env if hook == "make_env" else settle(kw["task"], kw["trajectory"], kw["env"], {})

    sink = Recorder()
    return asyncio.run(run_episode(Host(), env.task, agent, {}, sink)), agent, sink


def test_a_plan_of_too_many_goals_ends_the_episode_as_the_agents_failure() -> None:
    calls: list[str] = []
    register_script("holo-many-goals", degenerate(500, calls))
    result, _, sink = holomind_episode("scripted/holo-many-goals", max_goals=24)
    assert len(calls) == 1  # the plan, then nothing more
    assert result.settlement.outcome == "agent_failure"
    assert "500 goals" in result.settlement.failure_reason and "max_goals=24" in result.settlement.failure_reason
    assert sink.steps[-1].action.value == {"action": "Stop"}


def test_calls_without_an_action_are_capped_and_rules_in_a_prompt_too() -> None:
    calls: list[str] = []
    register_script("holo-critic-loop", degenerate(20, calls))
    result, agent, sink = holomind_episode("scripted/holo-critic-loop", max_calls_per_step=40, max_rules=5)
    assert len(calls) == 40
    assert result.settlement.outcome == "agent_failure"
    assert "40 model calls without an action" in result.settlement.failure_reason
    [step] = sink.steps  # the one step that never got an action
    made = [f"rule number {i + 1}" for i, c in enumerate(step.calls) if c["module"] == "critic"]  # every critic call
    assert len(made) > 5 and agent.episodic.experience == made[-5:]  # the newest five rules are kept
    shown = [set(re.findall(r"rule number \d+", c)) for c in calls]
    assert max(map(len, shown)) == 5  # no prompt shows more than the newest five rules
    assert len(step.calls) == 40 and step.calls[0]["module"] == "high_planner"


def test_the_caps_are_settings_with_defaults() -> None:
    assert Caps.of(OmegaConf.create({})) == Caps(24, 16, 64)
    cfg = OmegaConf.create({"agent": {"holomind": {"max_goals": 0}}})
    from suite.contract.errors import ConfigError

    with pytest.raises(ConfigError, match=r"agent\.holomind\.max_goals"):
        HoloMindAgent(AgentContext(None, "longact", cfg, ModelClient("scripted/holo-critic-loop")))
