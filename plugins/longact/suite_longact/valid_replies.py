"""A valid reply to any step, for the offline baseline models (`scripted/random`, `scripted/first-option`)."""

from __future__ import annotations

import json
import random

from suite.contract.records import Observation, Task

from suite_longact.vocabulary import ACTIONS, MANIPULATION, STOP


def valid_reply(task: Task, observation: Observation, rng: random.Random | None) -> str:
    """One of the 16 actions as the JSON object the prompt asks for; a manipulation names a visible instance."""
    ids = [i["id"] for i in observation.data.get("instances") or []]
    actions = [a for a in ACTIONS if ids or a not in MANIPULATION]
    action = actions[0] if rng is None else rng.choice(actions)
    reply = {"action": action}
    if action in MANIPULATION:
        reply["object"] = ids[0] if rng is None else rng.choice(ids)
    return json.dumps(reply)


def stop_reply(task: Task, observation: Observation) -> str:
    """Stop at once (the generic `stop-at-once` baseline)."""
    return json.dumps({"action": STOP})
