"""Web-agent style questions on household views: tap grounding and the next action towards a goal.

The view plays the screen: `Tap: [x, y]` acts on what is under that pixel, the swipes turn or tilt the view,
`Button: Press Done` ends the task (Mind2Web style names the element instead: `CLICK [fridge]`). The right next
action is the first step of the only shortest plan, checked by stepping the simulator."""

from __future__ import annotations

import random

from suite_agentvqa.packgen.draft import Draft, Maker
from suite_agentvqa.packgen.events import actionable
from suite_agentvqa.packgen.stage import Shot, Stage, interior_point, near_miss_point, readable

ACTION_WORDS = ("Tap acts on what is under the point (pixel coordinates of the screenshot); Swipe turns or tilts "
                "the view; Press Done ends the task.")
SWIPES = {"Left": ("RotateLeft", 90, "turn 90° left"), "Right": ("RotateRight", 90, "turn 90° right"),
          "Up": ("LookUp", 30, "look up 30°"), "Down": ("LookDown", 30, "look down 30°")}


def tap(point: tuple[int, int]) -> str:
    """A tap option at a pixel."""
    return f"Tap: [{point[0]}, {point[1]}]"


def swipe(direction: str, elements: bool) -> str:
    """A swipe option: Left/Right turn the view 90 degrees, Up/Down tilt it 30 degrees."""
    words = SWIPES[direction][2]
    return f"SCROLL {direction.upper()} ({words})" if elements else f"Swipe: {direction} ({words})"


def done(elements: bool) -> str:
    """The option that ends the task."""
    return "DONE" if elements else "Button: Press Done"


def click(shot: Shot, object_id: str, elements: bool) -> str:
    """Acting on an object in view: by name (Mind2Web style) or by a tap deep inside its pixels."""
    return f"CLICK [{readable(shot.type_of(object_id))}]" if elements else tap(interior_point(shot.masks[object_id]))


