"""A valid reply to any step, for the offline baseline models (`scripted/random`, `scripted/first-option`)."""

from __future__ import annotations

import json
import random
from typing import Any

from suite.contract.records import Observation, Task

from suite_vigil.parsing import MAX_MOVE_STEPS, NORMALIZED_MAX
from suite_vigil.vocabulary import INTENTS, LOOK_DIRECTIONS, NAV_MODES, SKILLS, STATUSES

FRAME = (640, 480)  # the frame parse_action checks pixel coordinates against


def _arguments(skill: str, task: Task, rng: random.Random) -> dict[str, Any]:
    if skill == "navigate":
        mode = rng.choice(NAV_MODES)
        turn = mode.startswith("turn")
        return {"mode": mode, "magnitude": rng.choice((30, 90)) if turn else rng.randint(1, MAX_MOVE_STEPS)}
    if skill == "look":
        return {"direction": rng.choice(LOOK_DIRECTIONS), "magnitude": 30}
    if skill == "interact_pixel":
        normalized = task.data["prompt"]["normalized"]
        width, height = (NORMALIZED_MAX, NORMALIZED_MAX) if normalized else (FRAME[0] - 1, FRAME[1] - 1)
        return {"intent": rng.choice(INTENTS), "x": rng.randint(0, width), "y": rng.randint(0, height)}
    return {"status": rng.choice([s for s in STATUSES if s != "invalid"]), "summary": "a baseline report"}


def valid_reply(task: Task, observation: Observation, rng: random.Random | None) -> str:
    """One JSON skill call that parses (the first option: one step forward)."""
    if rng is None:
        return json.dumps({"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": 1}})
    skill = rng.choice(SKILLS)
    return json.dumps({"skill_name": skill, "arguments": _arguments(skill, task, rng)})


def stop_reply(task: Task, observation: Observation) -> str:
    """Report success at once without acting (the generic `stop-at-once` baseline)."""
    return json.dumps({"skill_name": "report", "arguments": {"status": "success", "summary": "done"}})
