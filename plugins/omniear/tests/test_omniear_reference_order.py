"""Rules the golden traces never exercise, on hand-made scenes: DONE in cooperative mode, a goal true in the
scene file, and the reference's order of precondition checks for every command (issue 12, items 16-18)."""

from __future__ import annotations

from types import SimpleNamespace

from omegaconf import OmegaConf
from suite.contract.records import Action, StepRecord, Task, Trajectory
from suite_omniear.data import EvalTask
from suite_omniear.plugin import OmniEnv, settle

OK, BAD, FAIL = "SUCCESS", "INVALID", "FAILURE"
COOP_ONLY = "In cooperative mode, only cooperative carrying or placing actions are allowed"
DONE_0 = "DONE command executed - Global task verification: 0/1 tasks completed (0.0%)"
DONE_1 = "DONE command executed - Global task verification: 1/1 tasks completed (100.0%)"
CUP_ON_TABLE = [{"id": "cup_1", "location_id": "on:table_1"}]  # true in the default scene


# --- item 16: DONE and its aliases while carrying together ---------------------------------------------------

def _carrying(omni: SimpleNamespace, agents: int) -> object:
    sim = omni.build(agents=agents)
    both = ",".join(f"agent_{i}" for i in range(1, agents + 1))
    for command in ("GOTO kitchen", "EXPLORE", f"CORP_GRAB {both} crate_1"):
        sim.step({f"agent_{i}": command for i in range(1, agents + 1)})
    assert all(a.corp_object == "crate_1" for a in sim.world.agents.values())
    return sim


def test_done_and_aliases_are_answered_in_cooperative_mode(omni: SimpleNamespace) -> None:
    for command in ("DONE", "done", "FINISH", "COMPLETE", "END_TASK"):
        sim = _carrying(omni, 1)
        assert omni.last(sim, command) == (OK, DONE_0), command
    sim = _carrying(omni, 1)
    assert omni.last(sim, "EXPLORE") == (BAD, COOP_ONLY)  # every other verb is still refused


def test_done_alias_beside_a_refused_command_in_a_two_agent_carry(omni: SimpleNamespace) -> None:
    sim = _carrying(omni, 2)
    first, second, _ = omni.pair(sim, "FINISH", "EXPLORE")
    assert first == (OK, DONE_0) and second == (BAD, COOP_ONLY)


# --- item 17: a goal already true in the scene file ----------------------------------------------------------

def test_a_goal_true_from_the_start_completes_at_step_one_whatever_the_command(omni: SimpleNamespace) -> None:
    sim = omni.build(checks=CUP_ON_TABLE)
    assert not sim.task_success
    out = sim.step({"agent_1": "GOTO nowhere"})  # an INVALID command still ends a verified step
    assert out.results["agent_1"].status == BAD and out.task_success and sim.task_success


def test_done_at_step_one_reports_a_goal_true_from_the_start(omni: SimpleNamespace) -> None:
    assert omni.last(omni.build(checks=CUP_ON_TABLE), "DONE") == (OK, DONE_1)


def test_a_first_step_that_undoes_the_goal_does_not_complete_it(omni: SimpleNamespace) -> None:
    sim = omni.build(checks=[{"id": "lamp_1", "location_id": "on:desk_1"}])
    omni.run(sim, "EXPLORE", "GOTO lamp_1")
    assert sim.task_success  # verified after step 1 already
    fresh = omni.build(checks=[{"id": "lamp_1", "location_id": "on:desk_1"}])
    fresh.world.objects["lamp_1"].discovered = True
    fresh.world.agents["agent_1"].near.add("lamp_1")
    assert omni.last(fresh, "GRAB lamp_1") == (OK, "robot_1 successfully grabbed Lamp 1")
    assert not fresh.task_success  # verified after the grab, when the lamp was no longer on the desk


def test_a_task_without_checks_never_completes(omni: SimpleNamespace) -> None:
    sim = omni.build()
    sim.verifier.checks = ()
    assert omni.last(sim, "DONE") == (OK, DONE_0) and not sim.task_success


def test_an_unparsable_first_reply_still_completes_a_goal_true_from_the_start(omni: SimpleNamespace) -> None:
    """The core does not step the env on a parse failure; the reference verifies after that step anyway."""
    sim = omni.build(agents=2, checks=CUP_ON_TABLE)
    et = EvalTask("multi-independent", "00001", "t", "s", sim.task, sim.scene)
    task = Task("omniear", et.key, {"eval_task": et, "attribute_table": omni.make_table(), "agents": 2,
                                    "scalar_max_size": False}, max_steps=1)
    env = OmniEnv(task, OmegaConf.create({"observation_mode": "explore", "fixes": []}))
    traj = Trajectory(task, steps=[StepRecord(0, Action.failure("Agent_2_Action not found"))], end_reason="max_steps")
    got = settle("omniear", task, traj, env)
    assert (got.outcome, got.metrics["first_completion_step"]) == ("success", 1)


