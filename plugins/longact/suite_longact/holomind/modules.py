"""HoloMind's model-driven modules: each one is a litellm call with its own model (agent.holomind.modules.*).

Every call is logged (module, model, the messages it sent, reply, verdict) so the trace keeps them all; the modules
named in `image_modules` get the current frames as images, the others text only."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from suite.contract.errors import ConfigError
from suite.contract.records import Image, Usage

from suite_longact.holomind.caps import CapReached, Caps
from suite_longact.parsing import json_objects

PROMPTS = Path(__file__).parent / "prompts"
MODULES = ("high_planner", "low_planner", "executor", "critic")
#: what each module reads (paper section 4): the planners reason over text (the instruction, the memories, the
#: critic's feedback), the executor and the critic over the current observation as well
IMAGE_MODULES = ("executor", "critic")
#: the frames those modules get by default (of the images `longact.images` renders)
IMAGE_KINDS = ("rgb",)


@cache
def prompt(name: str, prompt_dir: str | None = None) -> str:
    """A module's system prompt: from `agent.holomind.prompt_dir` when that folder has the file, else ours."""
    if prompt_dir and (Path(prompt_dir) / f"{name}.txt").is_file():
        return (Path(prompt_dir) / f"{name}.txt").read_text(encoding="utf-8")
    return (PROMPTS / f"{name}.txt").read_text(encoding="utf-8")


@dataclass
class CallLog:
    """The model calls made since the last action: their usage, replies, messages, and one record per call."""

    usage: Usage = field(default_factory=Usage)
    replies: list[str] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)

    def add(self, module: str, messages: list[dict[str, Any]], reply: Any) -> None:
        """Account one call; its record points at its messages by position in `messages`."""
        self.usage.add(reply)  # tokens served from the cache apart from those spent
        self.replies.append(f"[{module} {reply.model}] {reply.text}")
        start = len(self.messages)
        self.messages += messages
        self.calls.append({"module": module, "model": reply.model, "messages": [start, len(self.messages)],
                           "reply": reply.text, "verdict": None})

    def verdict(self, text: str) -> None:
        """What the last call decided, in a few words (the critic's verdict, the planner's goal count...)."""
        if self.calls:
            self.calls[-1]["verdict"] = text


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


def user_content(text: str, images: list[Image]) -> str | list[dict[str, Any]]:
    """A user message's content: the text alone, or the text then the images as data URLs."""
    if not images:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for image in images:
        if image.png:
            url = "data:image/png;base64," + base64.b64encode(image.png).decode()
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def text_of(content: Any) -> str:
    """The text of a message's content (a string, or the text parts of a list)."""
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text")


