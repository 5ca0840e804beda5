"""The hidden success spec: the semantic and strict world predicates, the report match, and task progress.

Spec types (section 7): target_grounded, agent_near_target, object_state (visible latched, isOpen, isToggled),
object_held, object_at_receptacle, report_status (SV). A CR spec adds a `constraint` that must also hold; an SM spec may
add `preconditions` (state sub-goals that count toward progress). DA's semantic distance is `vigil.near_to`: the paper's
Euclidean distance to the object's centre (the default) or ours before, to the nearest point of its box; the strict one
is always to the centre. Our tolerances, where the paper gives none: a semantic placement accepts the item anywhere
inside the receptacle (on a plate in it, say), the strict one only directly in it; a grounding counts by the last
grounding click (clicking around until one hits is no grounding), the strict one needs a single click; a semantic
sighting is latched, the strict one must hold at the end. A CR spec's `obstacle` constraint holds once an open door into
the target's room is no longer spanned by an obstacle on the floor (picked up, or dropped out of the way); the older
`closed_door` one once a door into the shut room is open. SV's world (semantic and strict) needs the target visible at
the end and, by default (`vigil.sv_world=unchanged`), its preset state unchanged: the paper's SV asks for the state
"without physical interaction", so an agent that sets the state it then reports verified nothing;
`vigil.sv_world=visible` is the paper's rule as printed (visible at the end)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from suite_household.obstacles import door_blocked
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


#: How DA's "near" is measured: `centre` is the paper's (Euclidean distance on the floor to the object's position,
#: under 1.5 m), `box` ours before (to the nearest point of the object's box: a large object counts sooner).
NEAR_MEASURES = ("centre", "box")
#: SV's world condition: `unchanged` (ours: visible at the end with the preset state untouched) or `visible` (the
#: paper's: visible at the end; the report must name the state the object is in then).
SV_RULES = ("unchanged", "visible")


def distance_at(world: World, object_id: str, x: float, z: float, measure: str = "centre") -> float:
    """Horizontal distance from the point (x, z) to the object's centre or to the nearest point of its box."""
    if measure == "centre":
        cx, _, cz = world.objects[object_id].center
        return math.hypot(cx - x, cz - z)
    x0, _, z0, x1, _, z1 = world.objects[object_id].box
    return math.hypot(max(x0 - x, 0, x - x1), max(z0 - z, 0, z - z1))


def centre_distance(world: World, object_id: str) -> float:
    """Horizontal distance from the agent to the object's centre."""
    return distance_at(world, object_id, world.agent.x, world.agent.z, "centre")


def box_distance(world: World, object_id: str) -> float:
    """Horizontal distance from the agent to the nearest point of the object's box."""
    return distance_at(world, object_id, world.agent.x, world.agent.z, "box")


def near_distance(world: World, object_id: str, measure: str) -> float:
    """The agent's distance to the object by DA's configured measure."""
    return distance_at(world, object_id, world.agent.x, world.agent.z, measure)


@dataclass
class Tracker:
    """What the per-step evaluator remembers: grounding clicks, sightings, the start state."""

    spec: dict[str, Any]
    near: str = "centre"
    sv_rule: str = "unchanged"
    grounded: list[str] = field(default_factory=list)
    seen: bool = False
    start_distance: float = 0.0
    start_state: bool | None = None
    start_scores: list[float] = field(default_factory=list)
    obstacles: tuple[str, ...] = ()  # the ids of the movable obstacles the episode adds (CR)

    def approach_measure(self) -> str:
        """How the approach part of task progress is measured: DA's configured measure; to the box for the families
        that approach an object to act on it (their reach is to the box)."""
        return self.near if self.spec["type"] == "agent_near_target" else "box"


def _holds(world: World, cond: dict[str, Any]) -> bool:
    return state_of(world, cond["target"], cond["property"]) == bool(cond["value"])


def _constraint(world: World, t: Tracker) -> bool:
    c = t.spec.get("constraint")
    if not c:
        return True
    if c["kind"] == "closed_door":  # the blocked path is open once any door into the target's room is
        return any(world.objects[d].is_open for d in c["doors"])
    if c["kind"] == "obstacle":  # ... or once no obstacle on the floor spans one of its doors
        return not all(door_blocked(world, d, t.obstacles) for d in c["doors"])
    return _holds(world, c)


def world_ok(world: World, t: Tracker, visible: bool, strict: bool) -> bool:
    """W: whether the final state satisfies the spec (semantic, or strict with no tolerance)."""
    s = t.spec
    kind, target = s["type"], s["target"]
    if kind == "target_grounded":
        ok = bool(t.grounded) and t.grounded[-1] == target and (not strict or len(t.grounded) == 1)
    elif kind == "agent_near_target":
        ok = near_distance(world, target, "centre" if strict else t.near) < s.get("distance", NEAR)
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
        ok = visible and (t.sv_rule == "visible" or state_of(world, target, s["property"]) == t.start_state)
    else:
        raise ValueError(f"unknown success spec type {kind!r}")
    return bool(ok) and _constraint(world, t)


def match(spec: dict[str, Any], status: str, world: World, w: bool) -> bool:
    """App. C.3: SV needs the exact label of the hidden state; every other type needs success iff W."""
    if spec["type"] == "report_status":
        return status == state_label(world, spec)
    return (status == "success" and w) or (status in FAIL_STATUSES and not w)


def _approach(world: World, target: str, start: float, measure: str) -> float:
    d = near_distance(world, target, measure)
    if d < NEAR:
        return 1.0
    return max(0.0, min(1.0, (start - d) / (start - NEAR))) if start > NEAR else 0.0


def scores(world: World, t: Tracker, visible: bool) -> list[float]:
    """The sub-condition scores in [0, 1] of the spec (approach, state, held, placed, pre-conditions...)."""
    s = t.spec
    kind, target = s["type"], s["target"]
    out: list[float] = [float(_holds(world, c)) for c in s.get("preconditions", ())]
    if s.get("constraint"):
        out.append(float(_constraint(world, t)))
    if kind == "target_grounded":
        out.append(float(bool(t.grounded) and t.grounded[-1] == target))
    elif kind == "agent_near_target":
        out.append(_approach(world, target, t.start_distance, t.approach_measure()))
    elif kind == "object_state" and s["property"] == "visible":
        out.append(float(t.seen or visible))
    elif kind == "object_state":
        out += [_approach(world, target, t.start_distance, t.approach_measure()),
                float(_holds(world, {**s, "target": target}))]
    elif kind == "object_held":
        out += [_approach(world, target, t.start_distance, t.approach_measure()), float(world.held == target)]
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
