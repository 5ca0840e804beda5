"""The per-turn prompt: our own wording, in replaceable template files, shaped by the condition.

Two messages per turn (stateless), split as the harness splits its prompt at its cache boundary: a system message
with what is fixed for the run (`system.txt`: the actions, the world rules, how to answer, the worked examples),
then a user message with what changes (`main.txt`: the task, image guidance, the sorted object types, the
agent's notes: history with the condition's feedback, the plan and the things to remember from its previous
reply), followed by the images (before and after the last action, or the current one, or none).
`asgard.system_message=false` sends both parts as one user message instead. Templates are read from
`asgard.prompt_dir` when it holds a file of the same name.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from suite.contract.records import Observation, StepRecord, Task
from suite.contract.templates import read_template

from suite_asgard.commands import EMPTY_REPLY
from suite_asgard.conditions import Condition
from suite_asgard.parsing import extract_memory, extract_plan
from suite_asgard.world_rules import UNPARSABLE

PROMPT_DIR = Path(__file__).parent / "prompts"
MEMORY_BLOCK = re.compile(r"<<memory>>\n(.*?)<</memory>>\n", re.DOTALL)
NO_HISTORY = "(none yet: this is your first turn)"


def load_template(name: str, prompt_dir: str | None = None) -> str:
    """A template file, from the user's prompt folder when it has one of that name."""
    return read_template(name, PROMPT_DIR, prompt_dir)


def fill(template: str, **values: str) -> str:
    """Replace `{name}` placeholders (other braces are left alone)."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template


def history_lines(history: list[StepRecord], feedback: str) -> list[str]:
    """The numbered action history (from 0) in the condition's feedback style; unparsable turns are left out, but
    not empty replies (the harness leaves out only its `None None` entries)."""
    lines: list[str] = []
    for step in history:
        info = step.info or {}
        action = info.get("action") or (step.action.text if step.action.ok else None)
        if (info.get("kind") == UNPARSABLE and action != EMPTY_REPLY) or not action:
            continue
        line = f"{len(lines)}. {action}"
        if feedback != "none":
            line += " Success" if info.get("success") else " Failure"
            if feedback == "detailed" and not info.get("success") and info.get("message"):
                line += f": {info['message']}"
        lines.append(line)
    return lines


def agent_notes(history: list[StepRecord], condition: Condition, prompt_dir: str | None) -> str:
    """The notes section: history, then the previous reply's plan and (unless turned off) its memory."""
    previous = history[-1].reply if history else None
    plan = extract_plan(previous)
    memory = extract_memory(previous) if condition.memory else None
    return fill(
        load_template("agent_notes.txt", prompt_dir),
        history="\n".join(history_lines(history, condition.feedback)) or NO_HISTORY,
        plan=fill(load_template("plan.txt", prompt_dir), plan=plan) if plan else "",
        memory=fill(load_template("memory.txt", prompt_dir), memory=memory) if memory else "",
    ).rstrip() + "\n"


def instructions(condition: Condition, prompt_dir: str | None) -> str:
    """How to answer: the think headings (hand check by condition) and the tagged answer format."""
    phrases = json.loads(load_template("phrases.json", prompt_dir))[condition.images]
    if condition.text_only:
        inventory = load_template("inventory_text.txt", prompt_dir)
    else:
        name = "inventory_hand.txt" if condition.hand_opacity > 0 else "inventory_floating.txt"
        inventory = fill(load_template(name, prompt_dir), view=phrases["view"])
    memory = load_template("memory_instructions.txt", prompt_dir) if condition.memory else ""
    return fill(load_template("instructions.txt", prompt_dir), scene=phrases["scene"],
                inventory=inventory.rstrip(), compare=phrases["compare"], memory_instructions=memory)


def examples(condition: Condition, prompt_dir: str | None) -> str:
    """The worked examples, without their things-to-remember parts when memory is off."""
    text = load_template("examples.txt", prompt_dir)
    return MEMORY_BLOCK.sub(lambda m: m.group(1) if condition.memory else "", text)


def world_rules(common_sense: bool, prompt_dir: str | None) -> str:
    """The world rules as the baseline harness gives them; with `common_sense`, our extra hints after them."""
    text = load_template("world_rules.txt", prompt_dir).rstrip()
    if common_sense:
        text += "\n\n" + load_template("common_sense.txt", prompt_dir).rstrip()
    return text


def fixed_text(task: Task) -> str:
    """The part of the prompt that is the same on every turn of a run (the harness's text before its cache
    boundary): the actions, the world rules, how to answer, the worked examples."""
    condition = Condition(**task.data["condition"])
    prompt_dir = task.data["prompt"].get("prompt_dir")
    return fill(
        load_template("system.txt", prompt_dir),
        actions=load_template("actions.txt", prompt_dir).rstrip(),
        world_rules=world_rules(task.data["prompt"].get("common_sense", False), prompt_dir),
        instructions=instructions(condition, prompt_dir).rstrip(),
        examples=examples(condition, prompt_dir).rstrip(),
    ).strip()


def turn_text(task: Task, history: list[StepRecord]) -> str:
    """The part that changes with the task and the turn: the task, image guidance, the objects, the notes."""
    condition = Condition(**task.data["condition"])
    prompt_dir = task.data["prompt"].get("prompt_dir")
    return fill(
        load_template("main.txt", prompt_dir),
        task=task.data["plan"].task_description,
        image_guidance=load_template(f"image_guidance_{condition.images}.txt", prompt_dir).rstrip(),
        objects=", ".join(task.data["objects"]),
        agent_notes=agent_notes(history, condition, prompt_dir).rstrip(),
    ).strip()


def prompt_text(task: Task, history: list[StepRecord]) -> str:
    """The whole text of one turn's prompt (the fixed part, then the turn's part)."""
    return f"{fixed_text(task)}\n\n{turn_text(task, history)}"


def build_messages(task: Task, observation: Observation, history: list[StepRecord]) -> list[dict[str, Any]]:
    """The fixed part as a system message, then a user message with the turn's part and the observation's images
    as PNG data URLs (one user message with both parts when `system_message` is off)."""
    system_message = task.data["prompt"].get("system_message", True)
    text = turn_text(task, history) if system_message else prompt_text(task, history)
    head = [{"role": "system", "content": fixed_text(task)}] if system_message else []
    pngs = [img.png for img in observation.images if img.png is not None]
    if not pngs:
        return [*head, {"role": "user", "content": text}]
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for png in pngs:
        url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return [*head, {"role": "user", "content": parts}]
