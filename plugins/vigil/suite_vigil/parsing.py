"""Reading a reply: exactly one JSON object with `skill_name` and `arguments` (section 6), or an invalid action.

A reply that breaks the contract (not one JSON object, an unknown skill or key, a missing, mistyped or
out-of-range argument) becomes an *invalid action*: the env counts it toward the invalid-action limit and
it changes nothing. Intent aliases are normalised; an unknown report status becomes `invalid`. One
surrounding Markdown code fence is removed first (the paper does not say; a formatting wrapper, not content).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from suite.contract.records import Action

from suite_vigil.vocabulary import INTENT_ALIASES, INTENTS, LOOK_DIRECTIONS, NAV_MODES, SKILLS, STATUSES

# greedy and anchored at both ends: one pass and one step back (a lazy body after `\s*` was quadratic on an unclosed
# fence followed by whitespace)
FENCE = re.compile(r"^```[A-Za-z0-9_-]*+(.*)```$", re.DOTALL)
TOP_KEYS = {"skill_name", "arguments", "thought", "cognitive_state"}
ARG_KEYS = {"navigate": {"mode", "magnitude"}, "look": {"direction", "magnitude"},
            "interact_pixel": {"intent", "x", "y"}, "report": {"status", "summary"}}
MAX_MOVE_STEPS = 20   # grid steps per navigate forward/backward (our bound; the paper gives none)
MAX_TURN = 360.0      # degrees per turn
MAX_PITCH = 90.0      # degrees per look
NORMALIZED_MAX = 1000


@dataclass
class VigilAction:
    """One parsed step: a skill with normalised arguments, or an invalid action with its reason."""

    skill: str | None
    arguments: dict[str, Any] = field(default_factory=dict)
    thought: Any = None
    cognitive_state: Any = None
    invalid: str | None = None

    def signature(self) -> str:
        """The invocation as text (skill and normalised arguments): retries repeat a signature."""
        return json.dumps({"skill": self.skill, "arguments": self.arguments}, sort_keys=True)


class _Invalid(Exception):
    pass


def _number(args: dict[str, Any], key: str) -> float:
    value = args.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Invalid(f"arguments.{key} must be a number")
    try:
        number = float(value)  # an integer of hundreds of digits does not fit a float
    except OverflowError:
        raise _Invalid(f"arguments.{key} is out of range") from None
    if not math.isfinite(number):
        raise _Invalid(f"arguments.{key} must be a number")
    return number


def _choice(args: dict[str, Any], key: str, options: tuple[str, ...]) -> str:
    value = args.get(key)
    if value not in options:
        raise _Invalid(f"arguments.{key} must be one of {', '.join(options)}")
    return value


def _coordinate(args: dict[str, Any], key: str, limit: int) -> int:
    value = _number(args, key)
    if value != int(value) or not 0 <= value <= limit:
        raise _Invalid(f"arguments.{key} must be an integer in [0, {limit}]")
    return int(value)


def normalize_intent(value: Any) -> str | None:
    """The canonical intent of a name or alias (case and spaces ignored), or None."""
    if not isinstance(value, str):
        return None
    key = value.strip().lower().replace(" ", "_").replace("-", "_")
    key = INTENT_ALIASES.get(key, key)
    return key if key in INTENTS else None


def normalize_status(value: Any) -> str:
    """The canonical report status (case and spaces ignored); anything else is `invalid`."""
    key = value.strip().lower() if isinstance(value, str) else ""
    return key if key in STATUSES else "invalid"


def _arguments(skill: str, args: dict[str, Any], frame: tuple[int, int], normalized: bool) -> dict[str, Any]:
    unknown = sorted(set(args) - ARG_KEYS[skill])
    if unknown:
        raise _Invalid(f"{skill} takes no argument(s) {', '.join(unknown)}")
    if skill == "navigate":
        mode = _choice(args, "mode", NAV_MODES)
        mag = _number(args, "magnitude")
        if mode in ("forward", "backward"):
            if mag != int(mag) or not 1 <= mag <= MAX_MOVE_STEPS:
                raise _Invalid(f"arguments.magnitude must be a step count from 1 to {MAX_MOVE_STEPS}")
            return {"mode": mode, "magnitude": int(mag)}
        if not 0 < mag <= MAX_TURN:
            raise _Invalid(f"arguments.magnitude must be degrees in (0, {MAX_TURN:g}]")
        return {"mode": mode, "magnitude": mag}
    if skill == "look":
        direction = _choice(args, "direction", LOOK_DIRECTIONS)
        mag = _number(args, "magnitude")
        if not 0 < mag <= MAX_PITCH:
            raise _Invalid(f"arguments.magnitude must be degrees in (0, {MAX_PITCH:g}]")
        return {"direction": direction, "magnitude": mag}
    if skill == "interact_pixel":
        intent = normalize_intent(args.get("intent"))
        if intent is None:
            raise _Invalid(f"arguments.intent must be one of {', '.join(INTENTS)} (or a known alias)")
        if intent == "drop" and "x" not in args and "y" not in args:
            return {"intent": intent}
        width, height = (NORMALIZED_MAX, NORMALIZED_MAX) if normalized else (frame[0] - 1, frame[1] - 1)
        return {"intent": intent, "x": _coordinate(args, "x", width), "y": _coordinate(args, "y", height)}
    status = args.get("status")
    if not isinstance(status, str):
        raise _Invalid("arguments.status must be a string")
    summary = args.get("summary")
    if not isinstance(summary, str):
        raise _Invalid("arguments.summary must be a string")
    return {"status": normalize_status(status), "summary": summary, "raw_status": status}


def parse_reply(reply: str | None, frame: tuple[int, int] = (640, 480), normalized: bool = False) -> Action:
    """The action of a reply; never raises (anything off-contract is an invalid action with its reason)."""
    text = (reply or "").strip()
    fenced = FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    obj: Any = None
    try:
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise _Invalid(f"not exactly one JSON object ({str(exc)[:80]})") from None
        if not isinstance(obj, dict):
            raise _Invalid("not a JSON object")
        unknown = sorted(set(obj) - TOP_KEYS)
        if unknown:
            raise _Invalid(f"unknown key(s) {', '.join(map(str, unknown))}")
        skill = obj.get("skill_name")
        if skill not in SKILLS:
            raise _Invalid(f"skill_name must be one of {', '.join(SKILLS)}")
        args = obj.get("arguments")
        if not isinstance(args, dict):
            raise _Invalid("arguments must be a JSON object")
        value = VigilAction(skill, _arguments(skill, args, frame, normalized), obj.get("thought"),
                            obj.get("cognitive_state"))
    except _Invalid as exc:
        keep = obj if isinstance(obj, dict) else {}
        value = VigilAction(None, {}, keep.get("thought"), keep.get("cognitive_state"), invalid=str(exc))
    return Action(value=value, text=text[:2000])
