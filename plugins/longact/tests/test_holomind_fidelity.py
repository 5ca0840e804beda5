"""HoloMind as the paper describes it (issue 22): images to the executor and the critic, the critic judging the plan
and the observation, escalation to the high-level planner, Table 4's module removals, every module call in the
trace and the report, goals given up never passed on as done, and the shipped stand-in's Refine."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite.contract.errors import ConfigError
from suite.engine.agents import AgentContext
from suite.engine.loop import run_episode
from suite.models import register_script
from suite.models.client import ModelClient
from suite_longact.holomind.agent import HoloMindAgent
from suite_longact.holomind.modules import text_of
from suite_longact.plugin import holomind_images
from suite_longact.report_view import report_view
from suite_longact.scoring import settle

from .conftest import first, kitchen_env, put_on
from .test_holomind import Recorder


def slicer(log: list[tuple[str, Any]], *, stubborn: bool = False, give_up: bool = False) -> Any:
    """Every module for 'slice the apple': the low-level planner asks for the knife only when the goal names it
    (`stubborn`) or when the critic's feedback does; the critic replans a failed slice."""
    def reply(messages: list[dict[str, Any]]) -> str:
        system, content = messages[0]["content"], messages[1]["content"]
        user = text_of(content)
        images = sum(1 for p in content if p.get("type") == "image_url") if isinstance(content, list) else 0
        ids = lambda t: re.findall(rf"^({t}_\d+) \|", user, re.M)  # noqa: E731
        if "Before the robot acts" in system:
            log.append(("review", user))
            return json.dumps({"verdict": "Pass", "diagnosis": "sound"})
        if "Reconsider the goal" in system:
            log.append(("reassess", user))
            if give_up:
                return json.dumps({"goal": "", "give_up": True})
            return json.dumps({"goal": "pick up the knife, then slice the apple", "give_up": False})
        if "Split the instruction" in system:
            log.append(("decompose", user))
            return json.dumps({"goals": [{"id": "g1", "goal": "slice the apple", "after": []},
                                         {"id": "g2", "goal": "leave the apple sliced", "after": ["g1"]}]})
        if "high-level planner" in system:
            log.append(("refine", user))
            return json.dumps({"goal": user.split("Next goal:")[1].split("\n")[0].strip()})
        if "low-level planner" in system:
            log.append(("ground", user))
            goal = user.split("Goal:")[1].split("\n")[0]
            feedback = user.split("Critic feedback:")[1]
            if "knife" in goal or (not stubborn and "knife" in feedback):
                return json.dumps({"subgoals": ["pick up the knife", "slice the apple"]})
            return json.dumps({"subgoals": ["slice the apple"]})
        if "executor" in system:
            sub = user.split("Sub-goal:")[1].split("\n")[0]
            log.append(("executor", images))
            kind = "Knife" if "knife" in sub else "Apple"
            found = ids(kind)
            if not found:
                return json.dumps({"skill": "look_around", "target": None})
            return json.dumps({"skill": "pick" if kind == "Knife" else "slice", "target": found[0]})
        log.append(("critic", (user, images)))
        result = user.split("Result:")[1].split("\n")[0]
        if "Skill call: look_around" in user:
            return json.dumps({"verdict": "Refine", "diagnosis": "the apple should be in view now"})
        if result.startswith(" ok"):
            return json.dumps({"verdict": "Pass", "diagnosis": "done"})
        return json.dumps({"verdict": "Replan", "diagnosis": "slicing needs a knife in hand",
                           "rule": "Pick up a knife before slicing."})

    return reply


def run(name: str, script: Any, section: dict[str, Any], images: list[str] | None = None) -> tuple[Any, Any, Any]:
    """One HoloMind episode of slicing the apple in a kitchen, with a scripted model."""
    register_script(name, script)
    env = kitchen_env([])
    apple, knife, counter = first(env, "Apple"), first(env, "Knife"), first(env, "CounterTop")
    items = [{"object_id": apple.id, "object_type": "Apple", "attr": "isSliced", "target": True}]
    env = kitchen_env(items, images=images or [], image_size=300, opaque_ids=True)
    put_on(env.world, apple.id, counter.id)
    put_on(env.world, knife.id, counter.id)
    env.task.max_steps = 600
    env.task.data["instruction"] = "Slice the apple."
    cfg = OmegaConf.create({"agent": {"holomind": section}})
    agent = HoloMindAgent(AgentContext(None, "longact", cfg, ModelClient(f"scripted/{name}")))

    class Host:
        def call(self, hook: str, bench: str, **kw: Any) -> Any:
            return env if hook == "make_env" else settle(kw["task"], kw["trajectory"], kw["env"], {})

    sink = Recorder()
    result = asyncio.run(run_episode(Host(), env.task, agent, {}, sink))
    return result, agent, sink


