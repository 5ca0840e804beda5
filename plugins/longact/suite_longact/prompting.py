"""The direct agent's prompt: our wording of the section 6 information, with a bounded action history."""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path
from typing import Any

from suite.contract.records import Observation, StepRecord, Task

PROMPTS = Path(__file__).parent / "prompts"


@cache
def template(name: str, prompt_dir: str | None = None) -> str:
    """A prompt template from the user's folder when it has the file, else ours."""
    if prompt_dir and (Path(prompt_dir) / name).is_file():
        return (Path(prompt_dir) / name).read_text(encoding="utf-8")
    return (PROMPTS / name).read_text(encoding="utf-8")


def instance_lines(instances: list[dict[str, Any]], limit: int) -> str:
    """The visible-instance list, nearest first, at most `limit` lines: id, type and distance (with
    `privileged_hints`, also room, what it rests on, whether it is in reach, and its state)."""
    lines = []
    for d in instances[:limit]:
        if "room" not in d:
            lines.append(f"{d['id']} | {d['type']} | {d['distance']}")
            continue
        reach = "" if d["reachable"] else ", out of reach"
        state = ", ".join(d["state"])
        lines.append(f"{d['id']} | {d['type']} | {d['room']} | {d['on'] or '-'} | {d['distance']}{reach}"
                     + (f" | {state}" if state else ""))
    return "\n".join(lines) or "(nothing)"


def whereabouts(data: dict[str, Any]) -> tuple[str, str]:
    """The line on where the agent is (only with `privileged_hints`), and the instance list's column header."""
    pose = data.get("pose")
    if pose is None:
        return "", "id | type | distance m"
    return (f"You are in the {data.get('room', '?')}; position x={pose['x']} z={pose['z']}, facing {pose['yaw']} "
            f"degrees, camera tilt {pose['horizon']}.\n", "id | type | room | on or in | distance m | state")


def history_lines(history: list[StepRecord], limit: int) -> str:
    """The last `limit` actions with their outcome."""
    lines = [f"{s.index + 1}. {s.feedback}" for s in history[-limit:]] if limit > 0 else []
    return "\n".join(lines) or "(none yet)"


def build_messages(task: Task, observation: Observation, history: list[StepRecord]) -> list[dict[str, Any]]:
    """System rules, then one user turn with the instruction, the state, the history and the images."""
    opts = task.data["prompt"]
    d = observation.data
    last = d.get("last") or {}
    last_text = "none yet" if not last.get("action") else (
        f"{last['action']} succeeded" if last["success"] else f"{last['action']} failed: {last['error']}")
    pose = d.get("pose") or {}
    where, columns = whereabouts(d)
    text = template("step.txt", opts.get("prompt_dir")).format(
        instruction=task.data["instruction"], step=len(history) + 1, max_steps=task.max_steps, where=where,
        columns=columns, room=d.get("room", "?"), x=pose.get("x"), z=pose.get("z"), yaw=pose.get("yaw"),
        horizon=pose.get("horizon"), held=d.get("held") or "nothing", last=last_text,
        instances=instance_lines(d.get("instances") or [], int(opts["max_instances"])),
        history=history_lines(history, int(opts["history"])))
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for image in observation.images:
        if image.png:
            url = "data:image/png;base64," + base64.b64encode(image.png).decode()
            content.append({"type": "image_url", "image_url": {"url": url}})
    system = template("system.txt", opts.get("prompt_dir")).replace("{max_steps}", str(task.max_steps))
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]
