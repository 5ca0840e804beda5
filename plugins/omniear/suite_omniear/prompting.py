"""OmniEAR prompts (our own wording, replaceable template files), history rendering and reply parsing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from suite.contract.records import Action, StepRecord

PROMPT_DIR = Path(__file__).parent / "prompts"
#: Reply prefixes the reference extractor accepts for the single agent (first match wins).
SINGLE_TAG = re.compile(r"^\s*(?:Agent_1_Action|Agnet_1_Action|Agent_1\.Action|Action|动作)\s*[:：]\s*(.*)$")
TRAILING = "。，！？.!?"
PARSE_FAILED = "PARSE_FAILED"
#: The config keys of the `omniear` section that shape the prompt.
SETTINGS = ("observation_mode", "max_history_single", "max_history_multi", "prompt_dir")


def template_name(agents: int, observation_mode: str) -> str:
    """The template family: single_/centralized_ x explore/global."""
    return f"{'single' if agents == 1 else 'centralized'}_{observation_mode}"


def load_template(name: str, part: str, prompt_dir: str | None = None) -> str:
    """A template file (`<name>.<part>.txt`), from the user's prompt folder when it has one."""
    if prompt_dir:
        custom = Path(prompt_dir) / f"{name}.{part}.txt"
        if custom.is_file():
            return custom.read_text(encoding="utf-8")
    return (PROMPT_DIR / f"{name}.{part}.txt").read_text(encoding="utf-8")


def _agent_results(step: StepRecord, agents: int) -> dict[str, dict[str, str]]:
    if step.action.ok:
        return step.info.get("results", {})
    return {f"agent_{i}": {"status": "FAILURE", "message": f"LLM response parsing failed: Agent_{i}_Action not found"}
            for i in range(1, agents + 1)}


def _commands(step: StepRecord, agents: int) -> dict[str, str]:
    if step.action.ok:
        return dict(step.action.value)
    return {f"agent_{i}": PARSE_FAILED for i in range(1, agents + 1)}


def history_summary(history: list[StepRecord], agents: int, max_single: int = 20, max_multi: int = 35) -> str:
    """The action history as the reference shows it: full replies for one agent, command pairs for two."""
    if not history:
        return "No actions have been taken yet."
    lines = ["Recent Action History:"]
    if agents == 1:
        for step in history[-max_single:]:
            result = _agent_results(step, 1).get("agent_1", {})
            said = step.reply if step.reply is not None else step.action.text
            outcome = f"{result.get('status')} - {result.get('message')}"
            lines.append(f"{step.index + 1}. {said}\n   Execution Result: {outcome}")
        return "\n".join(lines)
    for step in history[-max_multi:]:
        cmds, results = _commands(step, agents), _agent_results(step, agents)
        acts = ", ".join(f"{a}={c}" for a, c in cmds.items())
        res = "; ".join(f"{a}: {results.get(a, {}).get('message', '')}" for a in cmds)
        lines.append(f"{step.index + 1}. Action: {acts}, Result: {res}")
    return "\n".join(lines)


def build_messages(task_description: str, observation: str, actions_text: str, history: list[StepRecord],
                   agents: int, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """System and user messages for one step (stateless: the history is inside the user message)."""
    name = template_name(agents, str(settings["observation_mode"]))
    prompt_dir = settings.get("prompt_dir")
    user = load_template(name, "user", prompt_dir)
    values = {
        "environment_description": observation,
        "task_description": task_description,
        "available_actions_list": actions_text,
        "history_summary": history_summary(history, agents, int(settings["max_history_single"]),
                                           int(settings["max_history_multi"])),
    }
    for key, value in values.items():
        user = user.replace("{" + key + "}", value)
    return [{"role": "system", "content": load_template(name, "system", prompt_dir)},
            {"role": "user", "content": user}]


def _single_command(reply: str) -> str:
    lines = reply.splitlines()
    for line in lines:
        match = SINGLE_TAG.match(line)
        if match:
            return match.group(1).strip().rstrip(TRAILING)
    nonempty = [line.strip() for line in lines if line.strip()]
    return nonempty[-1] if nonempty else ""


def _tagged(reply: str, agent: int) -> str | None:
    match = re.search(rf"Agent_{agent}[_.]Action\s*[:：]\s*(.*)", reply)
    return match.group(1).strip().rstrip(TRAILING) if match else None


def parse_reply(reply: str, agents: int) -> Action:
    """Commands per agent; the single agent falls back to the last line, two agents need both tags."""
    reply = reply or ""
    if agents == 1:
        command = _single_command(reply)
        return Action(value={"agent_1": command}, text=command)
    commands = {f"agent_{i}": _tagged(reply, i) for i in range(1, agents + 1)}
    missing = [a for a, c in commands.items() if c is None]
    if missing:
        return Action.failure(f"{', '.join(m.replace('agent', 'Agent') + '_Action' for m in missing)} not found",
                              text=PARSE_FAILED)
    return Action(value=commands, text=" | ".join(f"{a}: {c}" for a, c in commands.items()))
