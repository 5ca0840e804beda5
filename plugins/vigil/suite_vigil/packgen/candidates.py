"""Candidate episodes per family: a house, a target meeting the family's constraints, a start pose, presets.

Each builder draws from a seeded `random.Random` and returns an episode dict (without oracle figures) or None when the
draw does not meet the family's rules (section 5): PG targets visible and reachable at the start, in three size classes;
DA visible but beyond 1.5 m; VS not visible from the start cell whichever way the agent turns (mostly in another room);
SV visible with its state preset and its state-bearing face toward the agent; AI visible and beyond reach; SI like VS;
SM in four templates with pre-conditions; CR in view from another room whose doorways boxes on the floor block (a
blocked path the agent must clear). Start poses are never aimed at the target: a visible target is anywhere in the first
frame (a random yaw offset within the field of view, a camera pitch drawn blind), and the generator redraws any episode
a blind baseline (suite_vigil.baselines) solves. A target is named so that it is unambiguous: by type when the house has
one of that type, else only when it is the one instance of its type in view at the start ("the cabinet in view")."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from suite_household.catalog import TYPES, can_hold
from suite_household.navigation import NavGrid
from suite_household.obstacles import passage, with_obstacles
from suite_household.world import Agent, World

from suite_vigil import goals
from suite_vigil.packgen.site import HORIZONS, Site, size_class, words
from suite_vigil.vocabulary import FAMILIES, SM_TEMPLATES

NOT_TARGETS = frozenset({"Floor", "Doorway", "SinkBasin", "BathtubBasin", "StoveKnob", "LightSwitch", "Window",
                         "Curtains", "Blinds", "Painting", "Mirror", "ShowerHead", "ShowerCurtain", "CounterTop"})
SV_OPEN = ("Fridge", "Microwave", "Cabinet", "Drawer", "Laptop", "Box")
SV_TOGGLE = ("Television", "DeskLamp", "FloorLamp", "Toaster", "Microwave", "Faucet")  # a closed laptop hides on/off
INTO = ("Bowl", "Pot", "Pan", "Plate", "Box", "GarbageCan", "LaundryHamper", "Cup", "Mug")
SURFACES = ("DiningTable", "CoffeeTable", "SideTable", "Desk", "Dresser", "TVStand", "Shelf", "Bed", "Sofa",
            "ArmChair", "Chair")
CONTAINERS = ("Fridge", "Cabinet", "Drawer", "Microwave", "Box")
AI_INTENTS = ("activate", "deactivate", "open_access", "close_access", "pick")
VISIBLE_PIXELS = 150  # a start-visible target covers at least this many pixels of the 640x480 frame
#: objects whose open/closed or on/off cue is on the front face (door, screen, window): SV starts in front of it
FRONT_CUE = frozenset({"Fridge", "Microwave", "Cabinet", "Drawer", "Television", "Laptop"})
FRONT_COS = 0.5  # SV: the start position lies within 60 degrees of such an object's front normal
OTHER_ROOM = 0.75  # VS/SI: the share of draws that start in a room other than the target's


def describe(site: Site, oid: str, seen: set[str] | None) -> str | None:
    """An unambiguous phrase for the object, or None."""
    otype = site.world.objects[oid].type
    name = words(otype)
    if site.counts()[otype] == 1:
        return f"the {name}"
    if seen is not None and oid in seen and sum(site.world.objects[o].type == otype for o in seen) == 1:
        return f"the {name} in view"
    return None


def _pose(pose: Agent) -> dict[str, Any]:
    return {"position": {"x": pose.x, "y": 0.9, "z": pose.z}, "rotation": pose.yaw, "horizon": pose.horizon,
            "standing": pose.standing}


def _episode(family: str, site: Site, target: str, instruction: str, pose: Agent, spec: dict[str, Any],
             overrides: list[tuple[str, str]] | None = None, **meta: Any) -> dict[str, Any]:
    fam = FAMILIES[family]
    world = site.world
    return {
        "episode_id": "", "family": family, "tier": fam.tier, "instruction": instruction, "house": site.name,
        "agent_init": _pose(pose), "max_steps": fam.max_steps, "max_invalid": 0,
        "state_overrides": [{"action": a, "objectId": o} for a, o in overrides or ()],
        "success_spec": spec,
        "meta": {"target_type": world.objects[target].type,
                 "start_distance": round(goals.box_distance(world, target), 3), **meta},
    }


def _start_near(site: Site, oid: str, rng: random.Random, lo: float, hi: float, need_pixels: int = 0,
                tries: int = 6, front: bool = False) -> tuple[Agent, set[str]] | None:
    cells = site.cells_between(oid, lo, hi)
    if front:
        cells = [c for c in cells if faces(site.world.objects[oid], c)]
    rng.shuffle(cells)
    for cell in cells[:tries]:
        pose = site.glancing(oid, cell, rng)
        seen = site.visible(pose, oid)
        if oid in seen and (not need_pixels or site.pixels(pose, oid) >= need_pixels):
            return pose, seen
    return None


def faces(obj: Any, cell: tuple[float, float]) -> bool:
    """Whether a position sees the object's state-bearing face (within 60 degrees of its front normal), for the
    types whose state shows on the front (FRONT_CUE); True for the others."""
    if obj.type not in FRONT_CUE:
        return True
    cx, _, cz = obj.center
    dx, dz = cell[0] - cx, cell[1] - cz
    norm = math.hypot(dx, dz)
    fx, fz = obj.front
    return norm > 0 and (dx * fx + dz * fz) / norm >= FRONT_COS


def _in_view(site: Site, oid: str, rng: random.Random, lo: float, hi: float,
             pixels: int = VISIBLE_PIXELS, front: bool = False) -> tuple[Agent, str] | None:
    """A start pose from which the object is in view (lo-hi metres away), and its unambiguous name."""
    start = _start_near(site, oid, rng, lo, hi, need_pixels=pixels, front=front)
    if start is None:
        return None
    desc = describe(site, oid, start[1])
    return None if desc is None else (start[0], desc)


def _start_hidden(site: Site, oid: str, rng: random.Random, hi: float = 5.5) -> tuple[Agent, set[str]] | None:
    """A start pose from whose cell the object is out of view whichever way the agent turns (1.6-`hi` m away;
    in another room for OTHER_ROOM of the draws when the house has one in range)."""
    cells = site.cells_between(oid, 1.6, hi)
    room = site.world.objects[oid].room
    other = [c for c in cells if site.room_of(*c) not in (room, None)]
    if other and rng.random() < OTHER_ROOM:
        cells = other
    rng.shuffle(cells)
    for cell in cells[:6]:
        if site.hidden_all_round(oid, cell):
            pose = Agent(cell[0], cell[1], float(rng.randrange(0, 360, 15)), rng.choice(HORIZONS), True)
            return pose, site.visible(pose, oid)
    return None


def _targets(site: Site, pred: Any) -> list[str]:
    return sorted(o.id for o in site.world.objects.values() if o.type not in NOT_TARGETS and pred(o))


def _state_override(world: Any, oid: str, prop: str, value: bool) -> list[tuple[str, str]]:
    if goals.state_of(world, oid, prop) == value:
        return []
    names = {("isOpen", True): "OpenObject", ("isOpen", False): "CloseObject",
             ("isToggled", True): "ToggleObjectOn", ("isToggled", False): "ToggleObjectOff"}
    return [(names[(prop, value)], oid)]


def build_pg(site: Site, rng: random.Random, i: int) -> dict[str, Any] | None:
    """PG: a target of the i-th size class, visible and within reach; ground it, then report."""
    cls = ("large", "medium", "small")[i % 3]
    options = _targets(site, lambda o: size_class(o.size) == cls and not site.world.enclosed(o.id))
    if not options:
        return None
    oid = rng.choice(options)
    start = _in_view(site, oid, rng, 0.5, 1.3)
    if start is None or site.under_fixed_points(oid, start[0]):
        return None
    spec = {"type": "target_grounded", "target": oid}
    return _episode("PG", site, oid, f"Find {start[1]} in your current view and ground it with a click, then "
                    "report.", start[0], spec, size_class=cls)


def build_da(site: Site, rng: random.Random, i: int) -> dict[str, Any] | None:
    """DA: a visible target beyond 1.5 m; walk within 1.5 m of it, then report."""
    options = _targets(site, lambda o: not site.world.enclosed(o.id) and o.type != "Doorway")
    oid = rng.choice(options)
    start = _in_view(site, oid, rng, 2.0, 5.0)
    if start is None or site.reached_walking_straight(oid, start[0]):
        return None
    spec = {"type": "agent_near_target", "target": oid, "distance": goals.NEAR}
    return _episode("DA", site, oid, f"Walk up to {start[1]} until it is within 1.5 m of you, then report.",
                    start[0], spec)


def build_vs(site: Site, rng: random.Random, i: int) -> dict[str, Any] | None:
    """VS: a target not visible at the start; bring it into view, then report."""
    options = _targets(site, lambda o: not site.world.enclosed(o.id) and site.counts()[o.type] == 1)
    oid = rng.choice(options)
    start = _start_hidden(site, oid, rng)
    if start is None or site.seen_on_a_straight_walk(oid, start[0]):
        return None
    spec = {"type": "object_state", "target": oid, "property": "visible", "value": True, "latched": True}
    return _episode("VS", site, oid, f"Search for {describe(site, oid, None)}: move and look around until you "
                    "can see it, then report.", start[0], spec)


def sv_value(labels: Counter, otype: str, prop: str) -> bool | None:
    """SV's preset value for a target, keeping the labels balanced within one per (type, property) and per
    property, so a blind guess of one label, or of a label per type, earns half the episodes: the label the
    type has had less often (ties: the one the property has had less often); None when that label would put the
    property two ahead (draw another target)."""
    def gap(key: tuple) -> int:
        return labels[(*key, True)] - labels[(*key, False)]

    by_type, overall = gap((otype, prop)), gap(("*", prop))
    value = by_type < 0 if by_type else overall < 0
    return None if abs(overall + (1 if value else -1)) > 1 else value


def build_sv(site: Site, rng: random.Random, i: int, labels: Counter | None = None) -> dict[str, Any] | None:
    """SV: a visible object with its state preset (labels balanced per type); report the state without changing
    it, from a start that sees the state-bearing face."""
    prop = ("isOpen", "isToggled")[i % 2]
    types = SV_OPEN if prop == "isOpen" else SV_TOGGLE
    options = _targets(site, lambda o: o.type in types and not site.world.enclosed(o.id))
    if not options:
        return None
    oid = rng.choice(options)
    start = _in_view(site, oid, rng, 0.6, 3.0, pixels=4 * VISIBLE_PIXELS, front=True)
    if start is None:
        return None
    otype = site.world.objects[oid].type
    value = sv_value(labels if labels is not None else Counter(), otype, prop)
    if value is None:
        return None
    on, off = goals.STATE_LABELS[prop]
    spec = {"type": "report_status", "target": oid, "property": prop}
    return _episode("SV", site, oid, f"Is {start[1]} {on} or {off}? Report its state as you see it.", start[0], spec,
                    _state_override(site.world, oid, prop, value), intent=f"{prop}={value}")


_AI_TYPES = {"activate": SV_TOGGLE, "deactivate": SV_TOGGLE, "open_access": SV_OPEN, "close_access": SV_OPEN}
_AI_TEXT = {"activate": "Turn on {}.", "deactivate": "Turn off {}.", "open_access": "Open {}.",
            "close_access": "Close {}.", "pick": "Pick up {}."}


def _intent_spec(world: Any, oid: str, intent: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """AI's, SI's and CR's success spec for an intent, and the preset that starts the target in the other state."""
    if intent == "pick":
        return {"type": "object_held", "target": oid}, []
    prop = "isToggled" if intent in ("activate", "deactivate") else "isOpen"
    value = intent in ("activate", "open_access")
    return ({"type": "object_state", "target": oid, "property": prop, "value": value},
            _state_override(world, oid, prop, not value))


