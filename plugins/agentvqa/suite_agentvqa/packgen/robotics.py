"""Robotics style twins (see draft.Twins): what the robot did, which object changed, depth order (objects swapped),
and box grounding (windows of one wider render)."""

from __future__ import annotations

import random

from suite_agentvqa.packgen.draft import Draft, Twins, twins_of
from suite_agentvqa.packgen.events import PAST, Variant, four_variants
from suite_agentvqa.packgen.stage import WIDE, Shot, Stage, bbox, iou, readable, window, windows

COMPACT = 1.0


def _first_by_margin(stage: Stage, shot: Shot, chosen: list[str], farthest: bool, margin: float) -> str | None:
    """The one of `chosen` farthest from (or closest to) the camera by a clear margin both in straight-line distance
    to its centre and in median image depth, else None."""
    sign = -1 if farthest else 1
    by_distance = sorted(chosen, key=lambda i: sign * stage.camera_distance(i))
    by_depth = sorted(chosen, key=lambda i: sign * shot.median_depth(i))
    first, second = (stage.camera_distance(i) for i in by_distance[:2])
    if by_depth[0] != by_distance[0] or abs(first - second) < margin or abs(
            shot.median_depth(by_depth[0]) - shot.median_depth(by_depth[1])) < margin / 2:
        return None
    return by_distance[0]


def depth_order_twins(farthest: bool, category: str, margin: float = 0.4) -> Twins:
    """Depth twins (issue 34): four compact objects in one view, the first of them (farthest from, or closest to,
    the camera by a clear margin) swapped in turn with each of the others, so that each is first in one view (and
    all four still show, with at least half the pixels of a clear view); the options are the four objects."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed)
        shot = stage.pose(rng)
        compact = [i for i in shot.clear() if max(stage.ctl.world.objects[i].size) <= COMPACT]
        if len(compact) < 4:
            return None
        chosen = rng.sample(compact, 4)
        lead = _first_by_margin(stage, shot, chosen, farthest, margin)
        if lead is None:
            return None
        pose = stage.pose_now()
        frames = []
        for k in chosen:
            twin = stage.again(pose)
            if k != lead:
                bottoms = {i: (*twin.ctl.world.objects[i].center, twin.ctl.world.objects[i].size[1]) for i in (k, lead)}
                for moved, to in ((k, lead), (lead, k)):
                    x, y, z, height = bottoms[to]
                    twin.step("TeleportObject", render=False, objectId=moved,
                              position={"x": x, "y": y - height / 2, "z": z}, forceAction=True)
                    if not twin.ok:
                        return None
            view = twin.teleport(*pose)
            if any(view.pixels(i) < view.clear_threshold() // 2 for i in chosen) or _first_by_margin(
                    twin, view, chosen, farthest, margin) != k:
                return None
            frames.append([view.rgb])
        word = "farthest from" if farthest else "closest to"
        return twins_of([readable(shot.type_of(i)) for i in chosen], frames, category,
                        f"Which of these objects is {word} the camera?")

    return Twins(make)


def box_text(box: tuple[int, int, int, int]) -> str:
    """A box option: (x1, y1, x2, y2) in pixels."""
    return "({}, {}, {}, {})".format(*box)


def _staged_variants(rng: random.Random, seed: int, distinct_objects: bool) -> tuple[Shot, list[Variant]] | None:
    """A staged view and four interactions each done on its own copy of it (see events.four_variants)."""
    stage = Stage(rng, seed)
    shot = stage.pose(rng, horizons=(30,))
    variants = four_variants(stage, shot, rng, distinct_objects)
    return None if variants is None else (shot, variants)


def task_estimation_twins() -> Twins:
    """ERQA style twins (issue 34): one view before, four views after four different interactions in it; the
    options are those four interactions, each right after its own, so only the second image tells which."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        staged = _staged_variants(rng, seed, distinct_objects=False)
        if staged is None:
            return None
        shot, variants = staged
        correct = [f"{PAST[v.verb]} the {readable(shot.type_of(v.target))}" for v in variants]
        return twins_of(correct, [[shot.rgb, v.after.rgb] for v in variants], "task_estimation",
                        "What did the robot do between the first and the second image?")

    return Twins(make)


def state_tracking_twins() -> Twins:
    """Robo2VLM style twins (issue 34): four objects in one view, four views after one of them changed its state;
    the options are the four objects."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        staged = _staged_variants(rng, seed, distinct_objects=True)
        if staged is None:
            return None
        shot, variants = staged
        correct = [readable(shot.type_of(v.target)) for v in variants]
        return twins_of(correct, [[shot.rgb, v.after.rgb] for v in variants], "state_tracking",
                        "Which object changed its state between the first and the second image?")

    return Twins(make)


def object_grounding_twins() -> Twins:
    """RoboRefIt style twins (issue 34): four windows of one wider render, each placing the named object's box at a
    different one of four places (overlapping each other by IoU < 0.3); the options are the four boxes."""
    screen = (160, 120)

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed, size=(WIDE * screen[0], WIDE * screen[1]))
        shot = stage.pose(rng, horizons=(30,))
        clear = shot.clear()
        if not clear:
            return None
        target = rng.choice(clear)
        box = bbox(shot.masks[target])
        width, height = box[2] - box[0] + 1, box[3] - box[1] + 1
        corners = windows(rng, (box[0], box[1]), screen, shot.size, low=(width - 1, height - 1),
                          gap=max(6, min(width, height) // 2))
        if corners is None:
            return None
        boxes = [(x, y, x + width - 1, y + height - 1) for x, y in corners]
        if any(iou(a, b) >= 0.3 for a in boxes for b in boxes if a != b):
            return None
        name = readable(shot.type_of(target))
        return twins_of([box_text(b) for b in boxes], [[window(shot, (box[0], box[1]), c, screen)] for c in corners],
                        "object_grounding", f"Which box (x1, y1, x2, y2, in pixels) encloses the {name}?")

    return Twins(make)
