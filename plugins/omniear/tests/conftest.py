"""Fixtures for the OmniEAR tests: tiny hand-built scenes, our own small verb table, the golden data."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from suite_omniear.data import AttributeAction, AttributeTable, scene_from_dict, task_from_dict
from suite_omniear.sim import OmniSim

GOLDEN_ROOT = (Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "omniear").resolve()
GOLDEN_EVAL = GOLDEN_ROOT / "data" / "eval"
GOLDEN_TRACES = GOLDEN_ROOT / "golden" / "traces.jsonl"
GOLDEN_GLOBAL = GOLDEN_ROOT / "golden" / "traces_global.jsonl"

#: Our own verbs for the hand-built scenes (name, attribute, value, requires_tool, description).
VERBS = [
    ("open", "is_open", False, False, "Open it."),
    ("close", "is_open", True, False, "Close it."),
    ("switch_on", "is_on", False, False, "Switch it on."),
    ("switch_off", "is_on", True, False, "Switch it off."),
    ("fix", "is_broken", True, True, "Fix it with a tool."),
    ("scan", "is_scanned", False, True, "Scan it with a scanner."),
]


def make_table(rows: list[tuple[str, str, bool, bool, str]] = VERBS) -> AttributeTable:
    """An attribute table from (name, attribute, value, requires_tool, description) rows."""
    return AttributeTable({r[0]: AttributeAction(*r) for r in rows})


def obj(oid: str, loc: str, kind: str = "ITEM", weight: float = 1.0, **extra: Any) -> dict[str, Any]:
    """A scene object dict: `loc` is `in:x`/`on:x`; `states=` and other keyword properties pass through."""
    states = extra.pop("states", {})
    props = {"weight": weight, **extra}
    return {
        "id": oid,
        "name": oid.replace("_", " ").title(),
        "type": kind,
        "location_id": loc,
        "properties": props,
        "states": states,
    }


def default_objects() -> list[dict[str, Any]]:
    """Kitchen: table, closed cabinet holding a tool kit, heavy crate. Hall: a desk with a lamp."""
    return [
        obj("table_1", "in:kitchen", "FURNITURE", 40.0, is_container=False),
        obj("cup_1", "on:table_1", weight=0.5),
        obj("cabinet_1", "in:kitchen", "FURNITURE", 30.0, is_container=True),
        obj("kit_1", "in:cabinet_1", weight=2.0, provides_abilities=["fix"]),
        obj("radio_1", "on:table_1", weight=1.5, states={"is_broken": True, "is_on": False}),
        obj("crate_1", "in:kitchen", "FURNITURE", 60.0, is_container=True),
        obj("lamp_1", "on:desk_1", weight=3.0, states={"is_on": False}),
        obj("desk_1", "in:hall", "FURNITURE", 35.0, is_container=False),
    ]


def build(
    objects: list[dict[str, Any]] | None = None,
    *,
    agents: int = 1,
    max_weight: float = 20.0,
    grasp: int = 2,
    checks: list[dict[str, Any]] | None = None,
    category: str = "direct_command",
    description: str = "Do the thing.",
    abilities: list[str] | None = None,
    mode: str = "explore",
    fixes: frozenset[str] = frozenset(),
    max_size: Any = None,
    rooms: list[dict[str, Any]] | None = None,
) -> OmniSim:
    """A simulator over a tiny scene (rooms `hall` and `kitchen`; agents start in `hall`, sorted first)."""
    scene = {
        "rooms": rooms
        or [
            {"id": "kitchen", "name": "Kitchen", "properties": {"type": "kitchen"}},
            {"id": "hall", "name": "Hall", "properties": {"type": "hall"}},
        ],
        "objects": default_objects() if objects is None else objects,
        "abilities": ["open", "close", "switch_on", "switch_off", "fix", "scan"]
        if abilities is None
        else abilities,
    }
    task = {
        "agents_config": [
            {
                "name": f"robot_{i}",
                "max_grasp_limit": grasp,
                "max_weight": max_weight,
                "max_size": [1.5, 1.5, 1.5] if max_size is None else max_size,
            }
            for i in range(1, agents + 1)
        ],
        "tasks": [
            {
                "task_description": description,
                "task_category": category,
                "validation_checks": checks or [{"id": "cup_1", "location_id": "on:desk_1"}],
            }
        ],
        "scene_id": "t",
    }
    return OmniSim(scene_from_dict(scene), task_from_dict(task), make_table(), mode, fixes)


def run(sim: OmniSim, *commands: str) -> list[tuple[str, str]]:
    """Step a one-agent simulator through commands; return (status, message) per step."""
    out = []
    for command in commands:
        result = sim.step({"agent_1": command}).results["agent_1"]
        out.append((result.status, result.message))
    return out


def last(sim: OmniSim, *commands: str) -> tuple[str, str]:
    """(status, message) of the last of the commands."""
    return run(sim, *commands)[-1]


def pair(sim: OmniSim, c1: str, c2: str) -> tuple[tuple[str, str], ...]:
    """(agent_1, agent_2, overall) as (status, message) for one two-agent step."""
    out = sim.step({"agent_1": c1, "agent_2": c2})
    r1, r2 = out.results["agent_1"], out.results["agent_2"]
    return (r1.status, r1.message), (r2.status, r2.message), (out.overall.status, out.overall.message)


@pytest.fixture
def omni() -> SimpleNamespace:
    """The tiny-scene helpers: build, run, last, pair, obj, default_objects, make_table."""
    return SimpleNamespace(
        build=build,
        run=run,
        last=last,
        pair=pair,
        obj=obj,
        default_objects=default_objects,
        make_table=make_table,
    )


@pytest.fixture
def golden() -> SimpleNamespace:
    """Paths of the golden traces and eval data (the test is skipped when they are absent)."""
    if not GOLDEN_TRACES.is_file():
        pytest.skip("golden data not present at ../shared/data/omniear (upstream subset)")
    return SimpleNamespace(eval=GOLDEN_EVAL, traces=GOLDEN_TRACES, traces_global=GOLDEN_GLOBAL)
