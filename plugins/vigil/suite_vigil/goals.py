"""The hidden success spec: the semantic and strict world predicates, the report match, and task progress.

Spec types (section 7): target_grounded, agent_near_target, object_state (visible latched, isOpen, isToggled),
object_held, object_at_receptacle, report_status (SV). A CR spec adds a `constraint` that must also hold; an
SM spec may add `preconditions` (state sub-goals that count toward progress). Our tolerances, where the paper
gives none: the semantic distance is to the nearest point of the target's box and the strict one to its
centre; a semantic placement accepts the item anywhere inside the receptacle (on a plate in it, say), the
strict one only directly in it; a grounding counts by the last grounding click (clicking around until one hits
is no grounding), the strict one needs a single click; a semantic sighting is latched, the strict one must hold
at the end. A CR spec's `closed_door` constraint holds once a door into the shut room is open. SV's world (semantic
and strict) needs the target visible at the end and its preset state unchanged: the paper's SV asks for the
state "without physical interaction", so an agent that sets the state it then reports verified nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from suite_household.world import World

from suite_vigil.vocabulary import FAIL_STATUSES

NEAR = 1.5
STATE_LABELS = {"isOpen": ("open", "closed"), "isToggled": ("on", "off")}
_FIELDS = {"isOpen": "is_open", "isToggled": "is_toggled"}


def state_of(world: World, object_id: str, prop: str) -> bool:
    """An object's boolean state by its AI2-THOR property name (isOpen, isToggled)."""
    return bool(getattr(world.objects[object_id], _FIELDS[prop]))


def state_label(world: World, spec: dict[str, Any]) -> str:
    """The SV label the hidden state calls for (open/closed, on/off)."""
    on, off = STATE_LABELS[spec["property"]]
    return on if state_of(world, spec["target"], spec["property"]) else off


def centre_distance(world: World, object_id: str) -> float:
    """Horizontal distance from the agent to the object's centre."""
    x, _, z = world.objects[object_id].center
    return math.hypot(x - world.agent.x, z - world.agent.z)


def box_distance(world: World, object_id: str) -> float:
    """Horizontal distance from the agent to the nearest point of the object's box."""
    x0, _, z0, x1, _, z1 = world.objects[object_id].box
    ax, az = world.agent.x, world.agent.z
    return math.hypot(max(x0 - ax, 0, ax - x1), max(z0 - az, 0, az - z1))


@dataclass
class Tracker:
    """What the per-step evaluator remembers: grounding clicks, sightings, the start state."""

    spec: dict[str, Any]
    grounded: list[str] = field(default_factory=list)
    seen: bool = False
    start_distance: float = 0.0
    start_state: bool | None = None
    start_scores: list[float] = field(default_factory=list)


def _holds(world: World, cond: dict[str, Any]) -> bool:
    return state_of(world, cond["target"], cond["property"]) == bool(cond["value"])


def _constraint(world: World, spec: dict[str, Any]) -> bool:
    c = spec.get("constraint")
    if not c:
        return True
    if c["kind"] == "closed_door":  # the blocked path is open once any door into the target's room is
        return any(world.objects[d].is_open for d in c["doors"])
    return _holds(world, c)


def world_ok(world: World, t: Tracker, visible: bool, strict: bool) -> bool:
    """W: whether the final state satisfies the spec (semantic, or strict with no tolerance)."""
    s = t.spec
    kind, target = s["type"], s["target"]
    if kind == "target_grounded":
        ok = bool(t.grounded) and t.grounded[-1] == target and (not strict or len(t.grounded) == 1)
    elif kind == "agent_near_target":
        ok = (centre_distance if strict else box_distance)(world, target) < s.get("distance", NEAR)
    elif kind == "object_state" and s["property"] == "visible":
        ok = visible if strict else (t.seen or visible)
    elif kind == "object_state":
        ok = state_of(world, target, s["property"]) == bool(s["value"])
    elif kind == "object_held":
        ok = world.held == target
    elif kind == "object_at_receptacle":
        rec = s["receptacle"]
        ok = world.held != target and (world.objects[target].parent == rec if strict
                                       else rec in world.ancestors(target))
    elif kind == "report_status":
        ok = visible and state_of(world, target, s["property"]) == t.start_state
    else:
        raise ValueError(f"unknown success spec type {kind!r}")
    return bool(ok) and _constraint(world, s)


def match(spec: dict[str, Any], status: str, world: World, w: bool) -> bool:
    """App. C.3: SV needs the exact label of the hidden state; every other type needs success iff W."""
    if spec["type"] == "report_status":
        return status == state_label(world, spec)
    return (status == "success" and w) or (status in FAIL_STATUSES and not w)


def _approach(world: World, target: str, start: float) -> float:
    d = box_distance(world, target)
    if d < NEAR:
        return 1.0
    return max(0.0, min(1.0, (start - d) / (start - NEAR))) if start > NEAR else 0.0


def scores(world: World, t: Tracker, visible: bool) -> list[float]:
    """The sub-condition scores in [0, 1] of the spec (approach, state, held, placed, pre-conditions...)."""
    s = t.spec
    kind, target = s["type"], s["target"]
    out: list[float] = [float(_holds(world, c)) for c in s.get("preconditions", ())]
    if s.get("constraint"):
        out.append(float(_constraint(world, s)))
    if kind == "target_grounded":
        out.append(float(bool(t.grounded) and t.grounded[-1] == target))
    elif kind == "agent_near_target":
        out.append(_approach(world, target, t.start_distance))
    elif kind == "object_state" and s["property"] == "visible":
        out.append(float(t.seen or visible))
    elif kind == "object_state":
        out += [_approach(world, target, t.start_distance), float(_holds(world, {**s, "target": target}))]
    elif kind == "object_held":
        out += [_approach(world, target, t.start_distance), float(world.held == target)]
    elif kind == "object_at_receptacle":
        placed = world.held != target and s["receptacle"] in world.ancestors(target)
        out += [float(world.held == target or placed), float(placed)]
    elif kind == "report_status":
        out.append(float(visible))
    return out


def progress(world: World, t: Tracker, visible: bool) -> float:
    """Task progress in [0, 1]: the mean advance of the sub-conditions not already met at the start, each
    relative to its start value (0 when none has advanced; 1 or 0 by W when all were met at the start)."""
    now = scores(world, t, visible)
    parts = [max(0.0, (v - v0) / (1.0 - v0)) for v, v0 in zip(now, t.start_scores, strict=True) if v0 < 1.0]
    if not parts:
        return float(world_ok(world, t, visible, strict=False))
    return round(sum(parts) / len(parts), 4)
