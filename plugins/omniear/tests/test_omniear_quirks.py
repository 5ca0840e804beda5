"""The reference quirks the golden README lists: termination, aliases, centralized pairs, verifier rules."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

OK, BAD, FAIL = "SUCCESS", "INVALID", "FAILURE"
COOP_ONLY = "In cooperative mode, only cooperative carrying or placing actions are allowed"


def test_single_agent_termination_is_a_substring_test(omni: SimpleNamespace) -> None:
    sim = omni.build()
    out = sim.step({"agent_1": "Task is done"})
    assert (out.results["agent_1"].status, out.results["agent_1"].message) == (BAD, "Unknown command: TASK")
    assert out.terminated and sim.episode_over
    sim = omni.build()
    out = sim.step({"agent_1": "FINISH"})  # alias of DONE: reports, but the text has no "DONE"
    assert out.results["agent_1"].message == (
        "DONE command executed - Global task verification: 0/1 tasks completed (0.0%)"
    )
    assert not out.terminated
    assert sim.step({"agent_1": " done "}).terminated


def test_aliases_rewrite_the_first_token(omni: SimpleNamespace) -> None:
    sim = omni.build()
    assert omni.run(sim, "SCAN", "navigate   kitchen", "INVESTIGATE", "PICK_UP cup_1", "SCAN cup_1") == [
        (OK, "robot_1 thoroughly explored Hall and discovered 2 new objects"),
        (OK, "robot_1 successfully moved to Kitchen"),
        (OK, "robot_1 thoroughly explored Kitchen and discovered 6 new objects"),
        (FAIL, "Agent must approach Cup 1 before grabbing"),
        (
            BAD,
            "Agent must go to Cup 1 before exploring that room",
        ),  # SCAN is EXPLORE: the scan verb never runs
    ]


def test_two_agent_done_rules(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    out = sim.step({"agent_1": "done", "agent_2": "DONE"})
    assert out.overall.message == "Both agents completed: agent_1=DONE, agent_2=DONE"
    assert out.results["agent_1"].message == "DONE" and not out.terminated
    assert sim.step({"agent_1": "DONE", "agent_2": " DONE"}).terminated
    sim = omni.build(agents=2)
    assert omni.pair(sim, "DONE", "GOTO kitchen") == (
        (OK, "DONE"),
        (OK, "robot_2 successfully moved to Kitchen"),
        (OK, "agent_1: DONE; agent_2: robot_2 successfully moved to Kitchen"),
    )
    assert omni.pair(sim, "FINISH", "DONE")[0] == (
        OK,
        "DONE command executed - Global task verification: 0/1 tasks completed (0.0%)",
    )


def test_centralized_pairs(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    omni.pair(sim, "GOTO kitchen", "GOTO kitchen")
    omni.pair(sim, "EXPLORE", "DONE")
    mismatch = (FAIL, "Cooperation commands must be issued simultaneously and consistently")
    assert (
        omni.pair(sim, "CORP_GRAB agent_1,agent_2 crate_1", "CORP_GOTO agent_1,agent_2 hall")
        == (mismatch,) * 3
    )
    a1, a2, overall = omni.pair(sim, "corp_grab agent_1,agent_2 crate_1", "corp_grab agent_1,agent_2 crate_1")
    assert a1 == (OK, "Agents agent_1, agent_2 started cooperative grab of crate_1")
    assert a2 == (BAD, COOP_ONLY)  # a lowercase pair runs twice
    assert overall == (BAD, f"agent_1: {a1[1]}; agent_2: {COOP_ONLY}")
    failed = omni.pair(sim, "PARSE_FAILED", "PARSE_FAILED")
    assert failed == (
        (FAIL, "LLM response parsing failed: Agent_1_Action not found"),
        (FAIL, "LLM response parsing failed: Agent_2_Action not found"),
        (FAIL, "LLM response parsing failed: unable to extract Agent_1_Action and Agent_2_Action"),
    )


def test_overall_when_only_one_command_is_cooperative(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    omni.pair(sim, "GOTO kitchen", "GOTO kitchen")
    omni.pair(sim, "EXPLORE", "DONE")
    # the agent with the overall status is listed first
    assert omni.pair(sim, "GOTO nowhere", "CORP_GRAB agent_1,agent_2 crate_1")[2] == (
        OK,
        "agent_2: Agents agent_1, agent_2 started cooperative grab of crate_1; agent_1: Target location does "
        "not exist: nowhere",
    )
    sim = omni.build(agents=2)
    omni.pair(sim, "EXPLORE", "DONE")
    assert omni.pair(sim, "CORP_SWITCH_ON agent_1,agent_2 lamp_1", "LOOK")[2] == (
        OK,
        "robot_1,robot_2 successfully cooperated to perform switch_on operation on Lamp 1, "
        "is_on changed from "
        "False to True; agent_2: robot_2 looked around Hall",
    )
    assert omni.pair(sim, "CORP_SWITCH_OFF agent_1,agent_2 lamp_1", "GRAB ghost")[2] == (
        OK,
        "robot_1,robot_2 successfully cooperated to perform switch_off operation on Lamp 1, "
        "is_on changed from "
        "True to False",
    )  # the other agent's failure is dropped


def test_empty_command(omni: SimpleNamespace) -> None:
    out = omni.build().step({"agent_1": ""})
    assert (out.results["agent_1"].status, out.results["agent_1"].message) == (
        FAIL,
        "Command processing error: list index out of range",
    )
    assert not out.terminated


def test_location_check_rules(omni: SimpleNamespace) -> None:
    checks = [
        {"id": "cup_1", "location_id": "on:desk_1"},
        {"id": "cup_1", "location_id": ":desk_1"},
        {"id": "cup_1", "location_id": "desk_1"},
        {"id": "cup_1", "location_id": "in:desk_1"},
        {"id": "cup_1", "location_id": ":hall"},
        {"id": "ghost", "location_id": ":hall"},
    ]
    sim = omni.build(checks=checks)
    omni.run(
        sim, "GOTO kitchen", "EXPLORE", "GOTO cup_1", "GRAB cup_1", "GOTO hall", "EXPLORE", "GOTO desk_1"
    )
    out = sim.step({"agent_1": "PLACE cup_1 on desk_1"})
    assert out.checks_passed == (0, 1, 2)  # a cup on the desk in the hall is not ":hall"
    assert not out.task_success


def test_cooperation_word_in_the_description(omni: SimpleNamespace) -> None:
    checks = [{"id": "lamp_1", "is_on": True}]
    for description, needs_mark in (
        ("Switch on the lamp.", False),
        ("Switch on lamp_1 together.", True),
        ("Switch on the worktogether_lamp.", True),
    ):
        sim = omni.build(checks=checks, description=description)
        out = sim.step({"agent_1": "EXPLORE"}) and sim.step({"agent_1": "SWITCH_ON lamp_1"})
        assert out.task_success is not needs_mark
        if needs_mark:
            sim.step({"agent_1": "SWITCH_OFF lamp_1"})
            assert sim.step({"agent_1": "CORP_SWITCH_ON agent_1 lamp_1"}).task_success


def test_held_container_contents_stay_in_the_spawn_room(omni: SimpleNamespace) -> None:
    objects = [omni.obj("bag_1", "in:kitchen", is_container=True), omni.obj("pen_1", "in:bag_1", weight=0.1)]
    for fixes, expected in (
        (frozenset(), (BAD, "Agent must go to Hall first to interact with Pen 1")),
        (frozenset({"spawn_room"}), (OK, "robot_1 looked at Pen 1")),
    ):
        sim = omni.build(objects, fixes=fixes)
        omni.run(sim, "GOTO kitchen", "EXPLORE", "GOTO bag_1", "GRAB bag_1")
        assert omni.last(sim, "LOOK bag_1") == (OK, "robot_1 looked at Bag 1")
        assert omni.last(sim, "LOOK pen_1") == expected


def test_global_mode_only_changes_what_is_shown(omni: SimpleNamespace) -> None:
    sim = omni.build(mode="global")
    assert "◆ Cup 1 (ID: cup_1, Type: ITEM)" in sim.observation()
    assert omni.last(sim, "GOTO kitchen", "GOTO cup_1") == (BAD, "Target object not discovered: Cup 1")
    assert "◆ Cup 1" not in omni.build().observation()


def test_start_room_is_the_first_sorted_room(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    assert {a.location for a in sim.world.agents.values()} == {"hall"}
    assert not any(o.discovered for o in sim.world.objects.values())


def test_observation_is_independent_of_the_hash_seed(omni: SimpleNamespace, golden: SimpleNamespace) -> None:
    code = (
        "import sys; from suite_omniear.data import *; from suite_omniear.sim import OmniSim\n"
        f"t = load_task({str(golden.eval)!r}, 'multi-independent', '00001')\n"
        f"s = OmniSim.from_eval_task(t, load_attribute_table(find_attribute_table({str(golden.eval)!r})))\n"
        "s.step({'agent_1': 'GOTO main_calibration_chamber', 'agent_2': 'EXPLORE'})\n"
        "sys.stdout.write(s.observation() + s.available_actions())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


def test_unresolvable_location_goes_to_the_first_sorted_room(omni: SimpleNamespace) -> None:
    objects = [
        omni.obj("pen_1", ""),
        omni.obj("cup_1", "on:nowhere_9"),
        omni.obj("desk_1", "in:kitchen", "FURNITURE"),
    ]
    sim = omni.build(objects, mode="global")
    assert sim.world.objects["pen_1"].location_id == "in:hall"
    assert sim.world.objects["cup_1"].location_id == "in:hall"
    assert "• Location: inside Hall (ID: hall)" in sim.observation()


def test_scalar_max_size_is_shown_as_given(omni: SimpleNamespace) -> None:
    text = omni.build(max_size=1.5).observation()
    assert "    - max_size: 1.5\n" in text
    assert omni.build().step({"agent_1": "LOOK"}).overall is None
