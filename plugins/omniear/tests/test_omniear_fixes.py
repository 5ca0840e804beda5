"""The opt-in fix flags change only what they document; unknown flags are refused."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from suite_omniear.sim.fixes import FIXES

BAD = "INVALID"


def test_strict_done(omni: SimpleNamespace) -> None:
    fixed = frozenset({"strict_done"})
    assert omni.build().step({"agent_1": "Task is done"}).terminated
    assert not omni.build(fixes=fixed).step({"agent_1": "Task is done"}).terminated
    assert omni.build(fixes=fixed).step({"agent_1": "FINISH"}).terminated
    assert omni.build(fixes=fixed).step({"agent_1": " done "}).terminated
    assert not omni.build(agents=2).step({"agent_1": "done", "agent_2": "done"}).terminated
    assert omni.build(agents=2, fixes=fixed).step({"agent_1": "done", "agent_2": "done"}).terminated


def test_scan_verb(omni: SimpleNamespace) -> None:
    default = omni.last(omni.build(), "EXPLORE", "SCAN lamp_1")
    fixed = omni.last(omni.build(fixes=frozenset({"scan_verb"})), "EXPLORE", "SCAN lamp_1")
    assert default == (BAD, "Agent must go to Lamp 1 before exploring that room")
    assert fixed == (BAD, "Object does not support scan operation (missing is_scanned attribute)")


def test_closed_container_place(omni: SimpleNamespace) -> None:
    commands = (
        "GOTO kitchen",
        "EXPLORE",
        "GOTO cup_1",
        "GRAB cup_1",
        "GOTO crate_1",
        "PLACE cup_1 in crate_1",
    )
    assert omni.last(omni.build(), *commands)[0] == "SUCCESS"
    sim = omni.build(fixes=frozenset({"closed_container_place"}))
    assert omni.last(sim, *commands) == (BAD, "Target location Crate 1 is closed")
    assert sim.world.objects["cup_1"].parent == "agent_1"


def test_corp_capacity(omni: SimpleNamespace) -> None:
    for fixes, expected in (
        (frozenset(), ("SUCCESS", "Agents agent_1, agent_2 started cooperative grab of crate_1")),
        (
            frozenset({"corp_capacity"}),
            (
                BAD,
                "Object crate_1 (weight: 60.0kg) is too heavy for agents agent_1, agent_2 "
                "(combined capacity: 40.0kg)",
            ),
        ),
    ):
        sim = omni.build(agents=2, fixes=fixes)
        omni.pair(sim, "GOTO kitchen", "GOTO kitchen")
        omni.pair(sim, "EXPLORE", "DONE")
        assert omni.pair(sim, *("CORP_GRAB agent_1,agent_2 crate_1",) * 2)[0] == expected


def test_unknown_flag_is_refused(omni: SimpleNamespace) -> None:
    with pytest.raises(ValueError, match="unknown OmniSim fix flag"):
        omni.build(fixes=frozenset({"teleport"}))
    assert set(FIXES) == {"spawn_room", "strict_done", "scan_verb", "closed_container_place", "corp_capacity"}
