"""HoloMind's skill library: navigation and manipulation functions, each a generator of the simulator's raw
actions that reads what the agent perceives after every action (never the hidden state). A skill returns a
`SkillResult`; the first failed raw action ends it with that action's error."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from suite_longact.holomind.mapping import FreeSpaceMap
from suite_longact.holomind.memory import SpatialMemory
from suite_longact.lattice import heading, path_to
from suite_longact.vocabulary import MOVES

Actions = Generator[dict[str, Any], None, "SkillResult"]
NEAR = 1.0
REACH = 1.5  # the action space's reach (metres), when the observation does not say what is in reach
MANIPULATIONS = {"pick": "Pick", "place": "Place", "open": "Open", "close": "Close", "toggle_on": "ToggleOn",
                 "toggle_off": "ToggleOff", "slice": "Slice"}


@dataclass
class SkillResult:
    """How a skill ended."""

    ok: bool
    message: str
    steps: int = 0


class Body:
    """What the skills share: the latest observation, the maps, the step budget."""

    def __init__(self, spatial: SpatialMemory, budget: Callable[[], int]) -> None:
        self.spatial = spatial
        self.map: FreeSpaceMap | None = None
        self.data: dict[str, Any] = {}
        self.budget = budget

    @property
    def pose(self) -> dict[str, Any]:
        """The agent's pose now."""
        return self.data["pose"]

    @property
    def free_space(self) -> FreeSpaceMap:
        """The free-space map (the agent builds it from the first observation, before any skill runs)."""
        if self.map is None:
            raise RuntimeError("no free-space map yet: the agent builds it from the first observation")
        return self.map

    @property
    def last(self) -> dict[str, Any]:
        """The last raw action's outcome."""
        return self.data.get("last") or {"success": True, "error": ""}

    def visible(self, object_id: str) -> dict[str, Any] | None:
        """The object's entry in the current instance list."""
        return next((d for d in self.data.get("instances") or [] if d["id"] == object_id), None)

    def in_reach(self, object_id: str) -> bool:
        """Whether the object is in view and in reach (as observed, else judged from its distance)."""
        seen = self.visible(object_id)
        if not seen:
            return False
        return bool(seen.get("reachable", seen["distance"] <= REACH))

    def room(self) -> str:
        """The room the agent is in: as observed, else guessed from the landmarks remembered near it."""
        return self.data.get("room") or self.spatial.room_at(self.pose["x"], self.pose["z"])


def look_around(body: Body) -> Actions:
    """Turn a full circle in 30-degree steps, looking slightly down, so the memories take in the room."""
    n = 0
    while body.pose["horizon"] < 30:
        yield {"action": "LookDown"}
        n += 1
    while body.pose["horizon"] > 30:
        yield {"action": "LookUp"}
        n += 1
    for _ in range(12):
        yield {"action": "RotateRight"}
        n += 1
    return SkillResult(True, "looked around", n)


def _turn_to(body: Body, yaw: float) -> Generator[dict[str, Any], None, int]:
    n = 0
    while True:
        diff = (yaw - body.pose["yaw"]) % 360
        if diff < 1 or diff > 359:
            return n
        yield {"action": "RotateRight" if diff <= 180 else "RotateLeft"}
        n += 1


def _walk(body: Body, path: list[tuple[int, int]]) -> Generator[dict[str, Any], None, tuple[bool, int]]:
    moves = {v: k for k, v in MOVES.items()}
    n = 0
    for a, b in zip(path, path[1:], strict=False):
        if body.pose["yaw"] % 90:
            n += yield from _turn_to(body, round(body.pose["yaw"] / 90) * 90 % 360)
        rel = round((heading(a, b) - body.pose["yaw"]) % 360) % 360
        for _ in range(5):
            yield {"action": moves[rel]}
            n += 1
            if not body.last["success"]:
                body.free_space.block_edge(a, b)
                return False, n
        body.free_space.visited.add(b)
    return True, n


def go_to_point(body: Body, x: float, z: float, near: float) -> Actions:
    """Walk to a lattice point within `near` metres of (x, z), replanning around what blocks the way."""
    total = 0
    for _ in range(12):
        start = body.free_space.cell(body.pose["x"], body.pose["z"])
        parent = body.free_space.paths(start)
        goals = sorted((len(path_to(parent, c)), c) for c in parent
                       if 0.3 <= math.dist(body.free_space.pos(c), (x, z)) <= near)
        if not goals:
            return SkillResult(False, f"no known free way to ({x:.2f}, {z:.2f})", total)
        path = path_to(parent, goals[0][1])
        ok, n = yield from _walk(body, path)
        total += n
        if ok:
            return SkillResult(True, "arrived", total)
        if body.budget() <= 0:
            break
    return SkillResult(False, "the way stayed blocked", total)