def kinds(log: list[tuple[str, Any]]) -> list[str]:
    """The modules called, in order."""
    return [k for k, _ in log]


def test_executor_and_critic_see_the_frame_planners_read_text() -> None:
    log: list[tuple[str, Any]] = []
    result, _, sink = run("fid-images", slicer(log), {}, images=["rgb", "depth"])
    assert result.settlement.outcome == "success"
    assert {n for k, n in log if k == "executor"} == {1}  # the rgb frame (agent.holomind.images: [rgb])
    assert {v[1] for k, v in log if k == "critic"} == {1}
    for step in sink.steps:
        for call in step.calls or []:
            user = step.prompt[call["messages"][1] - 1]["content"]
            assert isinstance(user, list) == (call["module"] in ("executor", "critic")), call["module"]
    text_only: list[tuple[str, Any]] = []
    run("fid-text", slicer(text_only), {"images": []}, images=["rgb"])
    assert {n for k, n in text_only if k == "executor"} == {0}
    assert {v[1] for k, v in text_only if k == "critic"} == {0}


def test_vision_check_names_holomind_switch() -> None:
    on = OmegaConf.create({"agent": {"holomind": {}}, "longact": {"images": ["rgb"]}})
    assert holomind_images(on) == "agent.holomind.images=[]"
    off = OmegaConf.create({"agent": {"holomind": {"images": []}}, "longact": {"images": ["rgb"]}})
    assert holomind_images(off) is None
    unrendered = OmegaConf.create({"agent": {"holomind": {"images": ["rgb"]}}, "longact": {"images": []}})
    assert holomind_images(unrendered) is None
    crops = OmegaConf.create({"agent": {"holomind": {"images": [], "verify": True}}, "longact": {"images": ["rgb"]}})
    assert holomind_images(crops) == "agent.holomind.verify=false"
    both = OmegaConf.create({"agent": {"holomind": {"verify": True}}, "longact": {"images": ["rgb"]}})
    assert holomind_images(both) == "agent.holomind.images=[] agent.holomind.verify=false"


def test_text_only_model_is_refused_before_the_run(tmp_path: Path) -> None:
    from suite.cli.main import main

    register_script("fid-blind", lambda messages: "{}")
    code = main(["run", "--plugins", "longact", "--agent", "holomind", "--model", "scripted/fid-blind", "--limit",
                 "1", "--out", str(tmp_path / "r"), "model.vision=false"])
    assert code == 2
    assert main(["run", "--plugins", "longact", "--agent", "holomind", "--model", "scripted/fid-blind", "--limit",
                 "1", "--out", str(tmp_path / "r2"), "model.vision=false", "agent.holomind.images=[]",
                 "longact.max_steps=3"]) in (0, 1)


def test_critic_reviews_the_plan_and_judges_from_plan_and_observation() -> None:
    log: list[tuple[str, Any]] = []
    result, _, _ = run("fid-critic", slicer(log), {})
    assert result.settlement.outcome == "success"
    reviews = [u for k, u in log if k == "review"]
    assert reviews and "Sub-goals:\n1. slice the apple" in reviews[0]
    judged = [v[0] for k, v in log if k == "critic"]
    assert "Sub-goals:" in judged[0] and "-> 1. slice the apple" in judged[0]
    assert all("In view now:" in j for j in judged)
    assert any(re.search(r"^Apple_\d+ \| Apple \|", j.split("In view now:")[1], re.M) for j in judged)


def test_failed_low_level_replan_escalates_to_the_high_planner() -> None:
    log: list[tuple[str, Any]] = []
    result, agent, _ = run("fid-escalate", slicer(log, stubborn=True), {"max_replans": 1})
    order = kinds(log)
    first_reassess = order.index("reassess")
    # two groundings of 'slice the apple' (the plan and one low-level replan) failed before the escalation
    assert order[:first_reassess].count("ground") == 2
    assert [k for k in order[first_reassess:] if k in ("ground", "reassess")][:2] == ["reassess", "ground"]
    assert result.settlement.outcome == "success"
    assert any("escalated" in t for t in agent.trace)


