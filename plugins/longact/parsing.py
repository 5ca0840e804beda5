"""The direct agent's reply parser: a JSON object first, then a lenient `Action [object]` line."""

from __future__ import annotations

import json
import re
from typing import Any

from suite.records import Action
from suite_longact.vocabulary import ACTIONS, MANIPULATION

_BY_LOWER = {a.lower(): a for a in ACTIONS}
_LINE = re.compile(
    r"(?im)^\W*(?:action\s*[:=]\s*)?(" + "|".join(ACTIONS) + r")\b[\s:(,]*([A-Za-z][\w|.+\-]*)?"
)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object in the reply (fenced blocks first), in order."""
    out: list[dict[str, Any]] = []
    candidates = _FENCE.findall(text) + [text]
    decoder = json.JSONDecoder()
    for blob in candidates:
        i = blob.find("{")
        while i != -1:
            try:
                value, end = decoder.raw_decode(blob, i)
            except ValueError:
                i = blob.find("{", i + 1)
                continue
            if isinstance(value, dict):
                out.append(value)
            i = blob.find("{", end)
        if out:
            return out
    return out


def make_action(name: str, obj: str | None) -> Action:
    """An Action for a known action name, checking that manipulation names an object."""
    canonical = _BY_LOWER.get(name.strip().lower())
    if canonical is None:
        return Action.failure(f"unknown action {name!r}; expected one of {', '.join(ACTIONS)}", name)
    if canonical in MANIPULATION:
        if not obj:
            return Action.failure(f"{canonical} needs an object id from the visible instances", canonical)
        return Action({"action": canonical, "object": obj.strip()}, f"{canonical} {obj.strip()}")
    return Action({"action": canonical}, canonical)


def parse_reply(reply: str) -> Action:
    """The reply's action: `{"action": ..., "object": ...}` (last JSON object wins), else an action line."""
    if not isinstance(reply, str) or not reply.strip():
        return Action.failure("empty reply")
    for obj in reversed(json_objects(reply)):
        name = obj.get("action")
        if isinstance(name, str) and name.strip():
            target = obj.get("object", obj.get("target"))
            return make_action(name, target if isinstance(target, str) else None)
    matches = _LINE.findall(reply)
    if matches:
        name, target = matches[-1]
        return make_action(name, target or None)
    return Action.failure("no action found: reply with a JSON object {\"action\": ..., \"object\": ...}")
