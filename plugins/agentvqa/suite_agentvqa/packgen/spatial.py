"""Spatial questions: which object is missing from several views, which is largest, and where one object is
relative to another in the image."""

from __future__ import annotations

import random

from suite_household.generator import ROOM_TYPES, default_inventory

from suite_agentvqa.packgen.draft import Draft, Maker
from suite_agentvqa.packgen.stage import IGNORED, Shot, Stage, bbox, readable

SIZE_RATIO = 1.5
GAP = 3


def _views(stage: Stage, rng: random.Random) -> list[Shot]:
    return [stage.pose(rng) for _ in range(rng.randint(2, 3))]


def entity_detection() -> Maker:
    """SpaCE-10 style: several views of a room; which listed object appears in none of them?"""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        views = _views(stage, rng)
        present = sorted({v.type_of(i) for v in views for i in v.clear()})
        in_room = {o.type for o in stage.ctl.world.objects.values()}
        elsewhere = sorted({t for r in ROOM_TYPES for t in default_inventory(r)} - in_room - IGNORED)
        if len(present) < 3:
            return None
        absent = rng.choice(elsewhere)
        return Draft("entity_detection", "Which of these objects does not appear in any of the images?",
                     readable(absent), [readable(t) for t in rng.sample(present, 3)], [v.rgb for v in views])

    return make


def object_sizing() -> Maker:
    """SpaCE-10 style: several views of a room; which of four objects seen is the largest in real life?"""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        views = _views(stage, rng)
        volume: dict[str, float] = {}
        for view in views:
            for i in view.clear():
                sx, sy, sz = stage.ctl.world.objects[i].size
                volume[view.type_of(i)] = max(volume.get(view.type_of(i), 0.0), sx * sy * sz)
        if len(volume) < 4:
            return None
        chosen = sorted(rng.sample(sorted(volume), 4), key=volume.__getitem__, reverse=True)
        if volume[chosen[0]] < SIZE_RATIO * volume[chosen[1]]:
            return None
        return Draft("object_sizing", "Which of these objects is the largest in real life?", readable(chosen[0]),
                     [readable(t) for t in chosen[1:]], [v.rgb for v in views])

    return make


def _relation(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> str | None:
    """Where box a lies relative to box b when it is unambiguous: wholly on one side, overlapping on the other axis."""
    overlap_x = a[0] <= b[2] and b[0] <= a[2]
    overlap_y = a[1] <= b[3] and b[1] <= a[3]
    if overlap_y and a[2] + GAP < b[0]:
        return "to the left of"
    if overlap_y and b[2] + GAP < a[0]:
        return "to the right of"
    if overlap_x and a[3] + GAP < b[1]:
        return "above"
    if overlap_x and b[3] + GAP < a[1]:
        return "below"
    return None


def object_relation() -> Maker:
    """EmbSpatial style: in the image, is one object left of, right of, above or below another?"""

    def make(rng: random.Random, seed: int) -> Draft | None:
        stage = Stage(rng, seed)
        shot = stage.pose(rng)
        clear = shot.clear()
        pairs = [(a, b, r) for a in clear for b in clear if a != b
                 and (r := _relation(bbox(shot.masks[a]), bbox(shot.masks[b])))]
        if not pairs:
            return None
        a, b, relation = rng.choice(pairs)
        name_a, name_b = readable(shot.type_of(a)), readable(shot.type_of(b))
        wrong = [f"{r} the {name_b}" for r in ("to the left of", "to the right of", "above", "below") if r != relation]
        return Draft("object_object_interaction", f"In the image, where is the {name_a}?",
                     f"{relation} the {name_b}", wrong, [shot.rgb])

    return make