def test_goal_given_up_is_not_passed_to_refine_as_done() -> None:
    log: list[tuple[str, Any]] = []
    result, _, _ = run("fid-giveup", slicer(log, stubborn=True, give_up=True), {"max_replans": 0})
    assert result.settlement.outcome != "success"
    refines = [u for k, u in log if k == "refine"]
    assert len(refines) == 2  # g2 still comes after g1, which was given up
    second = refines[1]
    done = second.split("Goals done:")[1].split("Goals given up")[0]
    given_up = second.split("Goals given up (not done):")[1].split("Next goal:")[0]
    assert "slice the apple" not in done and "- none" in done
    assert "slice the apple" in given_up


@pytest.mark.parametrize("removed", ["high_planner", "episodic_memory", "critic"])
def test_table4_removals(removed: str) -> None:
    log: list[tuple[str, Any]] = []
    result, agent, _ = run(f"fid-ablate-{removed}", slicer(log), {"ablate": removed})
    order = kinds(log)
    if removed == "high_planner":
        assert not {"decompose", "refine", "reassess"} & set(order)
        assert log[0] == ("ground", log[0][1]) and "Goal: Slice the apple." in log[0][1]
    if removed == "critic":
        assert not {"review", "critic"} & set(order)
        assert order.count("ground") == 2  # each goal grounded once: nobody asks for a replan
        assert "Pick up a knife before slicing." not in agent.episodic.experience
    if removed == "episodic_memory":
        assert "(no episodic memory)" in dict(log)["decompose"]
        assert "Pick up a knife before slicing." not in agent.episodic.experience
        assert result.settlement.outcome == "success"


def test_bad_ablation_fails_in_one_line() -> None:
    cfg = OmegaConf.create({"agent": {"holomind": {"ablate": "memory"}}})
    with pytest.raises(ConfigError, match=r"agent\.holomind\.ablate"):
        HoloMindAgent(AgentContext(None, "longact", cfg, ModelClient("scripted/fid-critic")))


def test_every_module_call_is_in_the_trace_and_the_report_view() -> None:
    log: list[tuple[str, Any]] = []
    _, _, sink = run("fid-trace", slicer(log), {})
    calls = [(s.index, c) for s in sink.steps for c in s.calls or []]
    assert [c["module"] for _, c in calls] == [{"decompose": "high_planner", "refine": "high_planner",
                                                "reassess": "high_planner", "ground": "low_planner",
                                                "review": "critic"}.get(k, k) for k in kinds(log)]
    for index, c in calls:
        step = sink.steps[index]
        start, end = c["messages"]
        assert step.prompt[start]["role"] == "system" and end - start == 2
        assert c["reply"] in (step.reply or "")
    verdicts = [c["verdict"] for _, c in calls if c["module"] == "critic"]
    assert "Replan" in verdicts and "Pass" in verdicts
    view = report_view("longact")
    events = [{"type": "step", "index": s.index, "info": s.info, "calls": s.calls} for s in sink.steps]
    timeline = next(p for p in view.episode({}, events) if p["kind"] == "kv")
    assert len(timeline["items"]) == len(calls)
    assert timeline["items"][0] == ["step 1", "high_planner: 2 goals"]
    assert view.step is None  # each step's calls are in the viewer's generic calls box, shown once


def _stand_in():  # noqa: ANN201
    """The registered stand-in model's module (`scripted/holomind-rules`)."""
    from suite_longact.holomind import rules_model

    return rules_model


def test_shipped_stand_in_issues_refine_and_the_executor_retries() -> None:
    rules = _stand_in().rules
    critic = [{"role": "system", "content": "You are the critic of a household robot. ..."},
              {"role": "user", "content": "Goal: put the mug in the sink\nSkill call: pick Mug_1\nResult: failed: "
                                          "Mug_1 not in view or out of reach from where it was remembered"}]
    assert json.loads(rules(critic))["verdict"] == "Refine"
    critic[1]["content"] = "Goal: x\nSkill call: slice Apple_1\nResult: failed: no knife in hand"
    assert json.loads(rules(critic))["verdict"] == "Replan"
    log: list[tuple[str, Any]] = []

    def refining(messages: list[dict[str, Any]]) -> str:
        """The slicer, except that the first failed slice is judged Refine, as the stand-in does."""
        if "critic of" in messages[0]["content"] and "Result: failed" in text_of(messages[1]["content"]) \
                and ("critic", "refine") not in log:
            log.append(("critic", "refine"))
            return json.dumps({"verdict": "Refine", "diagnosis": "look from another viewpoint"})
        return slicer(log)(messages)

    result, _, _ = run("fid-refine", refining, {})
    order = kinds(log)
    i = order.index("critic")
    assert order[i + 1] == "executor"  # Refine: the executor retries the same sub-goal before any replan
    assert result.settlement.outcome == "success"



