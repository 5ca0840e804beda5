"""HoloMind's control flow end to end with scripted models served through litellm: a plan, a refine, a replan
after a failed action, the recovery, and modules on two different model strings."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite.contract.records import StepRecord, Task
from suite.engine.agents import AgentContext
from suite.engine.loop import TraceSink, run_episode
from suite.models import register_script
from suite.models.client import ModelClient
from suite_longact.holomind.agent import HoloMindAgent
from suite_longact.holomind.experience import POOL_FILE
from suite_longact.holomind.modules import text_of
from suite_longact.scoring import settle

from .conftest import first, kitchen_env, put_on


class Recorder(TraceSink):
    """Keeps the steps."""

    def __init__(self) -> None:
        self.steps: list[StepRecord] = []

    def step(self, record: StepRecord, observation: Any) -> None:
        self.steps.append(record)


def chef(calls: list[str]) -> Any:
    """A scripted model that plays every module, choosing ids only from what its prompt shows."""
    def reply(messages: list[dict[str, Any]]) -> str:
        system, user = messages[0]["content"], text_of(messages[1]["content"])
        ids = lambda t: re.findall(rf"^({t}_\d+) \|", user, re.M)  # noqa: E731
        if "Before the robot acts" in system:
            calls.append("review Pass")
            return json.dumps({"verdict": "Pass", "diagnosis": "fine"})
        if "high-level planner" in system and "Split" in system:
            calls.append("decompose")
            return json.dumps({"goals": [{"id": "g1", "goal": "slice the apple", "after": []}]})
        if "high-level planner" in system:
            calls.append("refine")
            return json.dumps({"goal": "slice the apple on the kitchen counter"})
        if "low-level planner" in system:
            calls.append("ground")
            if "knife" in user.split("Critic feedback:")[1]:
                return json.dumps({"subgoals": ["pick up the knife", "slice the apple"]})
            return json.dumps({"subgoals": ["slice the apple"]})
        if "executor" in system:
            sub = user.split("\n")[0]
            calls.append(f"execute {sub}")
            kind = "Knife" if "knife" in sub else "Apple"
            found = ids(kind)
            if not found:
                return json.dumps({"skill": "look_around", "target": None})
            return json.dumps({"skill": "pick" if kind == "Knife" else "slice", "target": found[0]})
        result = user.split("Result:")[1].split("\n")[0]
        if "look_around" in user.split("Skill call:")[1].split("\n")[0]:
            calls.append("critic Refine")
            return json.dumps({"verdict": "Refine", "diagnosis": "the apple should be in view now"})
        if "failed" in result and "knife" in result:
            calls.append("critic Replan")
            return json.dumps({"verdict": "Replan", "diagnosis": "slicing needs a knife in hand",
                               "rule": "Pick up a knife before slicing."})
        ok = result.startswith(" ok")
        calls.append("critic Pass" if ok else "critic Replan")
        return json.dumps({"verdict": "Pass" if ok else "Replan", "diagnosis": "done" if ok else "retry"})

    return reply


def test_plan_refine_replan_and_recovery_on_two_models() -> None:
    calls: list[str] = []
    register_script("holo-a", chef(calls))
    register_script("holo-b", chef(calls))
    env = kitchen_env([])
    apple, knife = first(env, "Apple"), first(env, "Knife")
    counter = first(env, "CounterTop")
    items = [{"object_id": apple.id, "object_type": "Apple", "attr": "isSliced", "target": True}]
    env = kitchen_env(items, images=[], image_size=300, opaque_ids=True)
    put_on(env.world, apple.id, counter.id)
    put_on(env.world, knife.id, counter.id)
    env.task.max_steps = 600
    env.task.data["instruction"] = "Slice the apple."
    cfg = OmegaConf.create({"agent": {"holomind": {"modules": {
        "high_planner": {"model": None}, "low_planner": {"model": "scripted/holo-b"},
        "executor": {"model": "scripted/holo-b"}, "critic": {"model": None}}}}})
    agent = HoloMindAgent(AgentContext(None, "longact", cfg, ModelClient("scripted/holo-a")))

    class Host:
        def call(self, hook: str, bench: str, **kw: Any) -> Any:
            return env if hook == "make_env" else settle(kw["task"], kw["trajectory"], kw["env"], {})

    sink = Recorder()
    result = asyncio.run(run_episode(Host(), env.task, agent, {}, sink))
    assert result.settlement.outcome == "success", (result.settlement.failure_reason, calls)
    assert calls == ["decompose", "refine", "ground", "review Pass",  # the plan, reviewed by the critic
                     "execute Sub-goal: slice the apple", "critic Refine",  # a look around, refined locally
                     "execute Sub-goal: slice the apple", "critic Replan",  # Slice fails: no knife
                     "ground", "review Pass",  # back to the low-level planner with the critic's diagnosis
                     "execute Sub-goal: pick up the knife", "critic Pass",
                     "execute Sub-goal: slice the apple", "critic Pass"]  # recovered
    slices = [s for s in sink.steps if s.action.value.get("action") == "Slice"]
    assert [s.info["success"] for s in slices] == [False, True]
    replies = "\n".join(s.reply or "" for s in sink.steps)
    assert "[high_planner scripted/holo-a]" in replies and "[executor scripted/holo-b]" in replies
    assert "Pick up a knife before slicing." in agent.episodic.experience
    assert sink.steps[-1].action.value == {"action": "Stop"}
    assert sum(s.usage.prompt_tokens for s in sink.steps) > 0


def test_shared_experience_is_opt_in_ordered_and_resumable(tmp_path: Path) -> None:
    """With `shared_experience` an episode starts from the rules the run's earlier episodes left in the run folder
    (in the order they were learnt); an episode run again first drops its earlier attempt's; off, nothing carries."""
    def begin(episode: str, shared: bool = True) -> HoloMindAgent:
        cfg = OmegaConf.create({"agent": {"holomind": {"shared_experience": shared}}})
        agent = HoloMindAgent(AgentContext(None, "longact", cfg, ModelClient("scripted/holo-a"), run_dir=tmp_path))
        asyncio.run(agent.begin(Task("longact", episode, {"instruction": "Slice the apple."}), None))
        return agent

    fridge, knife = "Open the fridge before placing into it.", "Pick up a knife before slicing."
    alone = begin("e0", shared=False)
    alone._learn(fridge)
    assert not (tmp_path / POOL_FILE).exists() and fridge not in begin("e1").episodic.experience
    first_agent = begin("e1")
    first_agent._learn(fridge)
    second = begin("e2")
    assert fridge in second.episodic.experience and fridge not in begin("e3", shared=False).episodic.experience
    second._learn(knife)
    rules = begin("e3").episodic.experience
    assert rules.index(fridge) < rules.index(knife)
    begin("e2")  # e2 again (a resumed run): the rules of its first attempt are dropped, e1's stay
    assert [json.loads(line)["episode"] for line in (tmp_path / POOL_FILE).read_text().splitlines()] == ["longact/e1"]


