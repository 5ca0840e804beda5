"""Vigil's learned open-loop routines for DA (issue 34): a grammar of blind walks with a detour, and loops of it,
searched on the training fold for the routine and report step that reach most targets; the pack generator caps
how many of a family's episodes any routine of the grammar reaches, so no choice can score above the cap.

A routine is `(first turn, stride, first leg, second turn, second leg)`: turn by the first angle (degrees, right
positive; 0: no turn), walk `first leg` strides of `stride` grid steps (0.25 m each), then turn by the second angle
and walk `second leg` strides, over and over (a loop: a zigzag, a square or a spiral), until the step budget; the
cut `k` reports success after its k-th action. Walks are played geometrically on the house's navigation grid,
exactly as the household simulator moves the agent (one blocked stride moves nothing and costs its step), so the
whole grammar (about 3,900 routines) plays in well under a second per episode."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from typing import Any

from suite.contract.records import Task
from suite.contract.registry import LearnedPolicy, Reading, ShortcutBaseline

from suite_vigil import goals
from suite_vigil.vocabulary import GRID_STEP

Spec = tuple[int, int, int, int, int]
Cut = tuple[Spec, int]
FIRST_TURNS = tuple(range(-90, 91, 15))
STRIDES = (1, 2)
FIRST_LEGS = (1, 2, 3, 4, 5, 6)
SECOND_TURNS = (0, -90, -60, -30, 30, 60, 90)
SECOND_LEGS = (1, 2, 3, 4)
#: a family's episodes any one cut of the grammar may reach, at most (the generator's cap): 5 of 125 is 4 %
CUT_CAP = 5


def grammar() -> list[Spec]:
    """Every routine of the grammar (a second turn of 0 walks straight on: one second leg stands for all)."""
    out = []
    for first in FIRST_TURNS:
        for stride in STRIDES:
            for leg in FIRST_LEGS:
                for second in SECOND_TURNS:
                    for leg2 in (SECOND_LEGS if second else (1,)):
                        out.append((first, stride, leg, second, leg2))
    return out


def actions(spec: Spec, length: int) -> Iterator[tuple[str, int]]:
    """The routine's first `length` actions: ("turn", degrees) or ("forward", grid steps)."""
    first, stride, leg, second, leg2 = spec
    n = 0
    if first:
        yield "turn", first
        n += 1
    for _ in range(leg):
        if n >= length:
            return
        yield "forward", stride
        n += 1
    while n < length:
        if second:
            yield "turn", second
            n += 1
        for _ in range(leg2 if second else length):
            if n >= length:
                return
            yield "forward", stride
            n += 1


def action_json(step: tuple[str, int]) -> dict[str, Any]:
    """One action as a Vigil reply."""
    kind, value = step
    if kind == "forward":
        return {"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": value}}
    mode = "turn_right" if value > 0 else "turn_left"
    return {"skill_name": "navigate", "arguments": {"mode": mode, "magnitude": abs(value)}}


def reaching_cuts(nav: Any, pose: tuple[float, float, float], near: Callable[[float, float], bool],
                  length: int) -> set[Cut]:
    """The cuts (routine, k) after whose k-th action the agent is near the target, the walk played on `nav` from
    `pose` (x, z, yaw) as the simulator's navigate moves the agent (the first turn and leg played once for every
    routine that shares them)."""
    out: set[Cut] = set()

    def forward(x: float, z: float, yaw: float, stride: int) -> tuple[float, float]:
        rad = math.radians(yaw)
        nx, nz = x + stride * GRID_STEP * math.sin(rad), z + stride * GRID_STEP * math.cos(rad)
        return (round(nx, 4), round(nz, 4)) if nav.path_blocker(x, z, nx, nz) is None else (x, z)

    for first in FIRST_TURNS:
        yaw0 = round((pose[2] + first) % 360, 4)
        k0 = 1 if first else 0
        for stride in STRIDES:
            x, z = pose[0], pose[1]
            prefix = []  # (k, x, z) after each stride of the first leg
            for n in range(1, max(FIRST_LEGS) + 1):
                x, z = forward(x, z, yaw0, stride)
                prefix.append((k0 + n, x, z))
            for leg in FIRST_LEGS:
                shared = [(k, px, pz) for k, px, pz in prefix[:leg] if k <= length]
                hits = [k for k, px, pz in shared if near(px, pz)]
                if not shared:
                    continue
                kx, x1, z1 = shared[-1]
                for second in SECOND_TURNS:
                    for leg2 in (SECOND_LEGS if second else (1,)):
                        spec = (first, stride, leg, second, leg2)
                        out.update((spec, k) for k in hits)
                        x, z, yaw, k = x1, z1, yaw0, kx
                        while k < length:
                            if second:
                                yaw = round((yaw + second) % 360, 4)
                                k += 1
                                if near(x, z):
                                    out.add((spec, k))
                            for _ in range(leg2 if second else length):
                                if k >= length:
                                    break
                                x, z = forward(x, z, yaw, stride)
                                k += 1
                                if near(x, z):
                                    out.add((spec, k))
    return out