def test_prompt_dir_replaces_a_module_prompt(tmp_path: Path) -> None:
    from suite_longact.holomind.modules import prompt

    (tmp_path / "critic.txt").write_text("MY CRITIC", encoding="utf-8")
    assert prompt("critic", str(tmp_path)) == "MY CRITIC"
    assert prompt("executor", str(tmp_path)) == prompt("executor")  # the others stay ours
    _, _, sink = run("fid-prompt-dir", slicer([]), {"prompt_dir": str(tmp_path)})
    systems = {(c["module"], s.prompt[c["messages"][0]]["content"][:9]) for s in sink.steps for c in s.calls or []}
    assert ("critic", "MY CRITIC") in systems and ("executor", "MY CRITIC") not in systems


def test_the_memory_verifies_candidates_from_their_crops_before_grounding() -> None:
    log: list[tuple[str, Any]] = []
    base = slicer(log)

    def reply(messages: list[dict[str, Any]]) -> str:
        system, content = messages[0]["content"], messages[1]["content"]
        if "check the spatial memory" in system:
            images = sum(1 for p in content if p.get("type") == "image_url") if isinstance(content, list) else 0
            listed = re.findall(r"^\d+\. (\S+) \| (\w+)$", text_of(content), re.M)
            log.append(("verify", (listed, images)))
            return json.dumps({"match": [i for i, t in listed if t != "Apple"]})  # every apple is refused
        return base(messages)

    run("fid-verify", reply, {"verify": True, "max_replans": 0, "max_escalations": 0}, images=["rgb"])
    checks = [v for k, v in log if k == "verify"]
    assert checks and all(images == len(listed) > 0 for listed, images in checks)  # one crop per candidate
    refused = {i for listed, _ in checks for i, t in listed if t == "Apple"}
    grounds = [u for k, u in log if k == "ground"]
    assert refused and grounds and not any(i in u for u in grounds for i in refused)
    assert all(k != "verify" for k, _ in run_log_without_verify())


def run_log_without_verify() -> list[tuple[str, Any]]:
    """The modules called on the same episode with the default settings (no crop verification)."""
    log: list[tuple[str, Any]] = []
    run("fid-no-verify", slicer(log), {}, images=["rgb"])
    return log


def test_the_stand_in_verifies_and_still_slices_the_apple() -> None:
    from suite_longact.holomind.rules_model import rules

    result, agent, sink = run("fid-rules-verify", rules, {"verify": True}, images=["rgb"])
    assert result.settlement.outcome == "success"
    verdicts = [c["verdict"] for s in sink.steps for c in s.calls or [] if str(c["verdict"]).startswith("verified")]
    assert verdicts and all(not v.startswith("verified 0 ") for v in verdicts)
    assert any(inst.crop for inst in agent.spatial.instances.values())


def test_the_memory_keeps_the_crop_of_the_view_that_shows_an_instance_best() -> None:
    import io

    import numpy as np
    from PIL import Image
    from suite_longact.env import png_bytes
    from suite_longact.holomind.memory import CROP_PAD, SpatialMemory

    memory = SpatialMemory()
    camera = {"width": 40, "height": 30, "fov": 90, "y": 1.5}
    pose = {"x": 0.0, "z": 0.0, "yaw": 0, "horizon": 0}

    def view(box: tuple[int, int, int, int]) -> dict[str, Any]:
        owner = np.zeros((30, 40), np.int64)
        owner[box[1]:box[3], box[0]:box[2]] = 1
        return {"pose": pose, "camera": camera, "step": 0, "segmentation": (owner, ["Floor_1", "Mug_1"]),
                "instances": [{"id": "Mug_1", "type": "Mug", "pixel": [box[0], box[1]], "depth": 1.0}]}

    rgb = np.full((30, 40, 3), 200, np.uint8)
    for box in [(10, 10, 14, 13), (5, 5, 25, 20), (12, 12, 16, 14)]:  # small, large, small again
        data = view(box)
        memory.update(data)
        memory.keep_views(data, png_bytes(rgb))
    mug = memory.instances["Mug_1"]
    width, height = Image.open(io.BytesIO(mug.crop or b"")).size
    assert mug.crop_pixels == 20 * 15 and (width, height) == (20 + 2 * CROP_PAD, 15 + 2 * CROP_PAD)
