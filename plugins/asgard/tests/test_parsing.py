"""The reply parser on real-looking replies: the executed action, the plan and the memory fed back."""

from __future__ import annotations

import pytest
from suite_asgard.parsing import extract_memory, extract_plan, parse_reply
from suite_asgard.world_rules import INVALID_ACTION, INVALID_OBJECT, UNPARSABLE, VALID

OBJECTS = ["Bowl", "CoffeeMachine", "CounterTop", "DishSponge", "Faucet", "Mug", "SinkBasin", "StoveBurner"]

FULL = """<think>
VISUAL OBSERVATIONS:
- A Mug on the CounterTop, next to the CoffeeMachine.
INVENTORY CHECK:
- Nothing in hand.
LAST ACTION ASSESSMENT:
- Last action: FIND Mug succeeded.
DOUBLE CHECK:
- The SUGGESTED PLAN SEQUENCE still fits.
PLAN REASONING:
- Pick the Mug up next.
</think>
<answer>
THINGS TO REMEMBER:
- The Mug is on the CounterTop near the CoffeeMachine.
- Trying PICKUP Mug: if it worked, I hold the Mug.

SUGGESTED PLAN SEQUENCE:
1. PICKUP Mug
2. FIND CoffeeMachine
3. PUT CoffeeMachine

Action: PICKUP Mug
</answer>"""


def command(reply: str):
    return parse_reply(reply, OBJECTS).value


def test_a_full_reply() -> None:
    action = parse_reply(FULL, OBJECTS)
    assert action.ok and action.text == "PICKUP Mug"
    assert (action.value.kind, action.value.action, action.value.obj) == (VALID, "PICKUP", "Mug")
    assert extract_plan(FULL) == "1. PICKUP Mug\n2. FIND CoffeeMachine\n3. PUT CoffeeMachine"
    assert extract_memory(FULL) == ("- The Mug is on the CounterTop near the CoffeeMachine.\n"
                                    "- Trying PICKUP Mug: if it worked, I hold the Mug.")


def test_the_last_action_line_inside_the_answer_wins() -> None:
    reply = "<think>Action: FIND Bowl would be wrong</think><answer>Action: FIND Mug\nAction: TOGGLE_ON Faucet</answer>"
    assert command(reply).text == "TOGGLE_ON Faucet"
    assert command("Action: FIND Mug\n...\nAction: PUT SinkBasin").text == "PUT SinkBasin"


def test_an_action_line_outside_the_answer_block_is_ignored() -> None:
    reply = "<think>Action: PICKUP Mug</think><answer>I will pick up the mug.</answer>"
    assert command(reply).kind == UNPARSABLE


def test_missing_tags_search_the_whole_reply() -> None:
    assert command("I see the mug.\nAction: PICKUP Mug").text == "PICKUP Mug"
    assert command("<answer>\nAction: FIND Faucet").text == "FIND Faucet"  # an unclosed answer block


@pytest.mark.parametrize(("reply", "expected"), [
    ("action: pickup mug", "PICKUP Mug"),
    ("ACTION: toggle_on faucet", "TOGGLE_ON Faucet"),
    ("Action:   PUT   SinkBasin.", "PUT SinkBasin"),
    ("Action: PUT CounterTop next to the sink", "PUT CounterTop"),
    ("Action: FIND StoveBurner\n", "FIND StoveBurner"),
])
def test_case_spacing_and_extra_words(reply: str, expected: str) -> None:
    assert command(reply).text == expected


@pytest.mark.parametrize(("reply", "kind", "text"), [
    ("Action: GRAB Mug", INVALID_ACTION, "GRAB Mug"),
    ("Action: TOGGLE Faucet", INVALID_ACTION, "TOGGLE Faucet"),
    ("Action: PICKUP Cup", INVALID_OBJECT, "PICKUP Cup"),
    ("Action: PICKUP the Mug", INVALID_OBJECT, "PICKUP the"),
    ("Action: TOGGLE ON Faucet", INVALID_ACTION, "TOGGLE ON"),
])
def test_invalid_actions_and_objects(reply: str, kind: str, text: str) -> None:
    assert (command(reply).kind, command(reply).text) == (kind, text)


@pytest.mark.parametrize("reply", ["I am not sure what to do.", "Action:", "Action: PICKUP", " \n",
                                   "**Action:** PICKUP Mug", "1. PICKUP Mug\n2. FIND CoffeeMachine"])
def test_unparsable_replies(reply: str | None) -> None:
    action = parse_reply(reply, OBJECTS)
    assert action.ok and action.value.kind == UNPARSABLE and action.value.text is None and not action.value.empty


@pytest.mark.parametrize("reply", ["", None])
def test_an_empty_reply_is_unparsable_and_named_in_the_history(reply: str | None) -> None:
    # the harness: no content after its three asks is an invalid response logged as `empty_response`
    action = parse_reply(reply, OBJECTS)
    assert action.value.kind == UNPARSABLE and action.value.empty and action.value.text == "(empty reply)"


def test_plan_and_memory_in_either_order_and_absent() -> None:
    reply = "<answer>\nSUGGESTED PLAN SEQUENCE:\n1. FIND Bowl\n2. PICKUP Bowl\nTHINGS TO REMEMBER:\n- bowl dirty\n" \
            "Action: FIND Bowl\n</answer>"
    assert extract_plan(reply) == "1. FIND Bowl\n2. PICKUP Bowl"
    assert extract_memory(reply) == "- bowl dirty\nAction: FIND Bowl"
    assert extract_plan("Action: FIND Bowl") is None and extract_memory("Action: FIND Bowl") is None
    assert extract_plan(None) is None


def test_the_plan_is_read_from_the_answer_block_not_the_reasoning() -> None:
    assert extract_plan(FULL).startswith("1. PICKUP Mug")
