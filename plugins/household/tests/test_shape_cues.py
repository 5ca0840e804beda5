"""Targets are drawn with shape cues and their reportable states show: a laptop's lid stands when open and its
screen lights when on, a lamp's shade is bright only when on, and small objects are more than one plain box."""

from __future__ import annotations

from dataclasses import replace

from suite_household.geometry import object_parts
from suite_household.world import Obj


def _obj(kind: str, size: tuple[float, float, float], **state: bool) -> Obj:
    return Obj(id=f"{kind}|1", type=kind, name=kind, center=(0.0, 1.0, 0.0), size=size, facing=0, room="room0",
               **state)


def _top(parts) -> float:
    return max(box[4] for box, _ in parts)


def test_an_open_laptop_shows_a_standing_lid_and_a_lit_screen_when_on() -> None:
    closed = _obj("Laptop", (0.34, 0.03, 0.24))
    opened = replace(closed, is_open=True)
    assert _top(object_parts(closed)) <= closed.box[4] + 1e-9
    assert _top(object_parts(opened)) > opened.box[4] + 0.2
    off = {c for _, c in object_parts(opened)}
    on = {c for _, c in object_parts(replace(opened, is_toggled=True))}
    assert (120, 200, 255) in on and (120, 200, 255) not in off


def test_a_lamp_shade_is_bright_only_when_on() -> None:
    lamp = _obj("DeskLamp", (0.22, 0.48, 0.22))
    shade_off = object_parts(lamp)[2][1]
    shade_on = object_parts(replace(lamp, is_toggled=True))[2][1]
    assert sum(shade_on) > sum(shade_off) + 150


def test_small_targets_are_more_than_one_plain_box() -> None:
    for kind, size in (("Bread", (0.26, 0.12, 0.13)), ("PepperShaker", (0.05, 0.1, 0.05)),
                       ("AlarmClock", (0.14, 0.1, 0.08)), ("Towel", (0.5, 0.6, 0.05))):
        parts = object_parts(_obj(kind, size))
        assert len(parts) >= 3 and len({c for _, c in parts}) >= 2, kind
