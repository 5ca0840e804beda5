"""Things that happen on camera: one interaction with a visible change, and a turn-towards-then-act sequence."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from suite_agentvqa.packgen.stage import Shot, Stage, interactable

REACH = 1.4
PAST = {"pick up": "picked up", "open": "opened", "turn on": "turned on"}
#: What an object became, for "in which frame is it first ..." questions.
RESULT = {"pick up": "in the player's hand", "open": "open", "turn on": "switched on"}


@dataclass
class Happening:
    """An interaction that succeeded: its target, the verb (in words), and the views before and after it."""

    target: str
    verb: str
    before: Shot
    after: Shot

    @property
    def changed(self) -> set[str]:
        """Ids of every object whose record changed (the target, and whatever the world's rules changed with it)."""
        return {i for i, obj in self.before.objects.items() if self.after.objects.get(i) != obj}


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


def happen(stage: Stage, shot: Shot, rng: random.Random) -> Happening | None:
    """Act on a random actionable object in view; None unless it succeeds and the change shows on camera."""
    choices = actionable(stage, shot)
    if not choices:
        return None
    target, verb, action = rng.choice(choices)
    after = stage.step(action, objectId=target)
    if not stage.ok or not visibly_changed(shot, after, target):
        return None
    return Happening(target, verb, shot, after)


def approach_and_act(stage: Stage, rng: random.Random, tail: int) -> tuple[list[Shot], int, Happening] | None:
    """Frames of turning towards an object in 30-degree steps, acting on it, then `tail` steps of looking around.

    Returns the frames, the 0-based index of the first frame after the interaction, and the interaction."""
    shot = stage.pose(rng)
    if not actionable(stage, shot):
        return None
    x, z, yaw, horizon = stage.pose_now()
    turns = rng.randint(1, 3)
    sign = rng.choice((-1, 1))
    frames = [stage.teleport(x, z, yaw + sign * 30 * turns, horizon)]
    for _ in range(turns):
        frames.append(stage.step("RotateLeft" if sign > 0 else "RotateRight", degrees=30))
    happening = happen(stage, frames[-1], rng)
    if happening is None:
        return None
    frames.append(happening.after)
    event_frame = len(frames) - 1
    for _ in range(tail):
        frames.append(stage.step(rng.choice(("RotateLeft", "RotateRight")), degrees=30))
    return frames, event_frame, happening
