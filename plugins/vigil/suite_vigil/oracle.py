"""The privileged oracle: plans on the hidden world state, acts through the same four skills as any agent.

It walks the 0.25 m lattice with the fewest navigate actions (a breadth-first search over cell and heading,
one action per turn and one per straight run of up to 20 steps), turns and tilts toward the object, clicks
an interior pixel of the object's instance in the instance buffer of the frame it is looking at, and
reports the right status. Embedded backend only (it reads the live world).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from suite.contract.env import Env
from suite.contract.records import Action, Observation, StepRecord, Task
from suite.engine.agents import Agent, AgentTurn
from suite_household.controller import Controller
from suite_household.render import Renderer
from suite_household.visibility import visible_objects
from suite_household.world import Agent as Pose

from suite_vigil import goals
from suite_vigil.env import VigilEnv
from suite_vigil.parsing import MAX_MOVE_STEPS, VigilAction
from suite_vigil.vocabulary import GRID_STEP

REACH = 1.35        # stand this close (box distance) to act: a margin under the 1.5 m limit
NEAR_GOAL = 1.49    # DA: stop at the first cell that counts (the goal holds under 1.5 m), so no step lags it
MIN_PIXELS = 40     # an instance smaller than this in the frame is not clicked
PROBE_SIZE = (160, 120)  # candidate poses are checked on a quarter-size instance buffer
MARGINS = (2, 8)    # search this many actions beyond the nearest candidate (the wider one when all are occluded)
PROBES = 16         # candidate poses rendered before giving up on a subgoal
HEADINGS = (0.0, 90.0, 180.0, 270.0)
_DIRS = {0.0: (0, 1), 90.0: (1, 0), 180.0: (0, -1), 270.0: (-1, 0)}
State = tuple[tuple[int, int], float]  # a search state: lattice cell and heading
Move = tuple[str, float, float] | tuple[str, int]  # ("turn", from, to) or ("forward", steps)


class OracleGaveUp(Exception):
    """No pose or pixel serves the next subgoal."""


def _act(skill: str, **arguments: Any) -> VigilAction:
    return VigilAction(skill, arguments)


def _turn(current: float, target: float) -> VigilAction | None:
    delta = round((target - current) % 360.0, 4)
    if delta < 0.05 or delta > 359.95:
        return None
    if delta <= 180.0:
        return _act("navigate", mode="turn_right", magnitude=delta)
    return _act("navigate", mode="turn_left", magnitude=round(360.0 - delta, 4))


def _look(current: float, target: float) -> VigilAction | None:
    delta = round(target - current, 4)
    if abs(delta) < 0.05:
        return None
    return _act("look", direction="down" if delta > 0 else "up", magnitude=abs(delta))


_LATTICES: dict[str, Lattice] = {}


def lattice_of(ctl: Controller) -> Lattice:
    """The lattice of a house through its own start position (computed once per house and process)."""
    key = ctl.scene.name
    if key not in _LATTICES:
        _LATTICES[key] = Lattice(ctl)
    return _LATTICES[key]


class Lattice:
    """The reachable 0.25 m lattice through the house's start and which neighbouring cells are joined.

    Edges are tested as `NavGrid.path_blocker` tests a move (samples every 2.5 cm), vectorised over the lattice,
    with every door open: a closed door (CR's blocked path) is a subgoal of the plan, opened before walking on."""

    def __init__(self, ctl: Controller) -> None:
        nav = ctl.nav
        a = ctl.scene.agent
        self.origin = (a.x, a.z)
        x0, z0, x1, z1 = ctl.scene.bounds
        i0, i1 = math.floor((x0 - a.x) / GRID_STEP), math.ceil((x1 - a.x) / GRID_STEP)
        j0, j1 = math.floor((z0 - a.z) / GRID_STEP), math.ceil((z1 - a.z) / GRID_STEP)
        gi, gj = np.meshgrid(np.arange(i0, i1 + 1), np.arange(j0, j1 + 1), indexing="ij")
        ii, jj = gi.ravel(), gj.ravel()
        xs, zs = np.round(a.x + ii * GRID_STEP, 4), np.round(a.z + jj * GRID_STEP, 4)
        door_open = np.ones(len(nav.doors) + 1, dtype=bool)
        samples = int(math.ceil(GRID_STEP / 0.025))
        free_dir = {}
        for d, (dx, dz) in _DIRS.items():
            nx, nz = np.round(xs + dx * GRID_STEP, 4), np.round(zs + dz * GRID_STEP, 4)
            ok = np.ones(len(xs), dtype=bool)
            for k in range(1, samples + 1):
                t = k / samples
                ci = np.round((xs + (nx - xs) * t - nav.x0) / 0.05).astype(int)
                cj = np.round((zs + (nz - zs) * t - nav.z0) / 0.05).astype(int)
                inside = (ci >= 0) & (ci < nav.nx) & (cj >= 0) & (cj < nav.nz)
                ci, cj = np.clip(ci, 0, nav.nx - 1), np.clip(cj, 0, nav.nz - 1)
                door = nav.door_cell[ci, cj]
                ok &= inside & (nav.owner[ci, cj] == 0) & door_open[door]
            free_dir[d] = ok
        start_free = nav.blocker(a.x, a.z) is None
        edges: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for n, (i, j) in enumerate(zip(ii.tolist(), jj.tolist(), strict=True)):
            out = {_DIRS[d] for d in _DIRS if free_dir[d][n]}
            if out:
                edges[(i, j)] = out
        seen = {(0, 0)} if start_free else set()
        frontier = list(seen)
        while frontier:
            nxt = []
            for c in frontier:
                for dx, dz in edges.get(c, ()):
                    nb = (c[0] + dx, c[1] + dz)
                    if nb not in seen:
                        seen.add(nb)
                        nxt.append(nb)
            frontier = nxt
        self.index = {k: (round(a.x + k[0] * GRID_STEP, 4), round(a.z + k[1] * GRID_STEP, 4)) for k in sorted(seen)}
        self.free = {k: {e for e in edges.get(k, ()) if (k[0] + e[0], k[1] + e[1]) in seen} for k in seen}

    def key(self, x: float, z: float) -> tuple[int, int]:
        """Lattice index of a position."""
        return (round((x - self.origin[0]) / GRID_STEP), round((z - self.origin[1]) / GRID_STEP))

    def search(self, start: tuple[int, int], yaw: float, goal: Any, margin: int) -> list[tuple[int, tuple, list]]:
        """Breadth-first over (cell, heading): every goal cell reached within `margin` actions of the first one
        found, as (actions, cell, plan); a plan is a list of turns to headings and straight runs."""
        first: State = (start, round(yaw % 360.0, 4))
        parent: dict[State, tuple[State, Move] | None] = {first: None}
        layer, depth, limit = [first], 0, None
        found: dict[tuple[int, int], tuple[int, State]] = {}
        while layer and (limit is None or depth <= limit):
            for state in layer:
                if state[0] not in found and goal(state[0]):
                    found[state[0]] = (depth, state)
                    limit = depth + margin if limit is None else limit
            if limit is not None and depth == limit:
                break
            nxt: list[State] = []
            for state in layer:
                cell, heading = state
                moves: list[tuple[State, Move]] = [((cell, h), ("turn", heading, h))
                                                   for h in HEADINGS if h != heading]
                if heading in _DIRS:
                    dx, dz = _DIRS[heading]
                    ahead = cell
                    for k in range(1, MAX_MOVE_STEPS + 1):
                        if (dx, dz) not in self.free.get(ahead, ()):
                            break
                        ahead = (ahead[0] + dx, ahead[1] + dz)
                        moves.append(((ahead, heading), ("forward", k)))
                for nstate, move in moves:
                    if nstate not in parent:
                        parent[nstate] = (state, move)
                        nxt.append(nstate)
            layer, depth = nxt, depth + 1
        out = []
        for cell, (d, state) in found.items():
            plan: list[Move] = []
            cur = state
            while (link := parent[cur]) is not None:
                cur, move = link
                plan.append(move)
            out.append((d, cell, plan[::-1]))
        return out


@dataclass
class Subgoal:
    """One thing to achieve: interact (intent on object), near (stand close), see (get in view), drop (what the hand
    holds, turned away from the way on), report."""

    kind: str
    target: str | None = None
    intent: str | None = None


def _target_of(goal: Subgoal) -> str:
    """The subgoal's object: plan_subgoals gives one to every kind but `report`."""
    if goal.target is None:
        raise ValueError(f"a {goal.kind!r} subgoal without a target object")
    return goal.target


def plan_subgoals(episode: dict[str, Any]) -> list[Subgoal]:
    """The subgoals that solve an episode, from its success spec (and its CR constraint / SM pre-conditions)."""
    spec, fam = episode["success_spec"], episode["family"]
    target, kind = spec["target"], spec["type"]
    out: list[Subgoal] = []
    c = spec.get("constraint")
    if c and c["kind"] == "closed_door":
        out.append(Subgoal("interact", c["object"], "open_access"))
    elif c and c["kind"] == "obstacle":  # pick the obstacle up, turn round and drop it out of the way
        out += [Subgoal("interact", c["object"], "pick"), Subgoal("drop", c["object"])]
    elif c:
        intent = {"isOpen": ("open_access", "close_access"), "isToggled": ("activate", "deactivate")}[c["property"]]
        out.append(Subgoal("interact", c["target"], intent[0] if c["value"] else intent[1]))
    for pre in spec.get("preconditions", ()):
        out.append(Subgoal("interact", pre["target"], "open_access" if pre["value"] else "close_access"))
    if kind == "target_grounded":
        out.append(Subgoal("interact", target, "ground"))
    elif kind == "agent_near_target":
        out.append(Subgoal("near", target))
    elif kind == "object_state" and spec["property"] == "visible":
        out.append(Subgoal("see", target))
    elif kind == "object_state":
        on = bool(spec["value"])
        intent = {"isOpen": ("open_access", "close_access"), "isToggled": ("activate", "deactivate")}[spec["property"]]
        out.append(Subgoal("interact", target, intent[0] if on else intent[1]))
    elif kind == "object_held":
        out.append(Subgoal("interact", target, "pick"))
    elif kind == "object_at_receptacle":
        out += [Subgoal("interact", target, "pick"), Subgoal("interact", spec["receptacle"], "place")]
    out.append(Subgoal("report"))
    del fam
    return out


class OraclePlanner:
    """Turns subgoals into skill actions on the live world of one episode."""

    def __init__(self, env: VigilEnv) -> None:
        self.env = env
        self.ctl: Controller = env.sim.ctl
        self.lattice = lattice_of(self.ctl)
        self.subgoals = plan_subgoals(env.episode)
        self.queue: list[VigilAction] = []
        self.small = Renderer(PROBE_SIZE[0], PROBE_SIZE[1], self.ctl.fov)

    @property
    def world(self) -> Any:
        """The live world."""
        return self.ctl.world

    def next_action(self) -> VigilAction:
        """The next action (raises OracleGaveUp when the next subgoal cannot be served)."""
        while not self.queue:
            if not self.subgoals:
                raise OracleGaveUp("nothing left to do")
            self._expand(self.subgoals[0])
        return self.queue.pop(0)

    def _expand(self, goal: Subgoal) -> None:
        if goal.kind == "report":
            self.queue.append(_act("report", status=self._status(), summary="verified from the current view"))
            self.subgoals.pop(0)
        elif goal.kind == "near":
            target, measure = _target_of(goal), self.env.tracker.near
            if goals.near_distance(self.world, target, measure) < goals.NEAR:
                self.subgoals.pop(0)
                return
            self.queue += self._walk(lambda x, z: goals.distance_at(self.world, target, x, z, measure) < NEAR_GOAL)
        elif goal.kind == "drop":
            a = self.world.agent
            turn = _turn(a.yaw, (a.yaw + 180.0) % 360.0)
            self.queue += ([turn] if turn is not None else []) + [_act("interact_pixel", intent="drop")]
            self.subgoals.pop(0)
        elif goal.kind == "see":
            if self.env.target_visible():
                self.subgoals.pop(0)
                return
            self.queue += self._pose_for(_target_of(goal), need_reach=False)
        else:
            self._interact(goal)

    def _status(self) -> str:
        spec = self.env.tracker.spec
        if spec["type"] == "report_status":
            return goals.state_label(self.world, spec)
        return "success"

    def _interact(self, goal: Subgoal) -> None:
        target = _target_of(goal)
        pixel = self._pixel(target) if self._in_reach(target) else None
        if pixel is None:
            self.queue += self._pose_for(target, need_reach=True)
            if not self.queue:
                raise OracleGaveUp(f"no pose to reach {target}")
            return
        self.queue.append(_act("interact_pixel", intent=goal.intent, x=pixel[0], y=pixel[1]))
        self.subgoals.pop(0)

    def _in_reach(self, oid: str) -> bool:
        return goals.box_distance(self.world, oid) <= REACH

    def _box_distance_at(self, oid: str, x: float, z: float) -> float:
        return goals.distance_at(self.world, oid, x, z, "box")

    def _walk(self, ok: Any) -> list[VigilAction]:
        a = self.world.agent
        found = self.lattice.search(self.lattice.key(a.x, a.z), a.yaw, lambda k: ok(*self.lattice.index[k]), 0)
        if not found:
            raise OracleGaveUp("no reachable cell is close enough")
        return self._actions(min(found)[2], a.yaw)

    def _actions(self, plan: list, yaw: float) -> list[VigilAction]:
        out = []
        for step in plan:
            if step[0] == "turn":
                t = _turn(step[1], step[2])
                if t is not None:
                    out.append(t)
            else:
                out.append(_act("navigate", mode="forward", magnitude=step[1]))
        return out

    def _pose_for(self, oid: str, need_reach: bool) -> list[VigilAction]:
        """Walk, turn and tilt to a pose from which `oid` is visible (and clickable within reach)."""
        world = self.world
        a = world.agent
        cx, cy, cz = world.objects[oid].center
        limit = REACH if need_reach else 5.5
        for margin in MARGINS:
            found = self.lattice.search(self.lattice.key(a.x, a.z), a.yaw,
                                        lambda k: self._box_distance_at(oid, *self.lattice.index[k]) <= limit, margin)
            acts = self._probe_options(oid, found, need_reach)
            if acts is not None:
                return acts
        raise OracleGaveUp(f"no pose sees {oid}")

    def _probe_options(self, oid: str, found: list, need_reach: bool) -> list[VigilAction] | None:
        a = self.world.agent
        cx, cy, cz = self.world.objects[oid].center
        options = []
        for cost, k, plan in found:
            x, z = self.lattice.index[k]
            heading = self._heading(plan, a.yaw)
            yaw = round(math.degrees(math.atan2(cx - x, cz - z)) % 360.0, 1)
            pitch = round(max(-30.0, min(60.0, math.degrees(math.atan2(a.camera[1] - cy, math.hypot(cx - x, cz - z))))),
                          1)
            extra = (_turn(heading, yaw) is not None) + (_look(a.horizon, pitch) is not None)
            options.append((cost + extra, round(self._box_distance_at(oid, x, z), 3), k, yaw, pitch, heading, plan))
        options.sort(key=lambda o: o[:3])
        for _, _, k, yaw, pitch, heading, plan in options[:PROBES]:
            x, z = self.lattice.index[k]
            if self._probe(oid, Pose(x, z, yaw, pitch, a.standing), need_pixels=need_reach):
                acts = self._actions(plan, a.yaw)
                return acts + [t for t in (_turn(heading, yaw), _look(a.horizon, pitch)) if t is not None]
        return None

    def _heading(self, plan: list, yaw: float) -> float:
        heading = yaw
        for step in plan:
            if step[0] == "turn":
                heading = step[2]
        return heading

    def _probe(self, oid: str, pose: Pose, need_pixels: bool) -> bool:
        world = self.world
        start = world.agent
        world.set_agent(pose)
        try:
            c = self.ctl
            if not visible_objects(world, c.width, c.height, c.fov, c.visibility_distance, only={oid})[oid]:
                return False
            return not need_pixels or self._pixel(oid, self.small) is not None
        finally:
            world.set_agent(start)

    def _pixel(self, oid: str, renderer: Renderer | None = None) -> tuple[int, int] | None:
        """An interior pixel of the object's instance in the current view (None when too little is seen)."""
        renderer = renderer or self.ctl.renderer
        frame = renderer.render(self.world, shade_colors=False)
        if oid not in frame.ids:
            return None
        mask = frame.owner == frame.ids.index(oid)
        scale = (renderer.width * renderer.height) / (self.ctl.width * self.ctl.height)
        if int(mask.sum()) < MIN_PIXELS * scale:
            return None
        inner = mask.copy()
        for _ in range(3):
            shrunk = inner.copy()
            shrunk[1:, :] &= inner[:-1, :]
            shrunk[:-1, :] &= inner[1:, :]
            shrunk[:, 1:] &= inner[:, :-1]
            shrunk[:, :-1] &= inner[:, 1:]
            if not shrunk.any():
                break
            inner = shrunk
        ys, xs = np.nonzero(inner)
        i = int(np.argmin((ys - ys.mean()) ** 2 + (xs - xs.mean()) ** 2))
        return int(xs[i]), int(ys[i])


class OracleAgent(Agent):
    """The oracle as an agent of the shared loop; it explains in the trace why it gave up, if it does."""

    def __init__(self, ctx: Any = None) -> None:
        self.planner: OraclePlanner | None = None

    async def begin(self, task: Task, env: Env) -> None:
        """Plan over this episode's live world (frames are not encoded: the oracle never looks)."""
        if not isinstance(env, VigilEnv):  # vigil's make_env always returns one: the oracle reads its live world
            raise TypeError(f"the Vigil oracle needs a VigilEnv, got {type(env).__name__}")
        env.skip_images()
        env.sim.render = False
        self.planner = OraclePlanner(env)

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """The planner's next action; a report of `fail` when it gives up."""
        if self.planner is None:
            raise RuntimeError("the oracle acts before begin() planned the episode")
        try:
            value = self.planner.next_action()
        except OracleGaveUp as exc:
            return AgentTurn(Action(value=_act("report", status="fail", summary="oracle gave up")), note=str(exc))
        return AgentTurn(Action(value=value))
