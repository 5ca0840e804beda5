"""Attribute verbs, cooperative carrying, CORP_<VERB> and the two-agent executor on the tiny scene."""

from __future__ import annotations

from types import SimpleNamespace

OK, BAD, FAIL = "SUCCESS", "INVALID", "FAILURE"
COOP_ONLY = "In cooperative mode, only cooperative carrying or placing actions are allowed"


def test_attribute_action_rules(omni: SimpleNamespace) -> None:
    sim = omni.build()
    assert omni.run(
        sim,
        "SWITCH_ON lamp_1",
        "EXPLORE",
        "SWITCH_ON lamp_1",
        "SWITCH_ON lamp_1",
        "OPEN lamp_1",
        "POLISH lamp_1",
        "SWITCH_ON radio_1",
    ) == [
        (BAD, "Object not discovered: Lamp 1"),
        (OK, "robot_1 thoroughly explored Hall and discovered 2 new objects"),
        (OK, "robot_1 successfully performed switch_on on Lamp 1, is_on changed from False to True"),
        (BAD, "Object does not need switch_on operation (is_on=True)"),
        (BAD, "Object does not support open operation (missing is_open attribute)"),
        (BAD, "Unknown command: POLISH"),
        (BAD, "Object not discovered: Radio 1"),
    ]
    assert sim.world.objects["lamp_1"].states["is_on"] is True


def test_tool_verbs_need_a_held_tool(omni: SimpleNamespace) -> None:
    sim = omni.build()
    omni.run(sim, "GOTO kitchen", "EXPLORE")
    assert omni.last(sim, "FIX radio_1") == (
        BAD,
        "Missing ability to execute fix, need to hold items that provide this ability",
    )
    assert "FIX <object_id>" not in sim.available_actions()
    assert omni.run(sim, "OPEN cabinet_1", "GOTO kit_1", "GRAB kit_1", "FIX radio_1") == [
        (OK, "robot_1 successfully performed open on Cabinet 1, is_open changed from False to True"),
        (OK, "robot_1 approached Kit 1 (in Kitchen)"),
        (OK, "robot_1 successfully grabbed Kit 1"),
        (OK, "robot_1 successfully performed fix on Radio 1, is_broken changed from True to False"),
    ]
    assert (
        "== Agent-Specific Actions (Tools Required) ==\nFIX <object_id>\n  - Fix it with a tool.\n"
        "  - Example: FIX device_1\n" in sim.available_actions()
    )
    assert "    - fix, Source: Kit 1 (ID: kit_1)" in sim.observation()


def test_tool_verb_outside_scene_abilities_is_unknown_even_when_held(omni: SimpleNamespace) -> None:
    sim = omni.build(abilities=["open", "switch_on"])
    omni.run(sim, "GOTO kitchen", "EXPLORE", "OPEN cabinet_1", "GOTO kit_1", "GRAB kit_1")
    assert omni.last(sim, "FIX radio_1") == (BAD, "Unknown command: FIX")
    assert "FIX <object_id>" in sim.available_actions()  # the list still shows the held tool's verb


def test_attribute_in_properties_is_written_to_states(omni: SimpleNamespace) -> None:
    objects = [omni.obj("fan_1", "in:hall", is_on=False)]
    sim = omni.build(objects, checks=[{"id": "fan_1", "is_on": False}])
    assert sim.checks_passed() == ()  # is_* checks read states only
    assert omni.last(sim, "EXPLORE", "SWITCH_ON fan_1")[0] == OK
    assert sim.world.objects["fan_1"].states["is_on"] is True
    assert sim.world.objects["fan_1"].properties["is_on"] is False


