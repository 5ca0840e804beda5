"""HoloMind's closed loop (paper section 4 / spec section 8): the high-level planner decomposes the instruction
into a goal DAG and refines the next ready goal, the low-level planner grounds it into sub-goals with the spatial
memory, the executor maps each sub-goal onto a skill, the skill emits raw actions, and the critic judges each
skill's result: Pass goes on, Refine retries the sub-goal with a local fix, Replan goes back to the low-level
planner (and after `max_replans` the goal is given up). Every module is a litellm call with its own model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from omegaconf import DictConfig, OmegaConf
from suite.agents import Agent, AgentContext, AgentTurn
from suite.errors import ConfigError
from suite.records import Action, Observation, StepRecord, Task
from suite.settings import describe
from suite_longact.holomind.caps import CapReached, Caps
from suite_longact.holomind.mapping import FreeSpaceMap
from suite_longact.holomind.memory import EpisodicMemory, SpatialMemory
from suite_longact.holomind.modules import CallLog, Modules, module_clients
from suite_longact.holomind.skills import Body, SkillResult, run_skill
from suite_longact.settings import HOLOMIND_SCHEMA
from suite_longact.vocabulary import STOP

MAX_SUBGOALS = 12


class HoloMindAgent(Agent):
    """One episode of HoloMind; with `shared_experience` the experience pool outlives the episode."""

    #: the experience pool kept across episodes (opt-in): rules the critic distilled, in episode order
    pool: ClassVar[list[str]] = []

    def __init__(self, ctx: AgentContext) -> None:
        section = (ctx.config.get("agent") or {}).get("holomind") or {}
        check_holomind(section)
        self.clients = module_clients(ctx, section)
        self.max_replans = int(section.get("max_replans", 3))
        self.shared = bool(section.get("shared_experience", False))
        self.history_len = int(section.get("history", 12))
        self.caps = Caps.of(section)
        self.spatial = SpatialMemory()
        self.episodic = EpisodicMemory()
        if self.shared:
            self.episodic.experience += [r for r in self.pool if r not in self.episodic.experience]
            self._cap_rules()
        self.task: Task | None = None
        self.max_steps = 0
        self.steps = 0
        self.body = Body(self.spatial, lambda: self.max_steps - self.steps - 1)
        self.modules: Modules | None = None
        self.run: AsyncIterator[dict[str, Any]] | None = None
        self.trace: list[str] = []

    async def begin(self, task: Task, env: Any) -> None:
        """Start the loop (HoloMind sees only observations, never the env's state)."""
        self.task = task
        self.max_steps = task.max_steps or 16000
        self.modules = Modules(self.clients, task.key, self.caps)
        self.run = self._loop(task.data["instruction"])

    def _absorb(self, observation: Observation) -> None:
        data = observation.data
        if "pose" not in data:
            return
        self.body.data = data
        if self.body.map is None:
            self.body.map = FreeSpaceMap((data["pose"]["x"], data["pose"]["z"]))
        self.spatial.update(data)
        self.episodic.update(data)
        ignore = {d["id"] for d in data.get("instances") or [] if d["type"] in _SMALL or "open" in d["state"]
                  and d["id"].startswith("door")}
        if data.get("held"):
            ignore.add(data["held"])
        self.body.map.update(data, ignore)

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """Feed the observation to the memories and run the loop to its next raw action."""
        self.steps = len(history)
        self._absorb(observation)
        assert self.modules is not None and self.run is not None
        self.modules.log = CallLog()
        self.modules.step = len(history)
        try:
            step = await self.run.__anext__()
        except StopAsyncIteration:
            step = {"action": STOP}
        except CapReached as cap:  # the agent gives up: its failure, with the cap as the reason
            self.trace.append(f"gave up: {cap}")
            step = {"action": STOP}
        log = self.modules.log
        text = " ".join(str(v) for v in step.values())
        return AgentTurn(Action(step, text), reply="\n".join(log.replies) or None, prompt=log.prompt,
                         usage=log.usage, note="; ".join(self.trace[-3:]) if step["action"] == STOP else None,
                         calls=log.calls or None)

    # -- the loop ---------------------------------------------------------------------------------------------
    def _known(self, text: str) -> str:
        return self.spatial.describe(self.spatial.query(text, k=8))

    def _visible(self) -> str:
        inst = self.body.data.get("instances") or []
        return "\n".join(f"{d['id']} | {d['type']} | {d['room']} | {d['on'] or '-'} | {d['distance']}"
                         + ("" if d["reachable"] else " (out of reach)") for d in inst[:25]) or "(nothing)"

    def _budget(self) -> int:
        return self.max_steps - self.steps - 1

    async def _skill(self, skill: str, target: str | None) -> AsyncIterator[dict[str, Any] | SkillResult]:
        gen = run_skill(self.body, skill, target)
        while True:
            if self._budget() <= 0:
                gen.close()
                yield SkillResult(False, "out of steps")
                return
            try:
                action = next(gen)
            except StopIteration as stop:
                yield stop.value
                return
            yield action

    async def _loop(self, instruction: str) -> AsyncIterator[dict[str, Any]]:
        m = self.modules
        assert m is not None
        goals = await m.decompose(instruction, self.episodic.text(self.history_len))
        done: list[str] = []
        finished: set[str] = set()
        while self._budget() > 0:
            ready = [g for g in goals if g["id"] not in finished and all(a in finished for a in g["after"]
                                                                          if a in {x["id"] for x in goals})]
            if not ready:
                break
            goal = ready[0]
            refined = await m.refine(goal["goal"], done, self.episodic.text(self.history_len))
            feedback = ""
            for _ in range(self.max_replans + 1):
                subgoals = (await m.ground(refined, self._known(refined), feedback))[:MAX_SUBGOALS]
                if not subgoals:
                    feedback = "the low-level planner gave no sub-goals"
                    continue
                replan = None
                for sub in subgoals:
                    verdict, diagnosis = "Refine", ""
                    sub_feedback = feedback
                    for _attempt in range(2):  # the sub-goal, then one local refinement
                        skill, target = await m.translate(sub, self._known(sub), self._visible(), sub_feedback)
                        result = SkillResult(False, "the executor named no skill")
                        if skill:
                            async for item in self._skill(skill, target):
                                if isinstance(item, SkillResult):
                                    result = item
                                else:
                                    yield item
                        call = f"{skill} {target or ''}".strip()
                        self.trace.append(f"{sub} -> {call}: {'ok' if result.ok else result.message}")
                        verdict, diagnosis, rule = await m.judge(sub, call, f"{'ok' if result.ok else 'failed'}: "
                                                                 f"{result.message}", self.episodic.text(4),
                                                                 "\n".join(self.episodic.experience))
                        if rule:
                            self._learn(rule)
                        if verdict != "Refine":
                            break
                        sub_feedback = diagnosis
                    if verdict == "Pass":
                        self.episodic.history.append(sub)
                        continue
                    replan = diagnosis or f"{sub} did not succeed"
                    break
                if replan is None:
                    break
                feedback = replan
                if self._budget() <= 0:
                    break
            finished.add(goal["id"])
            done.append(refined)
        yield {"action": STOP}

    def _learn(self, rule: str) -> None:
        """Keep a rule the critic distilled (and in the shared pool when that is on)."""
        if rule not in self.episodic.experience:
            self.episodic.experience.append(rule)
            self._cap_rules()
        if self.shared and rule not in self.pool:
            self.pool.append(rule)

    def _cap_rules(self) -> None:
        """Keep the newest `max_rules` rules: every prompt that shows the experience stays bounded."""
        rules = self.episodic.experience
        del rules[:max(0, len(rules) - self.caps.rules)]


def check_holomind(section: Any) -> None:
    """A one-line ConfigError for the first `agent.holomind` setting its schema refuses."""
    plain = OmegaConf.to_container(section, resolve=True) if isinstance(section, DictConfig) else dict(section)
    error = best_match(Draft202012Validator(HOLOMIND_SCHEMA).iter_errors(plain))
    if error is not None:
        raise ConfigError(describe(error, "agent.holomind."))


_SMALL = frozenset({"Pen", "Pencil", "KeyChain", "CreditCard", "CD", "Watch", "CellPhone", "Fork", "Spoon", "Knife",
                    "ButterKnife", "SaltShaker", "PepperShaker", "Egg", "Apple", "Tomato", "Potato", "SoapBar"})


def holomind_agent(ctx: AgentContext) -> HoloMindAgent:
    """The registered HoloMind agent."""
    return HoloMindAgent(ctx)
