"""Things that happen on camera: interactions with a visible change, each done on its own copy of a stage, and slow
pans with an interaction just before one of their frames."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from suite_agentvqa.packgen.stage import Shot, Stage, interactable, readable

REACH = 1.4
PAST = {"pick up": "picked up", "open": "opened", "turn on": "turned on"}
#: What an object became, for "in which frame is it first ..." questions.
RESULT = {"pick up": "in the player's hand", "open": "open", "turn on": "switched on"}


def visibly_changed(before: Shot, after: Shot, object_id: str, threshold: float = 12.0) -> bool:
    """Whether the pixels where the object was or is now differ clearly between two views."""
    region = before.masks.get(object_id, np.zeros(before.rgb.shape[:2], bool)) | after.masks.get(
        object_id, np.zeros(after.rgb.shape[:2], bool))
    if region.sum() < before.clear_threshold():
        return False
    diff = np.abs(before.rgb[region].astype(np.int16) - after.rgb[region].astype(np.int16)).mean()
    return bool(diff > threshold)


def actionable(stage: Stage, shot: Shot) -> list[tuple[str, str, str]]:
    """(object id, verb, controller action) for clearly visible objects within reach whose state a verb changes,
    and whose type is the only one of its kind in the room (so "open the fridge" names one object)."""
    types = [o.type for o in stage.ctl.world.objects.values()]
    out = []
    for object_id in shot.clear():
        obj = stage.ctl.world.objects[object_id]
        if stage.distance_to(object_id) <= REACH and types.count(obj.type) == 1:
            out += [(object_id, verb, action) for verb, action, field in interactable(obj.type)
                    if not getattr(obj, field)]
    return out


@dataclass
class Variant:
    """One of a twin question's alternatives: an interaction done on a fresh copy of the stage, and the view after."""

    target: str
    verb: str
    stage: Stage
    after: Shot


def four_variants(stage: Stage, shot: Shot, rng: random.Random, distinct_objects: bool) -> list[Variant] | None:
    """Four different interactions with objects in the view `shot` (of four different objects when
    `distinct_objects`), each done on its own fresh copy of the stage at this pose: None unless each succeeds,
    shows on camera and leaves the other three targets as they were."""
    choices = actionable(stage, shot)
    if distinct_objects:
        by_object: dict[str, list[tuple[str, str, str]]] = {}
        for choice in choices:
            by_object.setdefault(choice[0], []).append(choice)
        choices = [rng.choice(options) for _, options in sorted(by_object.items())]
    if len(choices) < 4:
        return None
    picked = rng.sample(choices, 4)
    pose = stage.pose_now()
    variants = []
    for target, verb, action in picked:
        twin = stage.again(pose)
        after = twin.step(action, objectId=target)
        others = [other for other, _, _ in picked if other != target]
        if not twin.ok or not visibly_changed(shot, after, target) or any(
                after.objects.get(o) != shot.objects[o] for o in others):
            return None
        variants.append(Variant(target, verb, twin, after))
    return variants


#: The pan of an "in which frame" video: frames this many degrees apart.
PAN = 10


def pan_with_event(stage: Stage, rng: random.Random, lead: int,
                   verbs: tuple[str, ...] = tuple(PAST)) -> tuple[str, str, list[list[np.ndarray]]] | None:
    """Four videos of one slow pan (`lead` + 4 frames) over an object within reach, acted on (by one of `verbs`)
    just before frame `lead` + k of video k: the object's name, the verb and the videos; None unless the object is
    clear in every frame before the change and the change shows in the frame after it."""
    shot = stage.pose(rng)
    choices = [c for c in actionable(stage, shot) if c[1] in verbs]
    if not choices:
        return None
    target, verb, action = rng.choice(choices)
    x, z, yaw, horizon = stage.pose_now()
    sign = rng.choice((-1, 1))
    poses = [(x, z, yaw + sign * PAN * j, horizon) for j in range(lead + 4)]
    before = [stage.teleport(*pose) for pose in poses]
    if any(view.pixels(target) < view.clear_threshold() for view in before):
        return None
    videos = []
    for k in range(lead, lead + 4):
        twin = stage.again(poses[0])
        frames = []
        for j, pose in enumerate(poses):
            twin.teleport(*pose, render=False)
            if j == k:
                twin.step(action, render=False, objectId=target)
                if not twin.ok:
                    return None
            frames.append(twin.teleport(*pose))
        if not visibly_changed(before[k], frames[k], target):
            return None
        videos.append([f.rgb for f in frames])
    return readable(shot.type_of(target)), verb, videos
