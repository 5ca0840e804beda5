"""Web-agent style questions on household views: tap grounding and the next action towards a goal.

The view plays the screen: `Tap: [x, y]` acts on what is under that pixel, the swipes turn or tilt the view,
`Button: Press Done` ends the task (Mind2Web style names the element instead: `CLICK [fridge]`). The right next
action is the first step of the only shortest plan, checked by stepping the simulator. Both makers draw twins
(see draft.Twins): a grounding question's four screens are windows of one wider render."""

from __future__ import annotations

import random

from suite_agentvqa.packgen.draft import Draft, Twins, twins_of
from suite_agentvqa.packgen.events import actionable, visibly_changed
from suite_agentvqa.packgen.stage import WIDE, Shot, Stage, interior_point, readable, window, windows

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


def _goal(verb: str, shot: Shot, object_id: str) -> str:
    return f"{verb.capitalize()} the {readable(shot.type_of(object_id))}."


def next_action_twins(min_history: int, elements: bool = False) -> Twins:
    """AitW/MONDAY/Mind2Web style twins (issue 34): one goal ("open the X" or "turn on the X"), one history of
    swipes and one option set (act on X, Done, Swipe Left, Swipe Right), four screens: X in view and not yet
    changed (act on it: tap), X already as the goal asks (Done: press), and the view turned 90 degrees right or
    left of X, where one swipe brings it back and the other shows none of it (scroll). The text is the same for all
    four, so only the screen tells which action comes next."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed)
        shot = stage.pose(rng)
        choices = [c for c in actionable(stage, shot) if c[1] != "pick up"]  # a held object does not show
        if not choices:
            return None
        target, verb, action = rng.choice(choices)
        if stage.tap_target(interior_point(shot.masks[target])) != target:
            return None
        pose = stage.pose_now()
        done_stage = stage.again(pose)
        finished = done_stage.step(action, objectId=target)
        if not done_stage.ok or not visibly_changed(shot, finished, target):
            return None
        x, z, yaw, horizon = pose
        turned = {}
        for side, offset in (("Left", 90), ("Right", -90)):  # a right turn adds to the yaw: swipe left to undo it
            view = stage.teleport(x, z, yaw + offset, horizon)
            back = stage.step(SWIPES[side][0], degrees=90)
            if view.pixels(target) or back.pixels(target) < back.clear_threshold():
                return None
            turned[side] = view
        if stage.teleport(x, z, yaw + 180, horizon).pixels(target):
            return None
        history = [swipe(rng.choice(("Left", "Right")), elements) for _ in range(rng.randint(min_history, 2))]
        question = "What is the next action?" if elements else f"What is the next action? {ACTION_WORDS}"
        correct = [click(shot, target, elements), done(elements), swipe("Left", elements), swipe("Right", elements)]
        frames = [[shot.rgb], [finished.rgb], [turned["Left"].rgb], [turned["Right"].rgb]]
        return twins_of(correct, frames, ["tap", "press", "scroll", "scroll"], question,
                        goal=_goal(verb, shot, target), history=history)

    return Twins(make)


#: The share of a grounding target's pixels every twin's window must show.
SHOWN = 0.7


def ground_point_twins(small: bool) -> Twins:
    """ScreenSpot-style twins (issue 34): four windows of one wider render, each placing the named object under a
    different one of four tap points (at least 12 pixels apart, the other three off the object); the options are
    the four taps."""
    screen = (320, 240) if small else (160, 120)

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed, size=(WIDE * screen[0], WIDE * screen[1]))
        shot = stage.pose(rng, horizons=(0, 30, 30))
        targets = [i for i in shot.clear() if not small or shot.pixels(i) < screen[0] * screen[1] // 60]
        if not targets:
            return None
        target = rng.choice(targets)
        mask = shot.masks[target]
        anchor = interior_point(mask)
        points = windows(rng, anchor, screen, shot.size)
        if points is None:
            return None
        frames = []
        for point in points:
            x, y = anchor[0] - point[0], anchor[1] - point[1]
            if mask[y:y + screen[1], x:x + screen[0]].sum() < SHOWN * mask.sum() or any(
                    mask[y + other[1], x + other[0]] for other in points if other != point):
                return None
            frames.append([window(shot, anchor, point, screen)])
        name = readable(shot.type_of(target))
        return twins_of([tap(p) for p in points], frames, "tap", f"Where should you tap to select the {name}?")

    return Twins(make)
