"""The direct agent's parser: JSON first, a lenient action line second, never an exception."""

from __future__ import annotations

from suite_longact.parsing import parse_reply


def test_json_action_with_object() -> None:
    a = parse_reply('I will grab it.\n{"thought": "x", "action": "Pick", "object": "Mug|+01.00|+00.90|-00.30"}')
    assert a.ok and a.value == {"action": "Pick", "object": "Mug|+01.00|+00.90|-00.30"}


def test_fenced_json_and_case() -> None:
    a = parse_reply('```json\n{"action": "rotateleft"}\n```')
    assert a.value == {"action": "RotateLeft"}


def test_lenient_line() -> None:
    assert parse_reply("Action: ToggleOn DeskLamp|+01.68|+00.84|+05.89").value == {
        "action": "ToggleOn", "object": "DeskLamp|+01.68|+00.84|+05.89"}
    assert parse_reply("I think I'm done.\nStop").value == {"action": "Stop"}


def test_failures_have_reasons() -> None:
    assert "needs an object" in parse_reply('{"action": "Pick"}').parse_error
    assert "unknown action" in parse_reply('{"action": "Fly"}').parse_error
    assert not parse_reply("hmm").ok
    assert not parse_reply("").ok
