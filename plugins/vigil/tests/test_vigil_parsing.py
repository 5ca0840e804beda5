"""Section 6's contract: every malformed reply is an invalid action with a reason, never an exception."""

from __future__ import annotations

import pytest
from suite_vigil.parsing import parse_reply


def value(reply: str, **kw):
    action = parse_reply(reply, **kw)
    assert action.ok
    return action.value


@pytest.mark.parametrize("reply", [
    "", "   ", "navigate forward", "{", "[]", '"report"', "null", "42",
    '{"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": 1}} {"skill_name": "look"}',
    'Sure! {"skill_name": "report", "arguments": {"status": "success", "summary": "x"}}',
    '{"skill_name": "fly", "arguments": {}}',
    '{"skill_name": "Navigate", "arguments": {"mode": "forward", "magnitude": 1}}',
    '{"skill_name": "navigate"}',
    '{"skill_name": "navigate", "arguments": []}',
    '{"skill_name": "navigate", "arguments": {"mode": "up", "magnitude": 1}}',
    '{"skill_name": "navigate", "arguments": {"mode": "forward"}}',
    '{"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": "2"}}',
    '{"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": 1.5}}',
    '{"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": 0}}',
    '{"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": true}}',
    '{"skill_name": "navigate", "arguments": {"mode": "turn_left", "magnitude": -30}}',
    '{"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": 1, "speed": 2}}',
    '{"skill_name": "look", "arguments": {"direction": "left", "magnitude": 10}}',
    '{"skill_name": "look", "arguments": {"direction": "up", "magnitude": 400}}',
    '{"skill_name": "interact_pixel", "arguments": {"intent": "teleport", "x": 1, "y": 1}}',
    '{"skill_name": "interact_pixel", "arguments": {"intent": "open", "x": 10}}',
    '{"skill_name": "interact_pixel", "arguments": {"intent": "open", "x": 640, "y": 10}}',
    '{"skill_name": "interact_pixel", "arguments": {"intent": "open", "x": -1, "y": 10}}',
    '{"skill_name": "interact_pixel", "arguments": {"intent": "open", "x": 10.5, "y": 10}}',
    '{"skill_name": "report", "arguments": {"status": "success"}}',
    '{"skill_name": "report", "arguments": {"status": 1, "summary": "x"}}',
    '{"skill_name": "report", "arguments": {"status": "success", "summary": "x"}, "confidence": 1}',
    '{"skill_name": "report", "arguments": {"status": "success", "summary": "x"}, "thought": "t"} trailing',
])
def test_malformed_replies_are_invalid_actions(reply: str) -> None:
    v = value(reply)
    assert v.skill is None and v.invalid


def test_a_fenced_object_is_read_and_optional_fields_are_kept() -> None:
    v = value('```json\n{"skill_name": "look", "arguments": {"direction": "down", "magnitude": 15}, '
              '"thought": "check the floor", "cognitive_state": {"goal": "egg"}}\n```')
    assert (v.skill, v.arguments, v.thought, v.cognitive_state) == (
        "look", {"direction": "down", "magnitude": 15.0}, "check the floor", {"goal": "egg"})


@pytest.mark.parametrize(("given", "canonical"), [
    ("open", "open_access"), ("toggle_on", "activate"), ("Toggle On", "activate"), ("close", "close_access"),
    ("toggle_off", "deactivate"), ("pickup", "pick"), ("put", "place"), ("ground", "ground"),
    ("open_access", "open_access"),
])
def test_intent_aliases_are_normalised(given: str, canonical: str) -> None:
    v = value(f'{{"skill_name": "interact_pixel", "arguments": {{"intent": "{given}", "x": 5, "y": 6}}}}')
    assert v.arguments == {"intent": canonical, "x": 5, "y": 6}


def test_drop_needs_no_pixel() -> None:
    assert value('{"skill_name": "interact_pixel", "arguments": {"intent": "drop"}}').arguments == {"intent": "drop"}


@pytest.mark.parametrize(("status", "normalised"), [
    ("success", "success"), ("Closed", "closed"), (" ON ", "on"), ("unsafe", "unsafe"), ("done", "invalid"),
    ("completed", "invalid"), ("", "invalid"),
])
def test_unknown_statuses_become_invalid_not_an_invalid_action(status: str, normalised: str) -> None:
    v = value(f'{{"skill_name": "report", "arguments": {{"status": "{status}", "summary": "x"}}}}')
    assert v.skill == "report" and v.arguments["status"] == normalised and v.invalid is None


def test_normalized_1000_coordinates_have_their_own_range() -> None:
    reply = '{"skill_name": "interact_pixel", "arguments": {"intent": "ground", "x": 1000, "y": 900}}'
    assert value(reply).invalid
    assert value(reply, normalized=True).arguments == {"intent": "ground", "x": 1000, "y": 900}


def test_navigation_magnitudes() -> None:
    fwd = value('{"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": 3.0}}')
    turn = value('{"skill_name": "navigate", "arguments": {"mode": "turn_right", "magnitude": 37.5}}')
    assert fwd.arguments == {"mode": "forward", "magnitude": 3} and turn.arguments["magnitude"] == 37.5