def _interaction(site: Site, rng: random.Random, intent: str, visible: bool, family: str) -> dict[str, Any] | None:
    world = site.world
    counts = site.counts()
    kinds = _AI_TYPES.get(intent)
    options = _targets(site, lambda o: (TYPES[o.type].pickupable if kinds is None else o.type in kinds)
                       and not world.enclosed(o.id) and (visible or counts[o.type] == 1))
    if not options:
        return None
    oid = rng.choice(options)
    start = _start_near(site, oid, rng, 1.8, 5.0, VISIBLE_PIXELS) if visible else _start_hidden(site, oid, rng)
    if start is None or (visible and site.reached_walking_straight(oid, start[0])):
        return None  # AI as DA: no straight walk within the view cone brings a blind actor within reach
    desc = describe(site, oid, start[1] if visible else None)
    if desc is None:
        return None
    spec, overrides = _intent_spec(world, oid, intent)
    return _episode(family, site, oid, _AI_TEXT[intent].format(desc), start[0], spec, overrides, intent=intent)


def build_ai(site: Site, rng: random.Random, i: int) -> dict[str, Any] | None:
    """AI: approach a visible target beyond reach and do one interaction (intents cycled)."""
    return _interaction(site, rng, AI_INTENTS[i % len(AI_INTENTS)], True, "AI")


