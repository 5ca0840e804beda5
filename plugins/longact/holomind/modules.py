"""HoloMind's model-driven modules: each one is a litellm call with its own model (agent.holomind.modules.*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from suite.errors import ConfigError
from suite.records import Usage
from suite_longact.holomind.caps import CapReached, Caps
from suite_longact.parsing import json_objects

PROMPTS = Path(__file__).parent / "prompts"
MODULES = ("high_planner", "low_planner", "executor", "critic")


@cache
def prompt(name: str) -> str:
    """A module's system prompt."""
    return (PROMPTS / f"{name}.txt").read_text(encoding="utf-8")


@dataclass
class CallLog:
    """The model calls made since the last action: their usage, replies, the last prompt, and one record per call
    (module, model, reply: what `suite replay` serves back call by call)."""

    usage: Usage = field(default_factory=Usage)
    replies: list[str] = field(default_factory=list)
    prompt: list[dict[str, Any]] | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)

    def add(self, module: str, messages: list[dict[str, Any]], reply: Any) -> None:
        """Account one call."""
        self.usage.add(reply)  # tokens served from the cache apart from those spent
        self.replies.append(f"[{module} {reply.model}] {reply.text}")
        self.prompt = messages
        self.calls.append({"module": module, "model": reply.model, "reply": reply.text})


def module_clients(ctx: Any, section: Any) -> dict[str, Any]:
    """One client per module: the run's model unless `modules.<name>.model` names another (same limiter, ledger,
    cache and retry policy as the run's client, so --max-cost and the cache cover every module)."""
    base = ctx.model
    if base is None:
        raise ConfigError("agent 'holomind' needs a model: pass --model (a litellm model string)")
    clients = {}
    for name in MODULES:
        model = ((section.get("modules") or {}).get(name) or {}).get("model")
        if not model or model == base.model:
            clients[name] = base
            continue
        from suite.models.client import ModelClient

        if not hasattr(base, "ledger"):
            raise ConfigError(f"agent.holomind.modules.{name}.model needs the local executor")
        client = ModelClient(str(model), limiter=base.limiter, ledger=base.ledger, cache=base.cache,
                             retry=base.retry, max_tokens=base._max_tokens or None)
        client.check_api_key()
        clients[name] = client
    return clients


class Modules:
    """The four modules' calls; a reply that is not the JSON asked for counts as that module failing."""

    def __init__(self, clients: dict[str, Any], episode: str, caps: Caps | None = None) -> None:
        self.clients = clients
        self.episode = episode
        self.caps = caps or Caps()
        self.log = CallLog()
        self.step = 0  # the episode step these calls decide (the agent sets it each turn): calls are keyed by it

    async def ask(self, module: str, system: str, user: str) -> dict[str, Any] | None:
        """One call; the last JSON object of the reply, or None."""
        if len(self.log.calls) >= self.caps.calls_per_step:
            raise CapReached(f"{len(self.log.calls)} model calls without an action "
                             f"(agent.holomind.max_calls_per_step={self.caps.calls_per_step})")
        messages = [{"role": "system", "content": prompt(system)}, {"role": "user", "content": user}]
        reply = await self.clients[module].complete(messages, episode=self.episode, step=self.step)
        self.log.add(module, messages, reply)
        found = json_objects(reply.text)
        return found[-1] if found else None

    async def decompose(self, instruction: str, memory: str) -> list[dict[str, Any]]:
        """The goal DAG: [{id, goal, after}]; the whole instruction as one goal when the reply is unusable."""
        out = await self.ask("high_planner", "high_decompose", f"Instruction: {instruction}\n\nMemory:\n{memory}")
        goals = out.get("goals") if out else None
        if not isinstance(goals, list) or not goals:
            return [{"id": "g1", "goal": instruction, "after": []}]
        if len(goals) > self.caps.goals:
            raise CapReached(f"the high-level planner gave {len(goals)} goals "
                             f"(agent.holomind.max_goals={self.caps.goals})")
        clean = []
        for i, g in enumerate(goals):
            if isinstance(g, dict) and isinstance(g.get("goal"), str):
                after = g.get("after") if isinstance(g.get("after"), list) else []  # a number or text is no list
                gid = g.get("id")
                clean.append({"id": str(gid) if isinstance(gid, str | int) else f"g{i + 1}", "goal": g["goal"],
                              "after": [str(a) for a in after if isinstance(a, str | int)]})
        return clean or [{"id": "g1", "goal": instruction, "after": []}]

    async def refine(self, goal: str, done: list[str], memory: str) -> str:
        """The next goal rewritten to stand on its own."""
        finished = "\n".join(f"- {d}" for d in done) or "- none"
        out = await self.ask("high_planner", "high_refine",
                             f"Goals done:\n{finished}\n\nNext goal: {goal}\n\nMemory:\n{memory}")
        text = out.get("goal") if out else None
        return text if isinstance(text, str) and text.strip() else goal

    async def ground(self, goal: str, known: str, feedback: str) -> list[str]:
        """Ordered sub-goals for a refined goal."""
        out = await self.ask("low_planner", "low_ground",
                             f"Goal: {goal}\n\nSpatial memory (id | type | room | on or in | state):\n{known}\n\n"
                             f"Critic feedback: {feedback or 'none'}")
        subs = out.get("subgoals") if out else None
        return [s for s in subs if isinstance(s, str) and s.strip()] if isinstance(subs, list) else []

    async def translate(self, subgoal: str, known: str, visible: str, feedback: str) -> tuple[str, str | None]:
        """A skill call for a sub-goal: (skill, target)."""
        out = await self.ask("executor", "executor",
                             f"Sub-goal: {subgoal}\n\nIn view now:\n{visible}\n\nRemembered:\n{known}\n\n"
                             f"Critic feedback: {feedback or 'none'}")
        if not out or not isinstance(out.get("skill"), str):
            return "", None
        target = out.get("target")
        named = isinstance(target, str | int) and target not in ("", "null")
        return out["skill"].strip(), str(target) if named else None

    async def judge(self, subgoal: str, call: str, result: str, state: str,
                    experience: str) -> tuple[str, str, str | None]:
        """(verdict, diagnosis, rule) for the skill that just ran; an unusable reply is a Replan."""
        out = await self.ask("critic", "critic",
                             f"Sub-goal: {subgoal}\nSkill call: {call}\nResult: {result}\n\nNow: {state}\n\n"
                             f"Experience:\n{experience}")
        verdict = out.get("verdict") if out else None  # only text is read: str() of any JSON value could raise
        verdict = verdict.strip().capitalize() if isinstance(verdict, str) else ""
        if verdict not in ("Pass", "Refine", "Replan"):
            return "Replan", "the critic's reply was not a verdict", None
        rule, diagnosis = out.get("rule"), out.get("diagnosis")
        return (verdict, diagnosis if isinstance(diagnosis, str) else "",
                rule if isinstance(rule, str) and rule.strip() else None)
