"""A valid reply to any step, for the offline baseline models (`scripted/random`, `scripted/first-option`)."""

from __future__ import annotations

import random

from suite.contract.records import Observation, Task

from suite_asgard.vocabulary import ACTIONS


def valid_reply(task: Task, observation: Observation, rng: random.Random | None) -> str:
    """An answer block with one of the 12 actions on one of the scene's object types."""
    objects = list(task.data["objects"])
    if rng is None:
        action, obj = ACTIONS[0], objects[0]
    else:
        action, obj = rng.choice(ACTIONS), rng.choice(objects)
    return f"<answer>\nAction: {action} {obj}\n</answer>"


def stop_reply(task: Task, observation: Observation) -> str:
    """An answer without an action (AsgardBench has no stop action): the episode ends by its loop rule having
    changed nothing (the generic `stop-at-once` baseline)."""
    return "<answer>\n</answer>"