def build_si(site: Site, rng: random.Random, i: int) -> dict[str, Any] | None:
    """SI: find a target not visible at the start, approach it and do one interaction."""
    return _interaction(site, rng, AI_INTENTS[i % len(AI_INTENTS)], False, "SI")


def _unique(site: Site, types: tuple[str, ...], item_type: str, exclude: set[str]) -> list[str]:
    counts = site.counts()
    return sorted(o.id for o in site.world.objects.values()
                  if o.type in types and counts[o.type] == 1 and o.id not in exclude and can_hold(o.type, item_type)
                  and not site.world.enclosed(o.id))


def build_sm(site: Site, rng: random.Random, i: int) -> dict[str, Any] | None:
    """SM: the i-th template (reveal_pick, put_into, rearrange, open_pick_place)."""
    template = SM_TEMPLATES[i % len(SM_TEMPLATES)]
    world = site.world
    counts = site.counts()
    hidden = template in ("reveal_pick", "open_pick_place")
    items = sorted(o.id for o in world.objects.values() if TYPES[o.type].pickupable and counts[o.type] == 1
                   and (world.enclosed(o.id) if hidden else not world.enclosed(o.id))
                   and (not hidden or (o.parent and world.objects[o.parent].type in CONTAINERS)))
    if not items:
        return None
    item = rng.choice(items)
    obj = world.objects[item]
    name = words(obj.type)
    pre = []
    desc_c = ""
    if hidden:
        container = obj.parent
        ctype = world.objects[container].type
        if counts[ctype] != 1:
            return None
        desc_c = f"the {words(ctype)}"
        pre = [{"target": container, "property": "isOpen", "value": True}]
    if template == "reveal_pick":
        spec = {"type": "object_held", "target": item, "preconditions": pre}
        text = f"The {name} is inside {desc_c}. Open it and pick up the {name}."
    else:
        kinds = INTO if template == "put_into" else SURFACES
        recs = _unique(site, kinds, obj.type, {item, obj.parent or ""})
        if not recs:
            return None
        rec = rng.choice(recs)
        spec = {"type": "object_at_receptacle", "target": item, "receptacle": rec, "preconditions": pre}
        rname = words(world.objects[rec].type)
        text = {"put_into": f"Put the {name} into the {rname}.",
                "rearrange": f"Move the {name} to the {rname}.",
                "open_pick_place": f"Take the {name} out of {desc_c} and put it on the {rname}."}[template]
    cells = site.cells
    cell = cells[rng.randrange(len(cells))]
    pose = Agent(cell[0], cell[1], float(rng.randrange(0, 360, 15)), 0.0, True)
    if goals.box_distance(world, item) > 6.0:
        return None
    return _episode("SM", site, item, text, pose, spec, template=template)


