"""Game style questions, the household walk as the game: which move was made, when a point was scored, what the
view will show after some moves, and which move earns the most reward."""

from __future__ import annotations

import random

import numpy as np

from suite_agentvqa.packgen.draft import Draft, Maker, pick_wrong
from suite_agentvqa.packgen.events import approach_and_act
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


def action_prediction() -> Maker:
    """Atari style: two consecutive frames; which move was made (every other listed move gives another frame)?"""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        start = stage.pose(rng)
        pose = stage.pose_now()
        outcomes = {}
        for name, (action, args) in MOVES.items():
            after = stage.step(action, render=True, **args)
            if stage.ok and _differs(start, after):
                outcomes[name] = after
            stage.teleport(*pose, render=False)
        if len(outcomes) < 4:
            return None
        correct = rng.choice(sorted(outcomes))
        wrong = pick_wrong([n for n, v in outcomes.items() if _differs(v, outcomes[correct])], correct, rng)
        if wrong is None:
            return None
        return Draft("action_prediction", "Which move did the player make between Frame 1 and Frame 2?", correct,
                     wrong, [start.rgb, outcomes[correct].rgb], media_kind="frames")

    return make


def reward_detection() -> Maker:
    """Atari style: a point is scored when something is picked up; in which frame was it just scored?"""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        made = approach_and_act(stage, rng, tail=rng.randint(0, 3))
        if made is None or made[2].verb != "pick up":
            return None
        frames, index, _ = made
        cut = index - rng.randint(1, index)  # one frame before the point at least, any number of them (issue 34)
        frames, index = frames[cut:], index - cut
        labels = [f"Frame {n}" for n in range(1, len(frames) + 1)]
        # Frame 1 cannot show a point just scored: as a distractor it would be wrong from the text alone
        wrong = pick_wrong(labels[1:], labels[index], rng)
        if wrong is None:
            return None
        return Draft("reward_detection", "In this game the player scores a point when it picks something up. In "
                     "which frame has the point just been scored?", labels[index], wrong, [f.rgb for f in frames],
                     media_kind="frames")

    return make


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


def reward_modeling(margin: float = 0.15) -> Maker:
    """GameQA style: the reward grows as the player nears an object; which single move earns the most?"""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        start = stage.pose(rng)
        types = [o.type for o in stage.ctl.world.objects.values()]
        targets = [i for i in start.clear() if types.count(start.type_of(i)) == 1]
        if not targets:
            return None
        target = rng.choice(targets)
        pose = stage.pose_now()
        distance = {}
        for name, action in REWARD_MOVES.items():
            stage.step(action, render=False, moveMagnitude=0.5)
            distance[name] = stage.distance_to(target)
            stage.teleport(*pose, render=False)
        ranked = sorted(distance, key=distance.__getitem__)
        if distance[ranked[1]] - distance[ranked[0]] < margin:
            return None
        return Draft("reward_modeling", f"The reward grows as the player gets closer to the "
                     f"{readable(start.type_of(target))}. Which single move earns the most reward?", ranked[0],
                     ranked[1:], [start.rgb])

    return make
