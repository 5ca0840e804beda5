"""Robotics style questions: what the robot did, which object changed, depth order, and box grounding."""

from __future__ import annotations

import random
from typing import Any

from suite_agentvqa.packgen.draft import Draft, Maker, pick_wrong
from suite_agentvqa.packgen.events import PAST, happen
from suite_agentvqa.packgen.stage import Stage, bbox, interactable, iou, readable

#: Verbs in the past tense with their opposite (what did not happen when the verb did).
OPPOSITE = {"picked up": "put down", "opened": "closed", "turned on": "turned off"}
COMPACT = 1.0


def _did(object_type: str) -> list[str]:
    return [PAST[verb] for verb, _, _ in interactable(object_type)]


def _before_after(rng: random.Random, seed: int) -> tuple[Any, Any]:
    """A staged view and one action happening in it (None when no action fits the view)."""
    stage = Stage(rng, seed)
    shot = stage.pose(rng, horizons=(30,))
    return shot, happen(stage, shot, rng)


def task_estimation() -> Maker:
    """ERQA style: two views, before and after one action; what did the robot do?"""

    def make(rng: random.Random, seed: int) -> Draft | None:
        shot, happening = _before_after(rng, seed)
        if happening is None:
            return None
        target_type = shot.type_of(happening.target)
        done = PAST[happening.verb]
        pool = [f"{OPPOSITE[done]} the {readable(target_type)}"]
        pool += [f"{v} the {readable(target_type)}" for v in _did(target_type) if v != done]
        pool += [f"{v} the {readable(shot.type_of(i))}" for i in shot.clear() if i not in happening.changed
                 for v in _did(shot.type_of(i))]
        wrong = pick_wrong(pool, f"{done} the {readable(target_type)}", rng)
        if wrong is None:
            return None
        return Draft("task_estimation", "What did the robot do between the first and the second image?",
                     f"{done} the {readable(target_type)}", wrong, [happening.before.rgb, happening.after.rgb])

    return make


def state_tracking() -> Maker:
    """Robo2VLM style: two views, before and after one action; which object changed its state?"""

    def make(rng: random.Random, seed: int) -> Draft | None:
        shot, happening = _before_after(rng, seed)
        if happening is None:
            return None
        others = [readable(shot.type_of(i)) for i in shot.clear()
                  if i not in happening.changed and happening.after.pixels(i)]
        wrong = pick_wrong(others, readable(shot.type_of(happening.target)), rng)
        if wrong is None:
            return None
        return Draft("state_tracking", "Which object changed its state between the first and the second image?",
                     readable(shot.type_of(happening.target)), wrong, [happening.before.rgb, happening.after.rgb])

    return make


def depth_order(farthest: bool, category: str, margin: float = 0.4) -> Maker:
    """Which of four compact objects is farthest from (or closest to) the camera: first by a clear margin both in
    straight-line distance to its centre and in median image depth."""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        shot = stage.pose(rng)
        compact = [i for i in shot.clear() if max(stage.ctl.world.objects[i].size) <= COMPACT]
        if len(compact) < 4:
            return None
        chosen = rng.sample(compact, 4)
        sign = -1 if farthest else 1
        by_distance = sorted(chosen, key=lambda i: sign * stage.camera_distance(i))
        by_depth = sorted(chosen, key=lambda i: sign * shot.median_depth(i))
        first, second = (stage.camera_distance(i) for i in by_distance[:2])
        if by_depth[0] != by_distance[0] or abs(first - second) < margin or abs(
                shot.median_depth(by_depth[0]) - shot.median_depth(by_depth[1])) < margin / 2:
            return None
        word = "farthest from" if farthest else "closest to"
        return Draft(category, f"Which of these objects is {word} the camera?", readable(shot.type_of(by_distance[0])),
                     [readable(shot.type_of(i)) for i in by_distance[1:]], [shot.rgb])

    return make


def box_text(box: tuple[int, int, int, int]) -> str:
    """A box option: (x1, y1, x2, y2) in pixels."""
    return "({}, {}, {}, {})".format(*box)


def object_grounding() -> Maker:
    """RoboRefIt style: which pixel box holds the named object (other objects' boxes and a shifted box are wrong)."""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        shot = stage.pose(rng, horizons=(30,))
        clear = shot.clear()
        if len(clear) < 3:
            return None
        target = rng.choice(clear)
        box = bbox(shot.masks[target])
        width, height = shot.size
        shift = box[2] - box[0] + 3
        moved = (box[0] + shift, box[1], box[2] + shift, box[3]) if box[2] + shift < width else (
            box[0] - shift, box[1], box[2] - shift, box[3])
        candidates = [bbox(shot.masks[i]) for i in clear if i != target]
        if moved[0] >= 0:
            candidates.append(moved)
        candidates = [c for c in candidates if iou(c, box) < 0.3]
        wrong = pick_wrong([box_text(c) for c in candidates], box_text(box), rng)
        if wrong is None:
            return None
        name = readable(shot.type_of(target))
        return Draft("object_grounding", f"Which box (x1, y1, x2, y2, in pixels) encloses the {name}?",
                     box_text(box), wrong, [shot.rgb])

    return make