class Modules:
    """The four modules' calls; a reply that is not the JSON asked for counts as that module failing."""

    def __init__(self, clients: dict[str, Any], episode: str, prompt_dir: str | None = None,
                 image_modules: tuple[str, ...] = IMAGE_MODULES, caps: Caps | None = None) -> None:
        self.clients = clients
        self.episode = episode
        self.caps = caps or Caps()
        self.prompt_dir = prompt_dir
        self.image_modules = image_modules
        self.frames: list[Image] = []  # the current observation's images (the agent refreshes them)
        self.log = CallLog()
        self.step = 0  # the episode step these calls decide (the agent sets it each turn): calls are keyed by it

    async def ask(self, module: str, system: str, user: str,
                  images: list[Image] | None = None) -> dict[str, Any] | None:
        """One call (with `images`, else the current frames when the module sees images); the last JSON object of
        the reply, or None."""
        if len(self.log.calls) >= self.caps.calls_per_step:
            raise CapReached(f"{len(self.log.calls)} model calls without an action "
                             f"(agent.holomind.max_calls_per_step={self.caps.calls_per_step})")
        if images is None:
            images = self.frames if module in self.image_modules else []
        messages: list[dict[str, Any]] = [{"role": "system", "content": prompt(system, self.prompt_dir)},
                                          {"role": "user", "content": user_content(user, images)}]
        reply = await self.clients[module].complete(messages, episode=self.episode, step=self.step)
        self.log.add(module, messages, reply)
        found = json_objects(reply.text)
        return found[-1] if found else None

    async def decompose(self, instruction: str, memory: str) -> list[dict[str, Any]]:
        """The goal DAG: [{id, goal, after}]; the whole instruction as one goal when the reply is unusable."""
        out = await self.ask("high_planner", "high_decompose", f"Instruction: {instruction}\n\nMemory:\n{memory}")
        goals = out.get("goals") if out else None
        if not isinstance(goals, list) or not goals:
            self.log.verdict("unusable: the instruction as one goal")
            return [{"id": "g1", "goal": instruction, "after": []}]
        if len(goals) > self.caps.goals:
            raise CapReached(f"the high-level planner gave {len(goals)} goals "
                             f"(agent.holomind.max_goals={self.caps.goals})")
        clean = []
        for i, g in enumerate(goals):
            if isinstance(g, dict) and isinstance(g.get("goal"), str):
                after = g.get("after")
                if not isinstance(after, list):  # a number or text is no list
                    after = []
                gid = g.get("id")
                clean.append({"id": str(gid) if isinstance(gid, str | int) else f"g{i + 1}", "goal": g["goal"],
                              "after": [str(a) for a in after if isinstance(a, str | int)]})
        self.log.verdict(f"{len(clean)} goals" if clean else "unusable: the instruction as one goal")
        return clean or [{"id": "g1", "goal": instruction, "after": []}]

    async def refine(self, goal: str, done: list[str], given_up: list[str], memory: str) -> str:
        """The next goal rewritten to stand on its own (goals given up are named as such, never as done)."""
        finished = "\n".join(f"- {d}" for d in done) or "- none"
        dropped = "\n".join(f"- {d}" for d in given_up) or "- none"
        out = await self.ask("high_planner", "high_refine",
                             f"Goals done:\n{finished}\n\nGoals given up (not done):\n{dropped}\n\n"
                             f"Next goal: {goal}\n\nMemory:\n{memory}")
        text = out.get("goal") if out else None
        if isinstance(text, str) and text.strip():
            self.log.verdict("refined")
            return text
        self.log.verdict("unusable: the goal as it was")
        return goal

    async def reassess(self, goal: str, tried: str, failure: str, memory: str) -> str | None:
        """The high planner's answer to a goal the low-level planner could not ground or carry out: a revised goal,
        or None to give it up."""
        out = await self.ask("high_planner", "high_reassess",
                             f"Goal: {goal}\nAs last refined: {tried}\nWhat went wrong: {failure}\n\nMemory:\n{memory}")
        text = out.get("goal") if out else None
        if not out or out.get("give_up") is True or not isinstance(text, str) or not text.strip():
            self.log.verdict("give up")
            return None
        self.log.verdict("revised")
        return text

    async def ground(self, goal: str, known: str, feedback: str) -> list[str]:
        """Ordered sub-goals for a refined goal."""
        out = await self.ask("low_planner", "low_ground",
                             f"Goal: {goal}\n\nSpatial memory (id | type | room | on or in | state):\n{known}\n\n"
                             f"Critic feedback: {feedback or 'none'}")
        subs = out.get("subgoals") if out else None
        found = [s for s in subs if isinstance(s, str) and s.strip()] if isinstance(subs, list) else []
        self.log.verdict(f"{len(found)} sub-goals")
        return found

    async def verify(self, goal: str, candidates: list[tuple[str, str, bytes]]) -> set[str] | None:
        """The ids, of the (id, type, crop PNG) candidates, that the model confirms are what the goal describes,
        from their crops (sent as images whatever `image_modules` says); None when the reply is unusable. Made by
        the low-level planner's model, before it grounds the goal."""
        lines = "\n".join(f"{k}. {oid} | {otype}" for k, (oid, otype, _) in enumerate(candidates, 1))
        out = await self.ask("low_planner", "memory_verify",
                             f"Goal: {goal}\n\nCandidates (one crop each, in this order):\n{lines}",
                             [Image(png=crop) for _, _, crop in candidates])
        match = out.get("match") if out else None
        if not isinstance(match, list):
            self.log.verdict("verify: unusable reply, every candidate kept")
            return None
        kept = {str(m) for m in match if isinstance(m, str | int)} & {oid for oid, _, _ in candidates}
        self.log.verdict(f"verified {len(kept)} of {len(candidates)}")
        return kept

    async def translate(self, subgoal: str, known: str, visible: str, feedback: str) -> tuple[str, str | None]:
        """A skill call for a sub-goal: (skill, target)."""
        out = await self.ask("executor", "executor",
                             f"Sub-goal: {subgoal}\n\nIn view now:\n{visible}\n\nRemembered:\n{known}\n\n"
                             f"Critic feedback: {feedback or 'none'}")
        if not out or not isinstance(out.get("skill"), str):
            self.log.verdict("no skill")
            return "", None
        target = out.get("target")
        named = isinstance(target, str | int) and target not in ("", "null")
        skill, target = out["skill"].strip(), str(target) if named else None
        self.log.verdict(f"{skill} {target or ''}".strip())
        return skill, target

    async def judge(self, plan: str, call: str, result: str, visible: str, state: str,
                    experience: str) -> tuple[str, str, str | None]:
        """(verdict, diagnosis, rule) for the skill that just ran, from the plan, the result and what the robot
        perceives now; an unusable reply is a Replan."""
        out = await self.ask("critic", "critic",
                             f"{plan}\nSkill call: {call}\nResult: {result}\n\nIn view now:\n{visible}\n\n"
                             f"Now: {state}\n\nExperience:\n{experience}")
        return self._verdict(out)

    async def watch(self, plan: str, call: str, result: str, visible: str, state: str,
                    experience: str) -> tuple[str, str, str | None]:
        """(verdict, diagnosis, rule) on a skill still running, after one of its raw actions: Pass lets it go on
        (or notes the sub-goal done), Refine stops it for another try, Replan sends the failure up."""
        out = await self.ask("critic", "critic_step",
                             f"{plan}\nSkill running: {call}\nLast action: {result}\n\nIn view now:\n{visible}\n\n"
                             f"Now: {state}\n\nExperience:\n{experience}")
        return self._verdict(out)

    async def review(self, goal: str, subgoals: list[str], known: str, visible: str,
                     experience: str) -> tuple[str, str, str | None]:
        """The critic's review of the low-level planner's sub-goals before any runs: (verdict, diagnosis, rule)."""
        steps = "\n".join(f"{i}. {s}" for i, s in enumerate(subgoals, 1))
        out = await self.ask("critic", "critic_plan",
                             f"Goal: {goal}\n\nSub-goals:\n{steps}\n\nSpatial memory (id | type | room | on or in "
                             f"| state):\n{known}\n\nIn view now:\n{visible}\n\nExperience:\n{experience}")
        return self._verdict(out)

    def _verdict(self, out: dict[str, Any] | None) -> tuple[str, str, str | None]:
        verdict = out.get("verdict") if out else None  # only text is read: str() of any JSON value could raise
        verdict = verdict.strip().capitalize() if isinstance(verdict, str) else ""
        if out is None or verdict not in ("Pass", "Refine", "Replan"):  # a missing reply has verdict "" anyway
            self.log.verdict("Replan (unusable reply)")
            return "Replan", "the critic's reply was not a verdict", None
        self.log.verdict(verdict)
        rule, diagnosis = out.get("rule"), out.get("diagnosis")
        return (verdict, diagnosis if isinstance(diagnosis, str) else "",
                rule if isinstance(rule, str) and rule.strip() else None)
