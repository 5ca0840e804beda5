"""Reading a model's reply: the executed action, its suggested plan and its things to remember.

The executed action is the last `Action: ACTION OBJECT` inside the `<answer>` block (the whole reply when
there is none), matched without regard to case. A valid action word and an object of the scene's list make
a command; otherwise the turn is an invalid action, an invalid object, or (no such line) unparsable; an empty
reply (the `direct` agent has asked three times, as the harness does) is an unparsable turn of its own. The
plan is the raw text after "suggested plan sequence" up to a line starting with "Action:" or "Things to
remember"; the memory is the text after "things to remember" up to the first blank line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from suite.contract.records import Action

from suite_asgard.commands import Command
from suite_asgard.vocabulary import ACTIONS
from suite_asgard.world_rules import INVALID_ACTION, INVALID_OBJECT

ANSWER = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.IGNORECASE | re.DOTALL)
ACTION_LINE = re.compile(r"Action:\s*([A-Z_]+\s+\w+)", re.IGNORECASE)
PLAN_START = re.compile(r"suggested plan sequence\s*:?", re.IGNORECASE)
# the lead-in stays on its line: a `\n\s*` that crossed lines rescanned every following blank line (quadratic)
PLAN_END = re.compile(r"\n[^\S\n]*+(?:action\s*+:|things to remember)|</answer>", re.IGNORECASE)
MEMORY_START = re.compile(r"things to remember\s*:?", re.IGNORECASE)
BLANK_LINE = re.compile(r"\n\s*\n")


def answer_block(reply: str) -> str:
    """The text of the last `<answer>` block, or the whole reply when it has none."""
    blocks = ANSWER.findall(reply)
    return blocks[-1] if blocks else reply


def parse_reply(reply: str | None, objects: Iterable[str]) -> Action:
    """The command of a reply; never raises (an unusable reply is an unparsable command, an empty one its own)."""
    if not reply:  # the harness's test: no content at all (whitespace is a reply without an Action line)
        return Action(value=Command.empty_reply(), text="")
    text = reply
    found = ACTION_LINE.findall(answer_block(text))
    if not found:
        return Action(value=Command.unparsable(), text="")
    word, obj = found[-1].split()
    action = word.upper()
    if action not in ACTIONS:
        return Action(value=Command(INVALID_ACTION, word, obj), text=f"{word} {obj}")
    canonical = {o.lower(): o for o in objects}.get(obj.lower())
    if canonical is None:
        return Action(value=Command(INVALID_OBJECT, action, obj), text=f"{action} {obj}")
    return Action(value=Command.valid(action, canonical), text=f"{action} {canonical}")


def extract_plan(reply: str | None) -> str | None:
    """The raw suggested plan of a reply (looked for in the answer block first), or None."""
    for text in _search_order(reply):
        start = PLAN_START.search(text)
        if start:
            rest = text[start.end():]
            end = PLAN_END.search(rest)
            plan = (rest[: end.start()] if end else rest).strip("\n").rstrip()
            if plan.strip():
                return plan
    return None


def extract_memory(reply: str | None) -> str | None:
    """The raw things-to-remember notes of a reply (answer block first), or None."""
    for text in _search_order(reply):
        start = MEMORY_START.search(text)
        if start:
            rest = text[start.end():].lstrip(" \t").lstrip("\n")
            end = BLANK_LINE.search(rest)
            notes = (rest[: end.start()] if end else rest).rstrip()
            notes = notes.split("</answer>")[0].rstrip()
            if notes.strip():
                return notes
    return None


def _search_order(reply: str | None) -> list[str]:
    text = reply or ""
    blocks = ANSWER.findall(text)
    return [blocks[-1], text] if blocks else [text]
