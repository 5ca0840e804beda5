"""The prompt (section 6): a system message of four blocks in fixed order, and one user message per step.

Block 1 (task), block 2 (the allowed actions, serialised from the registry below), block 3 (grounding rules,
with the normalized_1000 rule first for models that use it) and block 4 (output format) are our own wording
of the paper's rules, in `prompts/*.txt`; `vigil.prompt_dir` replaces any of those files (e.g. with the paper's
App. A text); block 2 is always built from the registry. `vigil.prompt=neutral` drops block 1's two sentences
against claiming completion from appearance alone (`anti_claim.txt`), and nothing else. The history is a
dialogue of up to 20 earlier turns: each a user turn and the model's own reply as it sent it (frames only in the
current turn; after an invalid reply the next user turn says only "invalid action"; with +FB it gives the two
booleans), then the current user turn with the instruction and the frame, labelled role=current. Two
extras the paper's agent is not given are opt-in: `vigil.step_count` ("Step k of at most N") and
`vigil.invalid_reason` (why a reply was invalid).
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from suite.contract.records import Observation, StepRecord, Task
from suite.contract.templates import read_template

from suite_vigil.parsing import MAX_MOVE_STEPS, MAX_PITCH, VigilAction
from suite_vigil.vocabulary import INTENTS, LOOK_DIRECTIONS, NAV_MODES, STATUSES

PROFILE = "pure_rgb_dialogue_history_baseline"
POLICY = "native_embodied_public_evidence"
POLICY_VERSION = "suite-1"
HISTORY_TURNS = 20
PROMPTS = ("default", "neutral")

PROMPT_DIR = Path(__file__).parent / "prompts"


def block(name: str, prompt_dir: str | None = None) -> str:
    """One template of the system prompt (`<name>.txt`), from `prompt_dir` when it has the file, else ours."""
    return read_template(f"{name}.txt", PROMPT_DIR, prompt_dir).strip()


#: The action registry: skill -> (purpose, [(argument, type, required, description)], usage note).
REGISTRY: dict[str, tuple[str, list[tuple[str, str, str, str]], str]] = {
    "navigate": ("Move or turn the body.", [
        ("mode", f"enum {{{', '.join(NAV_MODES)}}}", "required", "which way to move or turn"),
        ("magnitude", "number", "required",
         f"forward/backward: number of 0.25 m steps (1-{MAX_MOVE_STEPS}); turns: degrees"),
    ], "A move that hits an obstacle does not happen."),
    "look": ("Tilt the camera.", [
        ("direction", f"enum {{{', '.join(LOOK_DIRECTIONS)}}}", "required", "tilt up or down"),
        ("magnitude", "number", "required", f"pitch change in degrees (up to {MAX_PITCH:g}); the camera tilts "
                                            "between 30 degrees up and 60 degrees down"),
    ], ""),
    "interact_pixel": ("Act on the object under a pixel of the current frame.", [
        ("intent", f"enum {{{', '.join(INTENTS)}}}", "required", "what to do to that object"),
        ("x", "integer", "required unless intent is drop", "horizontal pixel coordinate in the current frame"),
        ("y", "integer", "required unless intent is drop", "vertical pixel coordinate in the current frame"),
    ], "Objects farther than 1.5 m cannot be reached. ground: point at the object; activate/deactivate: switch "
       "on/off; open_access/close_access: open/close; pick: pick up; place: put what you hold into or onto the "
       "object under the pixel; drop: let go of what you hold."),
    "report": ("End the episode with your judgment of the task state (the only way to end it).", [
        ("status", f"enum {{{', '.join(STATUSES)}}}", "required", "the terminal status"),
        ("summary", "string", "required", "a brief justification of the status"),
    ], ""),
}


def _schema_block() -> str:
    lines = ["## Allowed actions - " + "|".join(REGISTRY)]
    for skill, (purpose, args, note) in REGISTRY.items():
        lines.append(f"- {skill}: {purpose}")
        lines += [f"    - {name} ({kind}, {req}): {desc}" for name, kind, req, desc in args]
        if note:
            lines.append(f"    note: {note}")
    return "\n".join(lines)


def system_prompt(instruction: str, variant: str = "default", normalized: bool = False,
                  prompt_dir: str | None = None) -> str:
    """The four blocks in order, with the task instruction at the end of block 1 and the normalized_1000 rule, when
    asked for, first under block 3's heading line."""
    task = block("task", prompt_dir)
    if variant != "neutral":
        task = f"{task} {block('anti_claim', prompt_dir)}"
    grounding = block("grounding", prompt_dir)
    if normalized:
        heading, _, rules = grounding.partition("\n")
        grounding = "\n".join(part for part in (heading, block("normalized", prompt_dir), rules) if part)
    return "\n\n".join([f"{task} Task: {instruction}", _schema_block(), grounding, block("output", prompt_dir)])


