"""The prompt (section 6): a system message of four blocks in fixed order, and one user message per step.

Block 1 (task), block 2 (the allowed actions, serialised from the registry below), block 3 (grounding rules,
with the normalized_1000 rule first for models that use it) and block 4 (output format) are our own wording
of the paper's rules. `vigil.prompt=neutral` drops block 1's two sentences against claiming completion from
appearance alone, and nothing else. The user message holds the instruction, up to 20 earlier turns as text
(the agent's own action, thought and cognitive_state; with +FB the two booleans; an invalid reply only as
"invalid action") and the current frame, labelled role=current. Two extras the paper's agent is not given are
opt-in: `vigil.step_count` ("Step k of at most N") and `vigil.invalid_reason` (why a reply was invalid).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from suite.records import Observation, StepRecord, Task
from suite_vigil.parsing import MAX_MOVE_STEPS, MAX_PITCH, VigilAction
from suite_vigil.vocabulary import INTENTS, LOOK_DIRECTIONS, NAV_MODES, STATUSES

PROFILE = "pure_rgb_dialogue_history_baseline"
POLICY = "native_embodied_public_evidence"
POLICY_VERSION = "suite-1"
HISTORY_TURNS = 20
PROMPTS = ("default", "neutral")

_TASK_OPEN = (
    "You control an embodied agent inside a simulated 3D house and see it through the agent's own camera. "
    "Each step shows only what is in front of you now, so act under partial observability. Base every decision "
    "on the task, the current image, the recent history of this episode and the allowed actions below. Your "
    "actions are physical attempts in the scene, not symbolic commands that are sure to work. Rely only on what "
    "this episode has shown you: do not assume any hidden simulator state or any hidden success signal. When "
    "the task asks for the state of an object, report the state you observe (such as on/off or open/closed) "
    "instead of translating it into success or fail."
)
_ANTI_CLAIM = (
    "Seeing the target, standing near it or having tried an action does not by itself mean the task is done; "
    "never report success because the scene merely looks plausible. When the task requires changing the world, "
    "do not claim it is complete on appearance alone."
)
_GROUNDING = (
    "## Grounding Rules\n"
    "- Judge visibility and choose interact_pixel targets only from the frame whose 'role' is 'current'.\n"
    "- interact_pixel acts on whatever object is under the given location of the current RGB frame.\n"
    "- Do not assume the task has succeeded in secret; rely on later observations of this episode and on the "
    "feedback fields it allows."
)
_NORMALIZED = ("- Give x and y in normalized_1000 coordinates: integers from 0 to 1000, where (0,0) is the top-left "
               "corner and (1000,1000) the bottom-right corner of the image.")
_OUTPUT = (
    "## Output format\n"
    "Answer with exactly one JSON object and nothing else. Required keys: 'skill_name', 'arguments'. Optional "
    "keys: 'thought', 'cognitive_state'. Use the action names exactly as listed under Allowed actions; do not "
    "make up aliases or synonyms. No prose, no markdown, no code fences, no second JSON object. If you add "
    "'thought', keep it to one short sentence."
)

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


def system_prompt(instruction: str, variant: str = "default", normalized: bool = False) -> str:
    """The four blocks in order, with the task instruction at the end of block 1."""
    task = _TASK_OPEN if variant == "neutral" else f"{_TASK_OPEN} {_ANTI_CLAIM}"
    grounding = _GROUNDING.replace("## Grounding Rules\n", "## Grounding Rules\n" + _NORMALIZED + "\n") \
        if normalized else _GROUNDING
    return "\n\n".join([f"{task} Task: {instruction}", _schema_block(), grounding, _OUTPUT])


def prompt_sha256(variant: str = "default", normalized: bool = False, instruction: str = "<TASK_INSTRUCTION>") -> str:
    """SHA-256 of the rendered system prompt (with the placeholder instruction: the run's template hash)."""
    return hashlib.sha256(system_prompt(instruction, variant, normalized).encode()).hexdigest()


def _turn(step: StepRecord, feedback: bool, invalid_reason: bool = False) -> str:
    value = step.action.value
    if not isinstance(value, VigilAction) or value.invalid is not None:
        reason = value.invalid if isinstance(value, VigilAction) else step.action.parse_error
        return f"step {step.index + 1}: invalid action" + (f" ({reason})" if invalid_reason else "")
    out: dict[str, Any] = {"skill_name": value.skill,
                           "arguments": {k: v for k, v in value.arguments.items() if k != "raw_status"}}
    if value.thought is not None:
        out["thought"] = value.thought
    if value.cognitive_state is not None:
        out["cognitive_state"] = value.cognitive_state
    line = f"step {step.index + 1}: {json.dumps(out, ensure_ascii=False)}"
    if feedback:
        info = step.info or {}
        line += (f" -> too_far={str(bool(info.get('too_far'))).lower()}, "
                 f"path_blocked={str(bool(info.get('path_blocked'))).lower()}")
    return line


def build_messages(task: Task, observation: Observation, history: list[StepRecord]) -> list[dict[str, Any]]:
    """System prompt, then one user message: instruction, (opt-in) step count, text history and the current frame."""
    settings = task.data["prompt"]
    ep = task.data["episode"]
    system = system_prompt(ep["instruction"], settings["variant"], settings["normalized"])
    recent = history[-HISTORY_TURNS:]
    text = [f"Task: {ep['instruction']}"]
    if settings.get("step_count"):
        text.append(f"Step {len(history) + 1} of at most {ep['max_steps']}.")
    if recent:
        text.append("Your previous steps (oldest first):")
        text += [_turn(s, settings["feedback"], bool(settings.get("invalid_reason"))) for s in recent]
    else:
        text.append("No previous steps.")
    parts: list[dict[str, Any]] = [{"type": "text", "text": "\n".join(text)}]
    for image in observation.images:
        parts.append({"type": "text", "text": json.dumps({"role": image.label or "current"})})
        if image.png is not None:
            url = "data:image/png;base64," + base64.b64encode(image.png).decode()
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return [{"role": "system", "content": system}, {"role": "user", "content": parts}]