def episode_cuts(episode: dict[str, Any], world: Any, nav: Any, measure: str = "centre") -> set[Cut]:
    """The cuts that reach a DA episode's target (within goals.NEAR by `measure`) before its report step."""
    spec = episode["success_spec"]
    target, distance = spec["target"], float(spec.get("distance", goals.NEAR))
    start = episode["agent_init"]
    pose = (float(start["position"]["x"]), float(start["position"]["z"]), float(start["rotation"]))
    return reaching_cuts(nav, pose, lambda x, z: goals.distance_at(world, target, x, z, measure) < distance,
                         int(episode["max_steps"]) - 1)


@cache
def _site(data_dir: str, house_name: str) -> Any:
    from suite_household.controller import Controller

    from suite_vigil.episodes import house
    from suite_vigil.sim import CAMERA, INTERACTION_DISTANCE

    return Controller(house(data_dir, house_name), interactionDistance=INTERACTION_DISTANCE, renderImage=False,
                      **CAMERA)


_CUTS: dict[tuple[str, str], frozenset[Cut]] = {}


def task_cuts(task: Task) -> frozenset[Cut]:
    """The reaching cuts of a DA task (kept for the other folds' fits)."""
    ep = task.data["episode"]
    key = (str(task.data["data_dir"]), ep["episode_id"])
    if key not in _CUTS:
        ctl = _site(str(task.data["data_dir"]), ep["house"])
        ctl.reset()
        _CUTS[key] = frozenset(episode_cuts(ep, ctl.world, ctl.nav))
    return _CUTS[key]


def best_cut(tasks: Sequence[Task]) -> tuple[Cut | None, int]:
    """The cut reaching most of the tasks, and how many (ties: the first in the grammar's order, then the
    earliest report)."""
    counts: Counter[Cut] = Counter()
    for task in tasks:
        counts.update(task_cuts(task))
    if not counts:
        return None, 0
    order = {spec: i for i, spec in enumerate(grammar())}
    cut = max(counts, key=lambda c: (counts[c], -order[c[0]], -c[1]))
    return cut, counts[cut]


def fit_da(train: Sequence[Task]) -> LearnedPolicy:
    """The DA routine and report step that reach most training targets (reporting at once when none does)."""
    cut, _ = best_cut([t for t in train if t.category == "DA"])

    def policy(reading: Reading) -> str:
        step = int(reading.step or 0)
        if cut is None or step >= cut[1]:
            return json.dumps({"skill_name": "report", "arguments": {"status": "success", "summary": "done"}})
        return json.dumps(action_json(list(actions(cut[0], cut[1]))[step]))

    policy.cut = cut  # type: ignore[attr-defined]
    return policy


def declared() -> ShortcutBaseline:
    """The learned DA routine as `suite audit` runs it: cross-fitted over DA's episodes, reading the step index."""
    return ShortcutBaseline(
        "learned-routine-DA", "never looks: the open-loop walk (a turn, a leg, then a turn and a leg over and over) "
        "and report step that reached most DA targets of the other folds (suite_vigil.routines)",
        learner=fit_da, reads=("step",), config={"vigil.families": ["DA"]}, ceiling={"DA": 10.0},
        chance={"DA": 0.0}, metric="B", blind=True)