def test_cooperative_carry(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    omni.pair(sim, "GOTO kitchen", "GOTO kitchen")
    omni.pair(sim, "EXPLORE", "DONE")
    a1, a2, overall = omni.pair(sim, "CORP_GRAB agent_1,agent_2 cup_1", "CORP_GRAB agent_1,agent_2 cup_1")
    message = (
        "Object cup_1 (weight: 0.5kg) does not require cooperative grab - can be carried by single agent "
        "(max capacity: 20.0kg)"
    )
    assert a1 == a2 == (BAD, message) and overall == (BAD, f"agent_1: {message}; agent_2: {message}")
    a1, _, overall = omni.pair(sim, "CORP_GRAB agent_1,agent_2 crate_1", "CORP_GRAB agent_1,agent_2 crate_1")
    assert a1 == (OK, "Agents agent_1, agent_2 started cooperative grab of crate_1")
    assert omni.pair(sim, "GOTO hall", "EXPLORE")[:2] == ((BAD, COOP_ONLY), (BAD, COOP_ONLY))
    assert omni.pair(sim, "CORP_GOTO agent_1,agent_2 hall", "CORP_GOTO agent_1,agent_2 hall")[0] == (
        OK,
        "Agents agent_1, agent_2 cooperatively moved to hall",
    )
    assert "  • Cooperative Mode: Currently cooperatively holding Crate 1 (ID: crate_1)" in sim.observation()
    assert omni.pair(
        sim, "CORP_PLACE agent_1,agent_2 crate_1 on hall", "CORP_PLACE agent_1,agent_2 crate_1 on hall"
    )[0] == (OK, "Agents agent_1, agent_2 cooperatively placed crate_1 at hall")  # no room / container checks
    assert sim.world.objects["crate_1"].location_id == "on:hall"
    assert omni.pair(
        sim, "CORP_PLACE agent_1,agent_2 crate_1 in kitchen", "CORP_PLACE agent_1,agent_2 crate_1 in kitchen"
    )[0] == (BAD, "Agent agent_1 is not in cooperative grab mode for crate_1")


def test_cooperative_errors(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    same = lambda c: omni.pair(sim, c, c)[0]  # noqa: E731
    assert same("CORP_GRAB agent_1,agent_3 crate_1") == (BAD, "Agent agent_3 does not exist")
    assert same("CORP_GRAB agent_1,agent_2 ghost") == (BAD, "Object ghost does not exist")
    omni.pair(sim, "GOTO kitchen", "EXPLORE")
    omni.pair(sim, "EXPLORE", "DONE")
    assert same("CORP_GRAB agent_1,agent_2 crate_1") == (
        BAD,
        "Agent agent_2 must be near crate_1 before cooperative grab: Agent must go to Kitchen first to "
        "interact with Crate 1",
    )
    assert same("CORP_GOTO agent_1,agent_2 table_1") == (FAIL, "Failed to move agent agent_1 to table_1")
    assert same("CORP_GRAB") == (BAD, "Invalid command format: CORP_GRAB")


def test_cooperative_attribute_actions(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2, category="explicit_collaboration", checks=[{"id": "lamp_1", "is_on": True}])
    omni.pair(sim, "EXPLORE", "DONE")
    assert omni.pair(sim, "CORP_SWITCH_ON agent_2 lamp_1", "CORP_SWITCH_ON agent_2 lamp_1")[0] == (
        BAD,
        "Initiator must be included in the cooperation list",
    )
    a1, a2, overall = omni.pair(
        sim, "CORP_SWITCH_ON agent_1,agent_2 lamp_1", "CORP_SWITCH_ON agent_1,agent_2 lamp_1"
    )
    message = (
        "robot_1,robot_2 successfully cooperated to perform switch_on operation on Lamp 1, is_on changed "
        "from False to True"
    )
    assert a1 == a2 == overall == (OK, message)  # executed once
    assert sim.world.objects["lamp_1"].states["cooperative_modified_attributes"] == ["is_on"]
    assert sim.checks_passed() == (0,) and sim.task_success
    omni.pair(sim, "SWITCH_OFF lamp_1", "DONE")
    omni.pair(sim, "SWITCH_ON lamp_1", "DONE")  # a plain action clears the cooperative mark
    assert sim.world.objects["lamp_1"].states["cooperative_modified_attributes"] == []
    assert sim.checks_passed() == () and sim.task_success  # sticky


def test_cooperative_attribute_needs_every_agent_near_and_equipped(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2)
    omni.pair(sim, "GOTO kitchen", "DONE")
    omni.pair(sim, "EXPLORE", "DONE")
    assert omni.pair(sim, "CORP_FIX agent_1,agent_2 radio_1", "CORP_FIX agent_1,agent_2 radio_1")[0] == (
        BAD,
        "Agent agent_2 must be near radio_1 before cooperative operation: Agent must go to Kitchen first to "
        "interact with Radio 1",
    )
    omni.pair(sim, "OPEN cabinet_1", "GOTO kitchen")
    omni.pair(sim, "GOTO kit_1", "DONE")
    omni.pair(sim, "GRAB kit_1", "DONE")
    assert omni.pair(sim, "CORP_FIX agent_1,agent_2 radio_1", "CORP_FIX agent_1,agent_2 radio_1")[0] == (
        BAD,
        "Agent agent_2 Missing ability to execute fix, need to hold items that provide this ability",
    )
    assert omni.pair(sim, "CORP_FIX agent_1 radio_1", "CORP_FIX agent_1 radio_1")[0] == (
        OK,
        "robot_1 successfully cooperated to perform fix operation on Radio 1, "
        "is_broken changed from True to False",
    )


def test_one_member_cooperation_list_works_for_a_single_agent(omni: SimpleNamespace) -> None:
    sim = omni.build()
    assert omni.last(sim, "EXPLORE", "CORP_SWITCH_ON agent_1 lamp_1") == (
        OK,
        "robot_1 successfully cooperated to perform switch_on operation on Lamp 1, "
        "is_on changed from False to True",
    )
    assert omni.last(sim, "CORP_GRAB agent_1,agent_2 desk_1") == (BAD, "Agent agent_2 does not exist")