def ground_point(small: bool) -> Maker:
    """ScreenSpot-style grounding: which tap lands on the named object (near misses and other objects are wrong)."""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed, size=(320, 240) if small else (160, 120))
        shot = stage.pose(rng, horizons=(0, 30, 30))
        width, height = shot.size
        clear = shot.clear()
        targets = [i for i in clear if not small or shot.pixels(i) < width * height // 60]
        if not targets:
            return None
        target = rng.choice(targets)
        point = interior_point(shot.masks[target])
        miss = near_miss_point(shot.masks[target], rng)
        others = [interior_point(shot.masks[i]) for i in clear if i != target]
        if miss is None or len(others) < 2 or stage.tap_target(point) != target:
            return None
        wrong = [miss, *rng.sample(others, 2)]
        if any(stage.tap_target(p) == target for p in wrong):
            return None
        name = readable(shot.type_of(target))
        return Draft("tap", f"Where should you tap to select the {name}?", tap(point), [tap(p) for p in wrong],
                     [shot.rgb], meta={"target": target})

    return make


def _goal(verb: str, shot: Shot, object_id: str) -> str:
    return f"{verb.capitalize()} the {readable(shot.type_of(object_id))}."


def _act_case(stage: Stage, shot: Shot, rng: random.Random, elements: bool) -> tuple[Draft, str] | None:
    """The target can be acted on in view: the next action is acting on it (checked by doing it); the draft and
    the target's id."""
    choices = actionable(stage, shot)
    others = shot.clear()
    if not choices or len(others) < 2:
        return None
    target, verb, action = rng.choice(choices)
    point = interior_point(shot.masks[target])
    miss = near_miss_point(shot.masks[target], rng)
    if stage.tap_target(point) != target:
        return None
    miss_tap = ""  # the near-miss tap: a wrong option when elements are not named
    if not elements:
        if miss is None or stage.tap_target(miss) == target:
            return None
        miss_tap = tap(miss)
    other = rng.choice([i for i in others if i != target])
    wrong = [click(shot, other, elements), done(elements),
             swipe(rng.choice(("Left", "Right")), True) if elements else miss_tap]
    stage.step(action, x=(point[0] + 0.5) / shot.size[0], y=(point[1] + 0.5) / shot.size[1])
    if not stage.ok:
        return None
    draft = Draft("tap", "", click(shot, target, elements), wrong, [shot.rgb], goal=_goal(verb, shot, target))
    return draft, target


def _tapped_before(draft: Draft) -> str:
    """The action a tap or scroll question's history ends with (issue 34): the wrong option that acts on another
    object, so that, as in a press question, the last action is a tap repeated among the options and the history
    alone does not tell which kind of action comes next."""
    return next(w for w in draft.wrong if w.startswith(("Tap", "CLICK")))


def _tap_case(stage: Stage, shot: Shot, rng: random.Random, elements: bool) -> tuple[Draft, str] | None:
    """The next action is acting on the target, which is in view and within reach."""
    case = _act_case(stage, shot, rng, elements)
    return None if case is None else (case[0], _tapped_before(case[0]))


def _press_case(stage: Stage, shot: Shot, rng: random.Random, elements: bool) -> tuple[Draft, str] | None:
    """The last action already reached the goal: the next action is Done (the last action joins the history)."""
    case = _act_case(stage, shot, rng, elements)
    if case is None:
        return None
    before, target = case
    after = stage.shot()
    others = [i for i in after.clear() if i != target]
    if not others:
        return None
    wrong = [click(after, rng.choice(others), elements), before.correct, swipe(rng.choice(("Left", "Right")),
                                                                                elements)]
    return Draft("press", "", done(elements), wrong, [after.rgb], goal=before.goal), before.correct


def _scroll_case(stage: Stage, shot: Shot, rng: random.Random, elements: bool) -> tuple[Draft, str] | None:
    """The target is out of view and one turn brings it within reach; no other swipe shows any of it."""
    x, z, yaw, horizon = stage.pose_now()
    views = {}
    for direction, (action, degrees, _) in SWIPES.items():
        after = stage.step(action, degrees=degrees)
        views[direction] = after if stage.ok else shot
        stage.teleport(x, z, yaw, horizon, render=False)
    side = rng.choice(("Left", "Right"))
    turned = views[side]
    stage.step(SWIPES[side][0], render=False, degrees=90)
    hidden = [(i, verb) for i, verb, _ in actionable(stage, turned) if shot.pixels(i) == 0
              and all(v.pixels(i) == 0 for d, v in views.items() if d != side)]
    if not hidden:
        return None
    target, verb = rng.choice(hidden)
    if stage.tap_target(interior_point(turned.masks[target])) != target:
        return None
    in_view = shot.clear()
    if not in_view:
        return None
    wrong = [swipe("Right" if side == "Left" else "Left", elements), done(elements),
             click(shot, rng.choice(in_view), elements)]
    draft = Draft("scroll", "", swipe(side, elements), wrong, [shot.rgb], goal=_goal(verb, turned, target))
    return draft, _tapped_before(draft)


CASES = {"tap": _tap_case, "press": _press_case, "scroll": _scroll_case}


def next_action(mode: str, min_history: int, elements: bool = False) -> Maker:
    """AitW/MONDAY/Mind2Web style: the goal, the actions so far and the screen; which action comes next?
    `mode` is the right action's kind: tap (act on the target), scroll (turn towards it) or press (Done)."""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        shot = stage.pose(rng)
        history = [swipe(rng.choice(("Left", "Right")), elements) for _ in range(rng.randint(min_history, 2))]
        case = CASES[mode](stage, shot, rng, elements)
        if case is None:
            return None
        draft, last = case
        draft.history = history + ([last] if last else [])
        draft.question = "What is the next action?" if elements else f"What is the next action? {ACTION_WORDS}"
        return draft

    return make