def _doors_of(site: Site, room: str) -> list[str]:
    """The doors into a room (door ids name the two rooms they join)."""
    tag = room.removeprefix("room")
    return sorted(o.id for o in site.world.objects.values()
                  if o.type == "Doorway" and tag in o.id.split("|")[1:])


#: CR's obstacle: a box on the floor of each doorway into the target's room, set this far from the door's centre
#: line on the side away from the room (it spans the passage, so no way in is left until one is moved)
OBSTACLE_TYPE, OBSTACLE_OFFSET = "Box", 0.2
CR_DISTANCE = (2.0, 6.0)  # CR: the start cell's box distance to the target, metres


def _obstacles(site: Site, room: str, doors: list[str]) -> list[dict[str, Any]]:
    """One obstacle per door into `room`, on the floor just outside it, spanning the door's passage."""
    world = site.world
    r = next(rm for rm in world.scene.rooms if rm.id == room)
    rx, rz = (r.x0 + r.x1) / 2, (r.z0 + r.z1) / 2
    size = TYPES[OBSTACLE_TYPE].size
    out = []
    for k, d in enumerate(doors):
        x, _, z = world.objects[d].center
        *_, along_x = passage(world.objects[d])
        if along_x:
            z -= math.copysign(OBSTACLE_OFFSET, rz - z)
        else:
            x -= math.copysign(OBSTACLE_OFFSET, rx - x)
        out.append({"objectId": f"{OBSTACLE_TYPE}|obstacle|{k}", "type": OBSTACLE_TYPE,
                    "position": {"x": round(x, 4), "y": round(size[1] / 2, 4), "z": round(z, 4)}, "size": list(size)})
    return out


