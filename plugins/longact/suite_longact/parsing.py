"""The direct agent's reply parser: a JSON object first, then a lenient `Action [object]` line."""

from __future__ import annotations

import json
import re
from itertools import islice
from typing import Any

from suite.contract.records import Action

from suite_longact.vocabulary import ACTIONS, MANIPULATION

_BY_LOWER = {a.lower(): a for a in ACTIONS}
# Every quantifier that could backtrack is possessive and the line's lead-in stays on its line, so a reply is
# scanned in time linear in its length (a `^\W*` that crossed lines was quadratic on replies of `-\n`).
_LINE = re.compile(
    r"(?im)^[^\w\n]*+(?:action[^\S\n]*+[:=]\s*+)?(" + "|".join(ACTIONS) + r")\b[\s:(,]*+([A-Za-z][\w|.+\-]*+)?"
)
_FENCE = re.compile(r"```(?:json)?(.*?)```", re.S)
#: inside an object: a (closed) string, a run of braces, or a quote that opens a string never closed
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*+"|\{++|\}++|"', re.S)
#: how many characters of candidate objects are decoded, as a multiple of the text's length (bounds the retries
#: inside nested spans that do not decode, so a reply of nested garbage costs linear time)
DECODE_BUDGET = 4
#: brace runs and strings looked at inside objects: a reply is read for JSON up to there (an action or a plan needs
#: a few dozen; a reply of a million braces would otherwise cost a million steps of Python)
MAX_TOKENS = 4096
#: fenced blocks looked at before the whole reply
MAX_FENCES = 16


def _spans(blob: str) -> list[tuple[int, int]]:
    """The (start, end) of every balanced `{...}` (braces inside its strings not counted) among the first
    MAX_TOKENS brace runs and strings, by start."""
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    tokens = 0
    pos = blob.find("{")
    while pos != -1:
        for m in _TOKEN.finditer(blob, pos):
            tokens += 1
            if tokens > MAX_TOKENS:
                return sorted(spans)
            tok = m.group()
            if tok[0] == "{":
                opened.extend(range(m.start(), m.end()))
            elif tok[0] == "}":
                for close in range(m.start(), m.start() + min(len(tok), len(opened))):
                    spans.append((opened.pop(), close + 1))
            elif len(tok) == 1:  # a string never closed: no object closes after it
                return sorted(spans)
            if not opened:  # back outside every object: quotes in prose are not strings, skip to the next brace
                pos = blob.find("{", m.end())
                break
        else:
            break
    return sorted(spans)


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object in the reply (fenced blocks first), in order; linear in the reply's length, never raises."""
    fences = [m.group(1) for m in islice(_FENCE.finditer(text), MAX_FENCES)]
    for blob in [*fences, text]:
        out: list[dict[str, Any]] = []
        budget = DECODE_BUDGET * len(blob) + 65536
        taken = -1
        for start, end in _spans(blob):
            if start < taken:  # inside an object already read
                continue
            budget -= end - start
            if budget < 0:
                break
            try:
                value = json.loads(blob[start:end])
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                out.append(value)
                taken = end
        if out:
            return out
    return []


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