def face(body: Body, x: float, y: float, z: float) -> Generator[dict[str, Any], None, int]:
    """Turn and tilt toward a point (30-degree steps)."""
    p = body.pose
    yaw = round(math.degrees(math.atan2(x - p["x"], z - p["z"])) / 30) * 30 % 360
    n = yield from _turn_to(body, yaw)
    pitch = math.degrees(math.atan2(body.data["camera"]["y"] - y, math.hypot(x - p["x"], z - p["z"])))
    horizon = max(-30, min(60, round(pitch / 30) * 30))
    while body.pose["horizon"] < horizon:
        yield {"action": "LookDown"}
        n += 1
    while body.pose["horizon"] > horizon:
        yield {"action": "LookUp"}
        n += 1
    return n


def go_to(body: Body, object_id: str) -> Actions:
    """Walk near a remembered object and face it; succeeds when it is in view and in reach."""
    inst = body.spatial.instances.get(object_id)
    if inst is None:
        return SkillResult(False, f"{object_id} is not in the spatial memory")
    n = 0
    for near in (NEAR, 1.4):
        res = yield from go_to_point(body, inst.position[0], inst.position[2], near)
        n += res.steps
        if not res.ok:
            return SkillResult(False, res.message, n)
        n += yield from face(body, *inst.position)
        if body.in_reach(object_id):
            return SkillResult(True, f"at {object_id}", n)
        for _ in range(2):  # a local look around before giving up on this spot
            yield {"action": "LookDown" if body.pose["horizon"] < 60 else "LookUp"}
            n += 1
            if body.in_reach(object_id):
                return SkillResult(True, f"at {object_id}", n)
    return SkillResult(False, f"{object_id} not in view or out of reach from where it was remembered", n)


def manipulate(body: Body, skill: str, object_id: str) -> Actions:
    """One manipulation, walking to the object first when it is not in reach."""
    n = 0
    if not body.in_reach(object_id):
        res = yield from go_to(body, object_id)
        n += res.steps
        if not res.ok:
            return SkillResult(False, res.message, n)
    yield {"action": MANIPULATIONS[skill], "object": object_id}
    n += 1
    last = body.last
    if skill == "open" and last["success"] and object_id in body.spatial.instances \
            and body.spatial.instances[object_id].type == "Doorway":
        inst = body.spatial.instances[object_id]
        body.free_space.clear_around(inst.position[0], inst.position[2], 0.6)
    return SkillResult(bool(last["success"]), "done" if last["success"] else last["error"], n)


def explore(body: Body, rounds: int = 3) -> Actions:
    """Look around, then walk to the nearest frontier of unseen floor (up to `rounds` times)."""
    n = 0
    for _ in range(rounds):
        res = yield from look_around(body)
        n += res.steps
        parent = body.free_space.paths(body.free_space.cell(body.pose["x"], body.pose["z"]))
        frontier = body.free_space.frontier(parent)
        if not frontier:
            return SkillResult(True, "nothing left to explore", n)
        target = min(frontier, key=lambda c: len(path_to(parent, c)))
        x, z = body.free_space.pos(target)
        res = yield from go_to_point(body, x, z, 0.3 + 1e-6)
        body.free_space.visited.add(target)
        n += res.steps
    return SkillResult(True, "explored", n)


def go_to_room(body: Body, room: str) -> Actions:
    """Walk to the middle of what is known of a room, exploring when nothing of it is known."""
    def known_in() -> list[Any]:
        return [i for i in body.spatial.instances.values()
                if body.spatial.room(i).lower() == room.lower().replace(" ", "")]

    known = known_in()
    if not known:
        res = yield from explore(body)
        known = known_in()
        if not known:
            return SkillResult(False, f"no {room} found yet", res.steps)
    x = sum(i.position[0] for i in known) / len(known)
    z = sum(i.position[2] for i in known) / len(known)
    res = yield from go_to_point(body, x, z, 1.5)
    if res.ok and body.room().lower() != room.lower().replace(" ", ""):
        return SkillResult(False, f"arrived but in the {body.room() or 'unknown room'}", res.steps)
    return res


SKILLS = ("go_to", "go_to_room", "explore", "look_around", *MANIPULATIONS)


def run_skill(body: Body, skill: str, target: str | None) -> Actions:
    """Dispatch a skill call from the Executor."""
    if skill == "look_around":
        return (yield from look_around(body))
    if skill == "explore":
        return (yield from explore(body))
    if not target:
        return SkillResult(False, f"{skill} needs a target")
    if skill == "go_to":
        return (yield from go_to(body, target))
    if skill == "go_to_room":
        return (yield from go_to_room(body, target))
    if skill in MANIPULATIONS:
        return (yield from manipulate(body, skill, target))
    return SkillResult(False, f"unknown skill {skill!r}; the library has {', '.join(SKILLS)}")