def build_cr(site: Site, rng: random.Random, i: int) -> dict[str, Any] | None:
    """CR, as the paper describes it: the target is in view at the start, in another room, and a box on the floor
    of every doorway into its room blocks the way (the agent must pick one up and put it aside, then approach and
    do the interaction; intents cycled as AI's). No cell the agent can reach with the boxes in place is within
    reach of the target."""
    intent = AI_INTENTS[i % len(AI_INTENTS)]
    world = site.world
    counts = site.counts()
    kinds = _AI_TYPES.get(intent)
    options = _targets(site, lambda o: (TYPES[o.type].pickupable if kinds is None else o.type in kinds)
                       and o.type != OBSTACLE_TYPE and not world.enclosed(o.id) and counts[o.type] == 1
                       and o.room is not None)
    if not options:
        return None
    oid = rng.choice(options)
    room = world.objects[oid].room
    doors = _doors_of(site, room)
    if not doors or not all(world.objects[d].is_open for d in doors):
        return None
    obstacles = _obstacles(site, room, doors)
    blocked = World(with_obstacles(site.ctl.scene, obstacles))
    nav = NavGrid(blocked)
    home = site.ctl.scene.agent
    if nav.blocker(home.x, home.z) is not None:
        return None  # the house's lattice is laid through its start position
    cells = [c for c in site.cells_between(oid, *CR_DISTANCE) if site.room_of(*c) not in (room, None)]
    rng.shuffle(cells)
    for cell in cells[:6]:
        pose = site.glancing(oid, cell, rng)
        blocked.set_agent(pose)
        frame = site.small.render(blocked, shade_colors=False)
        if oid not in frame.ids or 16 * int((frame.owner == frame.ids.index(oid)).sum()) < VISIBLE_PIXELS:
            continue
        x0, _, z0, x1, _, z1 = world.objects[oid].box
        reach = [math.hypot(max(x0 - x, 0, x - x1), max(z0 - z, 0, z - z1)) for x, z in nav.reachable(cell)]
        if min(reach, default=0.0) <= goals.NEAR + 0.1:
            continue  # a way round the boxes, or the target within reach from outside its room
        first = min(range(len(doors)), key=lambda k: math.hypot(obstacles[k]["position"]["x"] - cell[0],
                                                                obstacles[k]["position"]["z"] - cell[1]))
        spec, overrides = _intent_spec(world, oid, intent)
        spec["constraint"] = {"kind": "obstacle", "object": obstacles[first]["objectId"], "doors": doors}
        world.set_agent(pose)
        episode = _episode("CR", site, oid, _AI_TEXT[intent].format(f"the {words(world.objects[oid].type)}"), pose,
                           spec, overrides, intent=intent, constraint="obstacle", doors=len(doors),
                           obstacles=len(obstacles))
        episode["obstacles"] = obstacles
        return episode
    return None


#: the episode builder of each family: (site, rng, index, **extra) -> episode, or None when the draw is rejected
BUILDERS: dict[str, Callable[..., dict[str, Any] | None]] = {
    "PG": build_pg, "DA": build_da, "VS": build_vs, "SV": build_sv, "AI": build_ai, "SI": build_si, "SM": build_sm,
    "CR": build_cr}