# --- item 18: the reference's order of precondition checks ---------------------------------------------------

def test_grab_reports_the_grasp_limit_before_another_agents_hold(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2, grasp=1)
    omni.pair(sim, "EXPLORE", "EXPLORE")
    omni.pair(sim, "GOTO lamp_1", "GOTO lamp_1")
    omni.pair(sim, "GRAB lamp_1", "GOTO kitchen")  # agent_1 holds the lamp
    omni.pair(sim, "EXPLORE", "GOTO hall")
    omni.pair(sim, "EXPLORE", "GOTO desk_1")
    assert omni.pair(sim, "EXPLORE", "GRAB lamp_1")[1] == (
        BAD, "Object is already held by robot_1, cannot grab again")
    sim.world.agents["agent_2"].inventory.append("ghost")  # agent_2 at its limit of one
    assert omni.pair(sim, "EXPLORE", "GRAB lamp_1")[1] == (BAD, "Agent has reached maximum grab limit (1)")


def test_grab_of_an_object_the_agent_already_holds_fails_late(omni: SimpleNamespace) -> None:
    sim = omni.build(grasp=3)
    assert omni.run(sim, "EXPLORE", "GOTO lamp_1", "GRAB lamp_1", "GRAB lamp_1")[-1] == (
        FAIL, "Already holding this object")
    full = omni.build(grasp=1)
    assert omni.last(full, "EXPLORE", "GOTO lamp_1", "GRAB lamp_1", "GRAB lamp_1") == (
        BAD, "Agent has reached maximum grab limit (1)")


def test_place_checks_the_room_before_our_cycle_guard(omni: SimpleNamespace) -> None:
    objects = [*omni.default_objects(), omni.obj("box_1", "on:desk_1", weight=1.0, is_container=True)]
    sim = omni.build(objects=objects, grasp=3)
    omni.run(sim, "EXPLORE", "GOTO box_1", "GRAB box_1", "GOTO kitchen")
    assert omni.last(sim, "PLACE box_1 in box_1") == (
        BAD, "Agent must go to Hall first to place object on Box 1")
    assert omni.last(sim, "GOTO hall", "PLACE box_1 in box_1") == (
        BAD, "Cannot place box_1 in or on itself or its contents")


def test_corp_grab_checks_the_room_but_not_discovery(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    assert omni.pair(sim, "CORP_GRAB agent_1,agent_2 crate_1", "CORP_GRAB agent_1,agent_2 crate_1")[2][0] == BAD
    omni.pair(sim, "GOTO kitchen", "GOTO kitchen")
    assert not sim.world.objects["crate_1"].discovered
    assert omni.pair(sim, "CORP_GRAB agent_1,agent_2 crate_1", "CORP_GRAB agent_1,agent_2 crate_1")[0] == (
        OK, "Agents agent_1, agent_2 started cooperative grab of crate_1")


def test_corp_goto_and_corp_place_name_a_missing_location_as_the_reference(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    assert omni.pair(sim, "CORP_GOTO agent_1,agent_2 attic", "CORP_GOTO agent_1,agent_2 attic")[0] == (
        BAD, "Location attic does not exist")
    carrying = _carrying(omni, 2)
    place = "CORP_PLACE agent_1,agent_2 crate_1 in attic"
    assert omni.pair(carrying, place, place)[0] == (BAD, "Location attic does not exist")


def test_corp_place_checks_each_agent_in_turn(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    place = "CORP_PLACE agent_1,agent_9 crate_1 on table_1"
    assert omni.pair(sim, place, place)[0] == (BAD, "Agent agent_1 is not in cooperative grab mode for crate_1")


def test_corp_verb_checks_the_object_before_the_agents(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    command = "CORP_OPEN agent_1,agent_9 cabinet_1"
    assert omni.pair(sim, command, command)[0] == (BAD, "Object not discovered: Cabinet 1")
    omni.pair(sim, "GOTO kitchen", "GOTO kitchen")
    omni.pair(sim, "EXPLORE", "EXPLORE")
    assert omni.pair(sim, command, command)[0] == (BAD, "Agent agent_9 does not exist")
    assert omni.pair(sim, "CORP_CLOSE agent_1,agent_9 cabinet_1", "CORP_CLOSE agent_1,agent_9 cabinet_1")[0] == (
        BAD, "Object does not need close operation (is_open=False)")
