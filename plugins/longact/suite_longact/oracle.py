"""The privileged oracle: solves an episode from the hidden checklist with the 16 raw actions.

It walks a 0.25 m lattice through the start position in 0.05 m moves (strafing, so a leg costs no turns),
turns in 30 degree steps, tilts the camera in 30 degree steps, and interacts by instance id from a pose where
the target is visible and within reach. Closed doors on the way are opened. Everything it does goes through
`env.step`, so its step counts are the benchmark's own.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator
from typing import Any

from suite.contract.records import Action, Observation, StepRecord, Task
from suite.engine.agents import Agent as SuiteAgent
from suite.engine.agents import AgentTurn
from suite_household.catalog import TYPES, can_hold
from suite_household.placement import find_spot
from suite_household.visibility import horizontal_distance, visible_objects
from suite_household.world import STANDING_CAMERA_Y, Agent, World

from suite_longact.checklist import Item, holds
from suite_longact.env import LongActEnv
from suite_longact.lattice import heading, path_to
from suite_longact.vocabulary import MOVES, STOP

LATTICE = 0.25
REACH_MARGIN = 0.25
CANDIDATES = 120
HEAT = ("Microwave",)


class OracleFailed(Exception):
    """The oracle could not finish a goal (the pack generator drops such episodes)."""


Step = dict[str, Any]


class Oracle:
    """Yields the actions of a solution; reads the env's hidden state between actions."""

    def __init__(self, env: LongActEnv) -> None:
        self.env = env
        self.nav = env.sim.ctl.nav
        self.settings = env.settings
        self.reach = float(self.settings["interaction_distance"]) - REACH_MARGIN
        a = self.world.agent
        self.origin = (a.x, a.z)
        self._adj: dict[tuple[int, int], list[tuple[int, int]]] = {}
        self._doors = set(self.nav.doors)

    @property
    def world(self) -> World:
        """The live world."""
        return self.env.world

    # -- lattice --------------------------------------------------------------------------------------------
    def _pos(self, cell: tuple[int, int]) -> tuple[float, float]:
        return (round(self.origin[0] + cell[0] * LATTICE, 4), round(self.origin[1] + cell[1] * LATTICE, 4))

    def _cell(self) -> tuple[int, int]:
        a = self.world.agent
        return (round((a.x - self.origin[0]) / LATTICE), round((a.z - self.origin[1]) / LATTICE))

    def _free(self, x: float, z: float) -> bool:
        b = self.nav.blocker(x, z)
        return b is None or b in self._doors

    def _edge_free(self, p: tuple[float, float], q: tuple[float, float]) -> bool:
        n = 10
        return all(self._free(p[0] + (q[0] - p[0]) * k / n, p[1] + (q[1] - p[1]) * k / n) for k in range(1, n + 1))

    def _neighbours(self, cell: tuple[int, int]) -> list[tuple[int, int]]:
        if cell not in self._adj:
            p = self._pos(cell)
            out = []
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nxt = (cell[0] + di, cell[1] + dj)
                if self._edge_free(p, self._pos(nxt)):
                    out.append(nxt)
            self._adj[cell] = out
        return self._adj[cell]

    def _bfs(self, start: tuple[int, int]) -> dict[tuple[int, int], tuple[int, int] | None]:
        parent: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            for nxt in self._neighbours(cell):
                if nxt not in parent:
                    parent[nxt] = cell
                    queue.append(nxt)
        return parent

    # -- poses ------------------------------------------------------------------------------------------------
    def _poses(self, oid: str) -> Iterator[tuple[list[tuple[int, int]], float, float]]:
        """(path, yaw, horizon) of poses that see `oid` within reach, nearest by walking first."""
        start = self._cell()
        parent = self._bfs(start)
        obj = self.world.objects[oid]
        x0, _, z0, x1, _, z1 = obj.box
        cx, cy, cz = obj.center
        cands = []
        room = obj.room if obj.type != "Doorway" else None
        for cell in parent:
            x, z = self._pos(cell)
            if room and self.world.room_at(x, z) != room:  # never through a wall
                continue
            d = math.hypot(max(x0 - x, 0, x - x1), max(z0 - z, 0, z - z1))
            if 0.15 <= d <= self.reach:
                cands.append((len(path_to(parent, cell)), d, cell))
        cands.sort()
        snap = self.world.snapshot()
        tried = 0
        for _, _, cell in cands:
            if tried >= CANDIDATES:
                break
            x, z = self._pos(cell)
            yaw = round(math.degrees(math.atan2(cx - x, cz - z)) / 30) * 30 % 360
            pitch = math.degrees(math.atan2(STANDING_CAMERA_Y - cy, math.hypot(cx - x, cz - z)))
            base = max(-30, min(60, round(pitch / 30) * 30))
            for horizon in (base, base + 30, base - 30):
                if not -30 <= horizon <= 60:
                    continue
                tried += 1
                snap.set_agent(Agent(x, z, float(yaw), float(horizon), True))
                if horizontal_distance(snap, oid) > self.settings["interaction_distance"]:
                    continue
                seen = visible_objects(snap, self.settings["width"], self.settings["height"],
                                       self.settings["field_of_view"], self.settings["visibility_distance"],
                                       only={oid})
                if seen.get(oid):
                    yield path_to(parent, cell), float(yaw), float(horizon)
                    break


    # -- raw actions --------------------------------------------------------------------------------------------
    def _turn_to(self, yaw: float) -> Iterator[Step]:
        while True:
            diff = (yaw - self.world.agent.yaw) % 360
            if diff < 1e-6 or diff > 360 - 1e-6:
                return
            yield {"action": "RotateRight" if diff <= 180 else "RotateLeft"}

    def _look_to(self, horizon: float) -> Iterator[Step]:
        while abs(self.world.agent.horizon - horizon) > 1e-6:
            yield {"action": "LookDown" if horizon > self.world.agent.horizon else "LookUp"}

    def _walk(self, path: list[tuple[int, int]]) -> Iterator[Step]:
        moves = {v: k for k, v in MOVES.items()}
        n = round(LATTICE / self.settings["move_m"])
        for a, b in zip(path, path[1:], strict=False):
            yaw = heading(a, b)
            if self.world.agent.yaw % 90:
                yield from self._turn_to(round(self.world.agent.yaw / 90) * 90 % 360)
            p, q = self._pos(a), self._pos(b)
            door = self.nav.path_blocker(p[0], p[1], q[0], q[1])
            if door in self._doors:
                yield from self._open_door(door, yaw)
            rel = (yaw - self.world.agent.yaw) % 360
            for _ in range(n):
                yield {"action": moves[round(rel) % 360]}
                self._check()

    def _open_door(self, door: str, heading: float) -> Iterator[Step]:
        yield from self._turn_to(heading)
        yield from self._look_to(0)
        yield {"action": "Open", "object": door}
        self._check()

    def _check(self) -> None:
        last = self.env.last
        if not last["success"]:
            raise OracleFailed(f"{last['action']} failed: {last['error']}")

    def act_on(self, oid: str, action: str) -> Iterator[Step]:
        """Go to a pose that sees `oid` and do `action` on it (the next pose when the action fails)."""
        for path, yaw, horizon in self._poses(oid):
            yield from self._walk(path)
            yield from self._turn_to(yaw)
            yield from self._look_to(horizon)
            yield {"action": action, "object": oid}
            if self.env.last["success"]:
                return
        raise OracleFailed(f"no pose from which {action} {oid} succeeds")

    # -- goals ------------------------------------------------------------------------------------------------
    def pick(self, oid: str) -> Iterator[Step]:
        """Pick an object up, opening (and then closing) the container it is shut in."""
        closed = self._closed_container(oid)
        if closed:
            yield from self.act_on(closed, "Open")
        yield from self.act_on(oid, "Pick")
        if closed:
            yield from self.act_on(closed, "Close")

    def _closed_container(self, oid: str) -> str | None:
        for aid in self.world.ancestors(oid):
            a = self.world.objects[aid]
            if TYPES[a.type].openable and not a.is_open:
                return aid
        return None

    def place(self, receptacles: tuple[str, ...] | list[str], keep_open: bool = False) -> Iterator[Step]:
        """Put the held object into the nearest of the receptacles with room for it."""
        if self.world.held is None:  # every plan picks before it places: an empty hand here is the oracle's bug
            raise RuntimeError(f"the oracle places into {list(receptacles)} with nothing in hand")
        held = self.world.objects[self.world.held]
        options = []
        for rid in receptacles:
            rec = self.world.objects[rid]
            target = self._basin(rec)
            if can_hold(target.type, held.type) and find_spot(self.world, target, held.size, ignore=held.id):
                a = self.world.agent
                options.append((math.hypot(rec.center[0] - a.x, rec.center[2] - a.z), rid))
        if not options:
            raise OracleFailed(f"no room for {held.id} in {list(receptacles)}")
        rid = min(options)[1]
        rec = self.world.objects[rid]
        opened = TYPES[rec.type].openable and not rec.is_open
        if opened:
            yield from self.act_on(rid, "Open")
        yield from self.act_on(rid, "Place")
        if opened and not keep_open:
            yield from self.act_on(rid, "Close")

    def _basin(self, rec: Any) -> Any:
        if rec.type in ("Sink", "Bathtub"):
            for c in self.world.children(rec.id):
                if self.world.objects[c].type.endswith("Basin"):
                    return self.world.objects[c]
        return rec

    def _first(self, otype: str, room_type: str | None = None) -> str:
        rooms = {r.id: r.type for r in self.world.scene.rooms}
        a = self.world.agent
        found = sorted((math.hypot(o.center[0] - a.x, o.center[2] - a.z), o.id) for o in self.world.objects.values()
                       if o.type == otype and (room_type is None or rooms.get(o.room) == room_type))
        if not found:
            raise OracleFailed(f"no {otype}")
        return found[0][1]

    def set_state(self, oid: str, action: str) -> Iterator[Step]:
        """Open, close or switch an object (nothing when it is already so)."""
        obj = self.world.objects[oid]
        want = action in ("Open", "ToggleOn")
        have = obj.is_open if action in ("Open", "Close") else obj.is_toggled
        if want != have:
            yield from self.act_on(oid, action)

    def slice(self, oid: str) -> Iterator[Step]:
        """Fetch a knife, slice the object where it rests, and put the knife back where it was (moving what no
        goal names is a side effect)."""
        knife = self._first("Knife")
        home = self.world.objects[knife].parent
        yield from self.pick(knife)
        yield from self.act_on(oid, "Slice")
        yield from self.place([home] if home else [self._first("CounterTop")])

    def cook(self, oid: str) -> Iterator[Step]:
        """Microwave the object: in, door shut, on, off; it stays inside unless a position goal moves it."""
        mw = self._first("Microwave")
        yield from self.pick(oid)
        yield from self.place([mw])
        yield from self.act_on(mw, "ToggleOn")
        yield from self.act_on(mw, "ToggleOff")

    def fill(self, oid: str, liquid: str) -> Iterator[Step]:
        """Coffee from the coffee machine, water from a sink under its faucet."""
        yield from self.pick(oid)
        if liquid == "coffee":
            machine = self._first("CoffeeMachine")
            yield from self.place([machine])
            yield from self.act_on(machine, "ToggleOn")
            yield from self.act_on(machine, "ToggleOff")
        else:
            sink = self._first("Sink", "Kitchen")
            yield from self.place([sink])
            faucet = min((o for o in self.world.objects.values() if o.type == "Faucet"),
                         key=lambda o: math.dist(o.center, self.world.objects[sink].center)).id
            yield from self.act_on(faucet, "ToggleOn")
            yield from self.act_on(faucet, "ToggleOff")

    def solve(self, items: list[Item]) -> Iterator[Step]:
        """Every unmet item: movable objects first (state, then position), fixtures next, doors last."""
        groups: dict[str, list[Item]] = {}
        for it in items:
            groups.setdefault(it.object_id, []).append(it)
        movers = [g for g in groups.values() if TYPES[g[0].object_type].pickupable]
        fixtures = [g for g in groups.values() if not TYPES[g[0].object_type].pickupable
                    and g[0].object_type != "Doorway"]
        doors = [g for g in groups.values() if g[0].object_type == "Doorway"]
        for group in movers:
            yield from self._mover(group)
        for group in fixtures + doors:
            for it in group:
                if not holds(self.world, it):
                    action = {"isOpen": ("Open", "Close"), "isToggled": ("ToggleOn", "ToggleOff")}[it.attr]
                    yield from self.set_state(it.object_id, action[0] if it.target else action[1])
        yield {"action": STOP}

    def _mover(self, group: list[Item]) -> Iterator[Step]:
        by = {it.attr: it for it in group}
        oid = group[0].object_id
        w = self.world
        if "isSliced" in by and not holds(w, by["isSliced"]):
            yield from self.slice(oid)
        if "isCooked" in by and not holds(w, by["isCooked"]):
            yield from self.cook(oid)
        if "isFilledWithLiquid" in by and not holds(w, by["isFilledWithLiquid"]):
            yield from self.fill(oid, str(by["isFilledWithLiquid"].target))
            if "position" not in by:
                yield from self.place([w.objects[oid].parent or self._first("CounterTop")])
        for attr in ("isOpen", "isToggled"):
            if attr in by and not holds(w, by[attr]):
                action = {"isOpen": ("Open", "Close"), "isToggled": ("ToggleOn", "ToggleOff")}[attr]
                yield from self.set_state(oid, action[0] if by[attr].target else action[1])
        if "position" in by and not holds(w, by["position"]):
            if w.held != oid:
                yield from self.pick(oid)
            yield from self.place(by["position"].target)
        elif w.held == oid:
            yield from self.place([self._first("CounterTop")])


class OracleAgent(SuiteAgent):
    """The oracle as an agent: one plan per episode; Stop when done, or with a note when it is stuck."""

    def __init__(self) -> None:
        self.plan: Iterator[Step] = iter(())

    async def begin(self, task: Task, env: Any) -> None:
        """Plan from the env's hidden checklist; never render."""
        env.skip_observations()
        self.plan = Oracle(env).solve(env.checklist.items)

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """The plan's next raw action."""
        try:
            step = next(self.plan)
        except StopIteration:
            step = {"action": STOP}
        except OracleFailed as exc:
            self.plan = iter(())
            return AgentTurn(Action({"action": STOP}, STOP), note=f"oracle stuck: {exc}")
        return AgentTurn(Action(step, " ".join(str(v) for v in step.values())))


def oracle_agent(ctx: Any) -> OracleAgent:
    """The registered oracle agent."""
    return OracleAgent()
