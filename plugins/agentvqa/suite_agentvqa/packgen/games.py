"""Game style questions, the household walk as the game: which move was made, when a point was scored and which move
earns the most reward (twins, see draft.Twins), and what the view will show after some moves (single questions)."""

from __future__ import annotations

import math
import random

import numpy as np

from suite_agentvqa.packgen.draft import Draft, Maker, Twins, pick_wrong, twins_of
from suite_agentvqa.packgen.events import pan_with_event
from suite_agentvqa.packgen.stage import Shot, Stage, readable

#: A move's words -> (controller action, its arguments).
MOVES: dict[str, tuple[str, dict[str, float]]] = {
    "move forward": ("MoveAhead", {"moveMagnitude": 0.25}),
    "move back": ("MoveBack", {"moveMagnitude": 0.25}),
    "turn left 30°": ("RotateLeft", {"degrees": 30}),
    "turn right 30°": ("RotateRight", {"degrees": 30}),
    "look up 30°": ("LookUp", {"degrees": 30}),
    "look down 30°": ("LookDown", {"degrees": 30}),
}
PLAN_STEPS: dict[str, tuple[str, dict[str, float]]] = {
    "turn right 60°": ("RotateRight", {"degrees": 60}), "turn left 60°": ("RotateLeft", {"degrees": 60}),
    "turn right 30°": ("RotateRight", {"degrees": 30}), "turn left 30°": ("RotateLeft", {"degrees": 30}),
    "look up 30°": ("LookUp", {"degrees": 30}), "move forward 0.5 m": ("MoveAhead", {"moveMagnitude": 0.5}),
}
REWARD_MOVES = {"move forward 0.5 m": "MoveAhead", "move back 0.5 m": "MoveBack", "step left 0.5 m": "MoveLeft",
                "step right 0.5 m": "MoveRight"}


def _differs(a: Shot, b: Shot) -> bool:
    return bool(np.abs(a.rgb.astype(np.int16) - b.rgb.astype(np.int16)).mean() > 1.0)


def action_prediction_twins() -> Twins:
    """Atari style twins (issue 34): one first frame, four second frames after four different moves (each frame
    unlike the others); the options are the four moves."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed)
        start = stage.pose(rng)
        pose = stage.pose_now()
        outcomes: dict[str, Shot] = {}
        for name, (action, args) in MOVES.items():
            after = stage.step(action, render=True, **args)
            if stage.ok and _differs(start, after) and all(_differs(after, seen) for seen in outcomes.values()):
                outcomes[name] = after
            stage.teleport(*pose, render=False)
        if len(outcomes) < 4:
            return None
        moves = rng.sample(sorted(outcomes), 4)
        return twins_of(moves, [[start.rgb, outcomes[m].rgb] for m in moves], "action_prediction",
                        "Which move did the player make between Frame 1 and Frame 2?", media_kind="frames")

    return Twins(make)


def reward_detection_twins() -> Twins:
    """Atari style twins (issue 34): a point is scored when something is picked up; five frames of a pan over an
    object picked up just before frame 2, 3, 4 or 5 (Frame 1 cannot show a point just scored); the options are
    frames 2-5."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        made = pan_with_event(Stage(rng, seed), rng, lead=1, verbs=("pick up",))
        if made is None:
            return None
        return twins_of([f"Frame {n}" for n in range(2, 6)], made[2], "reward_detection", "In this game the player "
                        "scores a point when it picks something up. In which frame has the point just been scored?",
                        media_kind="frames")

    return Twins(make)


def world_modeling() -> Maker:
    """GameQA style: after a few moves, which of four objects now in view will still be in view? The answer is
    clearly visible after the moves; no pixel of any object of the other three types is."""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        start = stage.pose(rng)
        plan = [rng.choice(sorted(PLAN_STEPS)) for _ in range(rng.randint(1, 2))]
        end: Shot | None = None
        for k, step in enumerate(plan, 1):
            action, args = PLAN_STEPS[step]
            end = stage.step(action, render=k == len(plan), **args)
            if not stage.ok:
                return None
        if end is None:
            raise RuntimeError("the last move of the plan was not rendered")
        kept = [i for i in start.clear() if i in end.clear()]
        if not kept:
            return None
        correct = readable(start.type_of(rng.choice(kept)))
        in_end = {end.type_of(i) for i in end.masks if i in end.objects}
        wrong = pick_wrong([readable(start.type_of(i)) for i in start.clear() if start.type_of(i) not in in_end],
                           correct, rng)
        if wrong is None:
            return None
        return Draft("world_modeling", f"The player will now {', then '.join(plan)}. Which of these objects will "
                     "still be in view afterwards?", correct, wrong, [start.rgb])

    return make


#: Where each move of a reward question takes the player: the object's bearing (degrees from the heading) that
#: makes that move the one that nears it most.
TOWARDS = {"move forward 0.5 m": 0.0, "move back 0.5 m": 180.0, "step left 0.5 m": -90.0, "step right 0.5 m": 90.0}


def reward_modeling_twins(margin: float = 0.15) -> Twins:
    """GameQA style twins (issue 34): the reward grows as the player nears an object; one spot, four headings that
    put the object ahead, behind, left and right, so that a different move earns the most (by `margin` m) in each
    view; the options are the four moves."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed)
        start = stage.pose(rng)
        types = [o.type for o in stage.ctl.world.objects.values()]
        targets = [i for i in start.clear() if types.count(start.type_of(i)) == 1]
        if not targets:
            return None
        target = rng.choice(targets)
        x, z, yaw, horizon = stage.pose_now()
        heading = yaw + stage.relative_bearing(target)
        views = []
        for best, bearing in TOWARDS.items():
            pose = (x, z, heading - bearing, horizon)
            views.append([stage.teleport(*pose).rgb])
            distance = {}
            for name, action in REWARD_MOVES.items():
                stage.step(action, render=False, moveMagnitude=0.5)
                distance[name] = stage.distance_to(target) if stage.ok else math.inf
                stage.teleport(*pose, render=False)
            ranked = sorted(distance, key=distance.__getitem__)
            if ranked[0] != best or distance[ranked[1]] - distance[best] < margin:
                return None
        return twins_of(list(TOWARDS), views, "reward_modeling", "The reward grows as the player gets closer to the "
                        f"{readable(start.type_of(target))}. Which single move earns the most reward?")

    return Twins(make)