def prompt_sha256(variant: str = "default", normalized: bool = False, instruction: str = "<TASK_INSTRUCTION>",
                  prompt_dir: str | None = None) -> str:
    """SHA-256 of the rendered system prompt (with the placeholder instruction: the run's template hash)."""
    return hashlib.sha256(system_prompt(instruction, variant, normalized, prompt_dir).encode()).hexdigest()


def _reply_of(step: StepRecord) -> str:
    """The model's own reply at a step, as it sent it; for an agent that sends none, its action as JSON."""
    if step.reply is not None:
        return step.reply
    value = step.action.value
    if isinstance(value, VigilAction) and value.invalid is None:
        args = {k: v for k, v in value.arguments.items() if k != "raw_status"}
        return json.dumps({"skill_name": value.skill, "arguments": args}, ensure_ascii=False)
    return step.action.text or ""


def _after(step: StepRecord, feedback: bool, invalid_reason: bool) -> list[str]:
    """What the next user turn says of a step: only that it was invalid (why, with `invalid_reason`), or with +FB
    the two booleans; nothing else."""
    value = step.action.value
    if not isinstance(value, VigilAction) or value.invalid is not None:
        reason = value.invalid if isinstance(value, VigilAction) else step.action.parse_error
        return ["invalid action" + (f" ({reason})" if invalid_reason and reason else "")]
    if feedback:
        info = step.info or {}
        return [f"too_far={str(bool(info.get('too_far'))).lower()}, "
                f"path_blocked={str(bool(info.get('path_blocked'))).lower()}"]
    return []


def build_messages(task: Task, observation: Observation, history: list[StepRecord]) -> list[dict[str, Any]]:
    """The system prompt, then the last 20 turns as a dialogue (a user turn, then the model's own reply as it sent
    it; earlier frames are not sent again), then the current user turn: the instruction, (opt-in) the step count,
    what the last reply led to, and the current frame."""
    settings = task.data["prompt"]
    ep = task.data["episode"]
    feedback, reason = bool(settings["feedback"]), bool(settings.get("invalid_reason"))
    system = system_prompt(ep["instruction"], settings["variant"], settings["normalized"], settings.get("prompt_dir"))
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    recent = history[-HISTORY_TURNS:]
    for n, step in enumerate(recent):
        said = [f"Task: {ep['instruction']}"] if n == 0 else []
        if n > 0:
            said += _after(recent[n - 1], feedback, reason)
        said.append(f"(step {step.index + 1}: its frame is not shown again)")
        messages += [{"role": "user", "content": "\n".join(said)},
                     {"role": "assistant", "content": _reply_of(step)}]
    text = [f"Task: {ep['instruction']}"]
    if settings.get("step_count"):
        text.append(f"Step {len(history) + 1} of at most {ep['max_steps']}.")
    if recent:
        text += _after(recent[-1], feedback, reason)
    parts: list[dict[str, Any]] = [{"type": "text", "text": "\n".join(text)}]
    for image in observation.images:
        parts.append({"type": "text", "text": json.dumps({"role": image.label or "current"})})
        if image.png is not None:
            url = "data:image/png;base64," + base64.b64encode(image.png).decode()
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return [*messages, {"role": "user", "content": parts}]
