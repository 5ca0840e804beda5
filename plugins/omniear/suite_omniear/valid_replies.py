"""A valid reply to any step, for the offline baseline models (`scripted/random`, `scripted/first-option`)."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import TypeVar

from suite.contract.records import Observation, Task

#: A command line of the available-actions text: `VERB` then its placeholders, e.g. `PLACE <object_id> <in|on> ...`.
COMMAND = re.compile(r"^([A-Z][A-Z_]*)((?:\s+<[^>]+>)*)\s*$", re.MULTILINE)
PLACEHOLDER = re.compile(r"<([^>]+)>")
NODE_ID = re.compile(r"\(ID: ([^,)\s]+)")
AGENT_ID = re.compile(r"agent_\d+")
T = TypeVar("T")


def _pick(options: Sequence[T], rng: random.Random | None) -> T:
    return options[0] if rng is None else rng.choice(options)


def _command(template: str, args: str, ids: list[str], rng: random.Random | None) -> str:
    words = [template]
    for slot in PLACEHOLDER.findall(args):
        words.append(_pick(slot.split("|") if "|" in slot else ids, rng))
    return " ".join(words)


def valid_reply(task: Task, observation: Observation, rng: random.Random | None) -> str:
    """A thought and one command per agent from the step's available actions, on ids the observation shows."""
    commands = COMMAND.findall(observation.data["actions"])
    ids = [i for i in dict.fromkeys(NODE_ID.findall(observation.text)) if not AGENT_ID.fullmatch(i)] or ["none"]
    agents = int(task.data["agents"])
    lines = ["Thought: a baseline command."]
    for agent in range(1, agents + 1):
        template, args = _pick(commands, rng) if commands else ("DONE", "")
        lines.append(f"Agent_{agent}_Action: {_command(template, args, ids, rng)}")
    return "\n".join(lines)


def stop_reply(task: Task, observation: Observation) -> str:
    """DONE for every agent at once (the generic `stop-at-once` baseline)."""
    agents = int(task.data["agents"])
    return "\n".join(["Thought: done."] + [f"Agent_{agent}_Action: DONE" for agent in range(1, agents + 1)])


def explore_then_done(task: Task, observation: Observation, turn: int) -> str:
    """The `fixed-plan` baseline's reply at `turn`: every agent explores where it stands, then declares DONE; the
    same two turns for every task, never reading the observation."""
    command = "EXPLORE" if turn == 0 else "DONE"
    agents = int(task.data["agents"])
    lines = [f"Agent_{agent}_Action: {command}" for agent in range(1, agents + 1)]
    return "\n".join(["Thought: a fixed plan.", *lines])