@pytest.mark.parametrize("flags", [["--concurrency", "2"], ["--concurrency", "1", "--executor", "ray"]])
def test_shared_experience_needs_one_episode_at_a_time(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        flags: list[str]) -> None:
    """Episodes that carry rules depend on their order: a run that would not keep it is refused before it starts."""
    from suite.cli.main import main

    out = tmp_path / "run"
    assert main(["run", "--plugins", "longact", "--agent", "holomind", "--model", "scripted/holomind-rules",
                 "--limit", "1", "--out", str(out), "agent.holomind.shared_experience=true", *flags]) == 2
    assert "pass --concurrency 1 with the local executor" in capsys.readouterr().err
    assert not out.exists()


def test_bad_holomind_settings_fail_in_one_line() -> None:
    import pytest
    from suite.contract.errors import ConfigError

    for bad, words in (({"shared_experience": "maybe"}, "agent.holomind.shared_experience"),
                       ({"modules": {"critc": {"model": "x"}}}, "agent.holomind.modules.critc")):
        cfg = OmegaConf.create({"agent": {"holomind": bad}})
        with pytest.raises(ConfigError, match=words.replace(".", r"\.")):
            HoloMindAgent(AgentContext(None, "longact", cfg, ModelClient("scripted/holo-a")))


def test_the_critic_can_judge_every_raw_action_as_the_paper_does() -> None:
    """`critic_every=step`: the critic watches each raw action of a running skill (one call per action, the paper's
    protocol) on top of the verdict at the skill's end; `skill` (the default) makes no such call. A watcher that
    answers anything but Pass stops the skill at once."""
    def run(every: str, watch: str) -> tuple[list[str], Any, Recorder, HoloMindAgent]:
        calls: list[str] = []
        base = chef(calls)

        def reply(messages: list[dict[str, Any]]) -> str:
            if "watching one of its skills" in messages[0]["content"]:
                calls.append("watch")
                return json.dumps({"verdict": watch, "diagnosis": "stop here" if watch != "Pass" else "fine"})
            return base(messages)

        register_script(f"holo-watch-{every}-{watch}", reply)
        env = kitchen_env([])
        apple, knife, counter = first(env, "Apple"), first(env, "Knife"), first(env, "CounterTop")
        items = [{"object_id": apple.id, "object_type": "Apple", "attr": "isSliced", "target": True}]
        env = kitchen_env(items, images=[], image_size=300, opaque_ids=True)
        put_on(env.world, apple.id, counter.id)
        put_on(env.world, knife.id, counter.id)
        env.task.max_steps = 120
        env.task.data["instruction"] = "Slice the apple."
        cfg = OmegaConf.create({"agent": {"holomind": {"critic_every": every}}})
        agent = HoloMindAgent(AgentContext(None, "longact", cfg, ModelClient(f"scripted/holo-watch-{every}-{watch}")))

        class Host:
            def call(self, hook: str, bench: str, **kw: Any) -> Any:
                return env if hook == "make_env" else settle(kw["task"], kw["trajectory"], kw["env"], {})

        sink = Recorder()
        result = asyncio.run(run_episode(Host(), env.task, agent, {}, sink))
        return calls, result, sink, agent

    calls, result, sink, _ = run("step", "Pass")
    assert result.settlement.outcome == "success"
    assert calls.count("watch") == len(sink.steps) - 1  # every raw action but the final Stop
    calls, result, sink, _ = run("skill", "Pass")
    assert result.settlement.outcome == "success" and "watch" not in calls
    calls, _, _, agent = run("step", "Refine")
    assert any(t.startswith("critic stopped") for t in agent.trace)
