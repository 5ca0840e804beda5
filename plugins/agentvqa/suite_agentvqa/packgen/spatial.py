"""Spatial questions: which object is missing from several views (twins), and where one object is relative to
another in the image. ("Which is largest in real life" is left out since issue 34: the object types answer it from
common sense, so no construction keeps a text-only policy at chance on it.)"""

from __future__ import annotations

import random
from itertools import combinations

from suite_agentvqa.packgen.draft import Draft, Maker, Twins, twins_of
from suite_agentvqa.packgen.stage import IGNORED, Stage, bbox, readable

GAP = 3


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


#: Views rendered of a room to choose an entity-detection twin's images from.
VIEW_POOL = 16


#: Sets of four types of a room tried for one whose every type can be left out of three views showing the others.
TYPE_DRAWS = 200


def _views_without(absent: str, chosen: list[str], shown: list[set[str]],
                   clear: list[set[str]]) -> list[tuple[int, ...]]:
    """Every three views (indices) that show no pixel of `absent` and between them show each other chosen type
    clearly."""
    pool = [k for k in range(len(shown)) if absent not in shown[k]]
    return [combo for combo in combinations(pool, 3)
            if set(chosen) - {absent} <= set().union(*(clear[k] for k in combo))]


def entity_detection_twins() -> Twins:
    """SpaCE-10 style twins (issue 34): four object types of one room, and for each of them three views of the room
    that show the other three clearly and none of it; the options are the four types, the same for every twin."""

    def make(rng: random.Random, seed: int) -> list[Draft] | None:
        stage = Stage(rng, seed)
        views = [stage.pose(rng) for _ in range(VIEW_POOL)]
        shown = [{v.type_of(i) for i in v.masks if i in v.objects} for v in views]
        clear = [{v.type_of(i) for i in v.clear()} for v in views]
        candidates = sorted(set().union(*clear) - IGNORED)
        if len(candidates) < 4:
            return None
        for _ in range(TYPE_DRAWS):
            chosen = rng.sample(candidates, 4)
            picks = [_views_without(absent, chosen, shown, clear) for absent in chosen]
            if all(picks):
                break
        else:
            return None
        frames = [[views[k].rgb for k in rng.choice(fits)] for fits in picks]
        return twins_of([readable(t) for t in chosen], frames, "entity_detection",
                        "Which of these objects does not appear in any of the images?")

    return Twins(make)
