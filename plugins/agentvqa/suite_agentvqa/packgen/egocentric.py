"""Egocentric-video style questions over short walks and pans: where an object is now, what happened and when
(twins, see draft.Twins), and how many there are (single questions)."""

from __future__ import annotations

import random

from suite_agentvqa.packgen.draft import Draft, Maker, Twins, pick_wrong, twins_of
from suite_agentvqa.packgen.events import PAST, RESULT, actionable, four_variants, pan_with_event
from suite_agentvqa.packgen.stage import IGNORED, Shot, Stage, readable

DIRECTIONS = {"ahead": (-25, 25), "to the right": (65, 115), "to the left": (-115, -65)}


def walk(stage: Stage, rng: random.Random, steps: int) -> list[Shot]:
    """Frames of a short walk: a random pose, then turns of 45 degrees and steps of 0.5 m (blocked steps kept)."""
    frames = [stage.pose(rng, horizons=(0, 30))]
    for _ in range(steps - 1):
        move = rng.choice(("RotateLeft", "RotateRight", "MoveAhead", "MoveAhead"))
        args: dict[str, float] = {"degrees": 45} if move.startswith("Rotate") else {"moveMagnitude": 0.5}
        after = stage.step(move, render=True, **args)
        frames.append(after)
    return frames


def _direction(bearing: float) -> str | None:
    if abs(bearing) >= 155:
        return "behind"
    return next((name for name, (low, high) in DIRECTIONS.items() if low <= bearing <= high), None)


def object_counting() -> Maker:
    """VSI-Bench style: how many objects of a type appear in the walk (each either clearly seen or never seen)."""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        frames = walk(stage, rng, rng.randint(6, 9))
        counts = {}
        for object_type in sorted({o.type for o in stage.ctl.world.objects.values()} - IGNORED):
            ids = [i for i, o in stage.ctl.world.objects.items() if o.type == object_type]
            best = [max(f.pixels(i) for f in frames) for i in ids]
            if all(b == 0 or b >= frames[0].clear_threshold() for b in best) and any(best):
                counts[object_type] = sum(b > 0 for b in best)
        if not counts:
            return None
        several = [t for t, c in counts.items() if c > 1]
        object_type = rng.choice(several if several and rng.random() < 0.7 else sorted(counts))
        count = counts[object_type]
        wrong = pick_wrong([str(n) for n in range(0, max(count + 3, 5))], str(count), rng)
        if wrong is None:
            return None
        return Draft("object_counting", f"How many objects of the type '{readable(object_type)}' can be seen in the "
                     "video?", str(count), wrong, [f.rgb for f in frames], media_kind="frames")

    return make


#: Where each answer of a navigation question puts the object: its bearing from the final heading, degrees.
BEARINGS = {"ahead": 0.0, "to the right": 90.0, "to the left": -90.0, "behind": 180.0}


def spatial_navigation_twins() -> Twins:
    """VSI-Bench style twins (issue 34): one walk, ending in four headings that put an object seen on the way
    ahead, to the right, to the left and behind; the four videos differ only in their last frame."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed)
        frames = walk(stage, rng, rng.randint(6, 9))[:-1]
        types = [o.type for o in stage.ctl.world.objects.values()]
        seen = sorted({i for f in frames for i in f.clear() if types.count(f.type_of(i)) == 1})
        if not seen:
            return None
        target = rng.choice(seen)
        x, z, yaw, horizon = stage.pose_now()
        heading = yaw + stage.relative_bearing(target)  # facing the object
        ends = []
        for direction, bearing in BEARINGS.items():
            end = stage.teleport(x, z, heading - bearing, horizon)
            if _direction(stage.relative_bearing(target)) != direction:
                return None
            ends.append([f.rgb for f in frames] + [end.rgb])
        name = readable(frames[0].objects[target].type)
        return twins_of(list(BEARINGS), ends, "spatial_navigation", f"At the end of the video, where is the {name} "
                        "relative to the direction you are facing?", media_kind="frames")

    return Twins(make)


def what_happened_twins() -> Twins:
    """Perception Test style twins (issue 34): the camera turns towards four objects within reach, then one of four
    interactions happens and it looks around; the options are the four interactions, the same for all four videos."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed)
        shot = stage.pose(rng)
        if len(actionable(stage, shot)) < 4:
            return None
        x, z, yaw, horizon = stage.pose_now()
        turns, sign = rng.randint(1, 3), rng.choice((-1, 1))
        approach = [stage.teleport(x, z, yaw + sign * 30 * turns, horizon)]
        approach += [stage.step("RotateLeft" if sign > 0 else "RotateRight", degrees=30) for _ in range(turns)]
        variants = four_variants(stage, approach[-1], rng, distinct_objects=False)
        if variants is None:
            return None
        looks = [rng.choice(("RotateLeft", "RotateRight")) for _ in range(rng.randint(0, 2))]
        videos = [[f.rgb for f in approach] + [v.after.rgb] + [v.stage.step(look, degrees=30).rgb for look in looks]
                  for v in variants]
        correct = [f"the {readable(shot.type_of(v.target))} was {PAST[v.verb]}" for v in variants]
        return twins_of(correct, videos, "motion_causality", "What happened during the video?", media_kind="frames")

    return Twins(make)


def event_frame_twins() -> Twins:
    """Perception Test style twins (issue 34): four frames of a slow pan over an object within reach, which is
    acted on just before the first, second, third or fourth frame; the options are the four frames."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        made = pan_with_event(Stage(rng, seed), rng, lead=0)
        if made is None:
            return None
        name, verb, videos = made
        return twins_of([f"Frame {n}" for n in range(1, 5)], videos, "motion_causality",
                        f"In which frame is the {name} first {RESULT[verb]}?", media_kind="frames")

    return Twins(make)
