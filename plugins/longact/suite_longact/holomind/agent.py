"""HoloMind's closed loop (paper section 4 / spec section 8): the high-level planner decomposes the instruction
into a goal DAG and refines the next ready goal, the low-level planner grounds it into sub-goals with the spatial
memory, the critic reviews those sub-goals, the executor maps each sub-goal onto a skill, the skill emits raw
actions, and the critic judges each skill's result from the plan and the observation: Pass goes on, Refine retries
the sub-goal with a local fix, Replan goes back to the low-level planner; when the low-level replans fail too, the
failure escalates to the high-level planner, which revises the goal or gives it up. `ablate` removes one module
(the paper's Table 4). Every module is a litellm call with its own model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from omegaconf import DictConfig, OmegaConf
from suite.contract.errors import ConfigError
from suite.contract.records import Action, Observation, StepRecord, Task
from suite.contract.settings import describe
from suite.engine.agents import Agent, AgentContext, AgentTurn

from suite_longact.holomind.caps import CapReached, Caps
from suite_longact.holomind.experience import SharedExperience
from suite_longact.holomind.mapping import FreeSpaceMap
from suite_longact.holomind.memory import EpisodicMemory, SpatialMemory
from suite_longact.holomind.modules import IMAGE_KINDS, IMAGE_MODULES, CallLog, Modules, module_clients
from suite_longact.holomind.odometry import Odometry
from suite_longact.holomind.skills import Body, SkillResult, run_skill
from suite_longact.prompting import instance_lines
from suite_longact.settings import HOLOMIND_SCHEMA
from suite_longact.vocabulary import LOOK_DEG, MOVE_M, ROTATE_DEG, STOP

MAX_SUBGOALS = 12
#: what the planners and the critic get instead of the episodic memory under `ablate=episodic_memory` (the other
#: removals, settings.HOLOMIND_ABLATIONS, the paper's Table 4: without the high-level planner the instruction goes
#: to the low-level planner as one goal; without the critic every skill's result is taken as it is)
NO_MEMORY = "(no episodic memory)"


class HoloMindAgent(Agent):
    """One episode of HoloMind; with `shared_experience` it starts from the rules the run's earlier episodes left."""

    def __init__(self, ctx: AgentContext) -> None:
        section = (ctx.config.get("agent") or {}).get("holomind") or {}
        check_holomind(section)
        self.clients = module_clients(ctx, section)
        self.max_replans = int(section.get("max_replans", 1))
        self.max_escalations = int(section.get("max_escalations", 1))
        self.shared = bool(section.get("shared_experience", False))
        self.critic_every = str(section.get("critic_every") or "skill")
        self.verify = bool(section.get("verify", False))
        self.verified: dict[tuple[str, str, int], bool] = {}  # (goal, id, crop pixels): the model's answer
        self.history_len = int(section.get("history", 12))
        self.ablate = section.get("ablate")
        self.prompt_dir = section.get("prompt_dir")
        kinds, modules = section.get("images"), section.get("image_modules")
        self.image_kinds = tuple(kinds if kinds is not None else IMAGE_KINDS)
        self.image_modules = tuple(modules if modules is not None else IMAGE_MODULES)
        bench = ctx.config.get(ctx.benchmark) or {}
        self.odometry = Odometry(float(bench.get("move_m") or MOVE_M), float(bench.get("rotate_deg") or ROTATE_DEG),
                                 float(bench.get("look_deg") or LOOK_DEG))
        self.issued: dict[str, Any] | None = None
        self.caps = Caps.of(section)
        self.spatial = SpatialMemory()
        self.episodic = EpisodicMemory()
        self.run_dir = ctx.run_dir
        self.pool: SharedExperience | None = None
        self.task: Task | None = None
        self.max_steps = 0
        self.steps = 0
        self.body = Body(self.spatial, lambda: self.max_steps - self.steps)
        self.modules: Modules | None = None
        self.run: AsyncIterator[dict[str, Any]] | None = None
        self.trace: list[str] = []

    async def begin(self, task: Task, env: Any) -> None:
        """Start the loop (HoloMind sees only observations, never the env's state)."""
        self.task = task
        self.max_steps = task.max_steps or 16000
        if self.shared and self.ablate != "episodic_memory" and self.run_dir is not None:
            self.pool = SharedExperience(self.run_dir, task.key)
            self.episodic.experience += [r for r in self.pool.start() if r not in self.episodic.experience]
            self._cap_rules()
        self.modules = Modules(self.clients, task.key, self.prompt_dir, self.image_modules, self.caps)
        self.run = self._loop(task.data["instruction"])

    def _absorb(self, observation: Observation) -> None:
        data = dict(observation.data)
        if "instances" not in data:
            return
        if "pose" not in data:  # the paper's inputs: its own odometry from the feedback of what it did
            self.odometry.apply(self.issued, bool((data.get("last") or {}).get("success")))
            data["pose"] = dict(self.odometry.pose)
        self.body.data = data
        if self.body.map is None:
            self.body.map = FreeSpaceMap((data["pose"]["x"], data["pose"]["z"]))
        self.spatial.update(data)
        if self.verify:
            rgb = next((i.png for i in observation.images if i.label.split(" ")[0] == "rgb" and i.png), None)
            if rgb is not None:
                self.spatial.keep_views(data, rgb)
        self.episodic.update(data, self.body.room())
        ignore = {d["id"] for d in data.get("instances") or [] if d["type"] in _SMALL or d["type"] == "Doorway"
                  and "closed" not in (d.get("state") or [])}
        if data.get("held"):
            ignore.add(data["held"])
        self.body.map.update(data, ignore)
        assert self.modules is not None
        self.modules.frames = [i for i in observation.images if i.label.split(" ")[0] in self.image_kinds]

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
        self.issued = step
        log = self.modules.log
        text = " ".join(str(v) for v in step.values())
        return AgentTurn(Action(step, text), reply="\n".join(log.replies) or None, prompt=log.messages or None,
                         usage=log.usage, note="; ".join(self.trace[-3:]) if step["action"] == STOP else None,
                         calls=log.calls or None)

    # -- the loop ---------------------------------------------------------------------------------------------
    def _known(self, text: str) -> str:
        return self.spatial.describe(self.spatial.query(text, k=8))

    async def _grounding(self, goal: str) -> str:
        """The spatial memory's candidates for a goal, as the low-level planner gets them; with `verify`, only those
        the model confirms from their crops (each (goal, instance, view) asked once; an unusable reply keeps all)."""
        candidates = self.spatial.query(goal, k=8)
        if self.verify and self.modules is not None:
            ask = [c for c in candidates if c.crop and (goal, c.id, c.crop_pixels) not in self.verified]
            if ask:
                kept = await self.modules.verify(goal, [(c.id, c.type, c.crop) for c in ask if c.crop])
                for c in ask:
                    self.verified[(goal, c.id, c.crop_pixels)] = kept is None or c.id in kept
            candidates = [c for c in candidates if self.verified.get((goal, c.id, c.crop_pixels), True)]
        return self.spatial.describe(candidates)

    def _visible(self) -> str:
        return instance_lines(self.body.data.get("instances") or [], 25)

    def _memory(self, history: int) -> str:
        return NO_MEMORY if self.ablate == "episodic_memory" else self.episodic.text(history)

    def _experience(self) -> str:
        return NO_MEMORY if self.ablate == "episodic_memory" else "\n".join(self.episodic.experience)

    def _budget(self) -> int:
        """The actions left, this one included: HoloMind spends them all, so an episode it has not finished ends
        at the step cap (`budget_exhausted`), never by a Stop of its own."""
        return self.max_steps - self.steps

    async def _skill(self, skill: str, target: str | None,
                     plan: str | None = None) -> AsyncIterator[dict[str, Any] | SkillResult]:
        """The skill's raw actions, then its result; with `critic_every=step` (and a `plan`) the critic judges the
        skill after each of its actions, and anything but Pass stops it there."""
        gen = run_skill(self.body, skill, target)
        call = f"{skill} {target or ''}".strip()
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
            yield action  # resumed once the action's observation is in the memories
            if plan is not None and self.critic_every == "step" and self.modules is not None:
                last = (self.body.data or {}).get("last") or {}
                result = f"{action} -> {'ok' if last.get('success') else 'failed'} {last.get('error') or ''}"
                verdict, diagnosis, rule = await self.modules.watch(plan, call, result.strip(), self._visible(),
                                                                    self._memory(4), self._experience())
                self._learn(rule)
                if verdict != "Pass":
                    gen.close()
                    self.trace.append(f"critic stopped {call}: {verdict}")
                    yield SkillResult(False, diagnosis or f"the critic stopped the skill ({verdict})")
                    return

    async def _loop(self, instruction: str) -> AsyncIterator[dict[str, Any]]:
        m = self.modules
        assert m is not None
        planner = self.ablate != "high_planner"
        goals = (await m.decompose(instruction, self._memory(self.history_len)) if planner
                 else [{"id": "g1", "goal": instruction, "after": []}])
        done: list[str] = []
        given_up: list[str] = []
        finished: set[str] = set()
        while self._budget() > 0:
            ids = {x["id"] for x in goals}
            ready = [g for g in goals if g["id"] not in finished and all(a in finished for a in g["after"] if a in ids)]
            if not ready:
                break
            goal = ready[0]
            refined = (await m.refine(goal["goal"], done, given_up, self._memory(self.history_len)) if planner
                       else goal["goal"])
            limit = MAX_SUBGOALS if planner else MAX_SUBGOALS * max(len(goals), 8)
            failure = ""
            for escalation in range(self.max_escalations + 1):
                failure = ""
                async for item in self._achieve(refined, limit):
                    if isinstance(item, str):
                        failure = item
                    else:
                        yield item
                if not failure or not planner or escalation == self.max_escalations or self._budget() <= 0:
                    break
                revised = await m.reassess(goal["goal"], refined, failure, self._memory(self.history_len))
                self.trace.append(f"escalated {goal['goal']!r}: {failure}")
                if revised is None:
                    break
                refined = revised
            finished.add(goal["id"])
            (given_up if failure else done).append(refined)
        yield {"action": STOP}

    async def _achieve(self, goal: str, limit: int) -> AsyncIterator[dict[str, Any] | str]:
        """Ground the goal and carry out its sub-goals, replanning at the low level up to `max_replans` times; yields
        raw actions, then the failure's diagnosis (a str) when the goal was not achieved."""
        m = self.modules
        assert m is not None
        critic = self.ablate != "critic"
        feedback = ""
        for _ in range(self.max_replans + 1):
            known = await self._grounding(goal)
            subgoals = (await m.ground(goal, known, feedback))[:limit]
            if not subgoals:
                feedback = "the low-level planner gave no sub-goals"
                continue
            if critic:
                verdict, diagnosis, rule = await m.review(goal, subgoals, known, self._visible(),
                                                          self._experience())
                self._learn(rule)
                if verdict != "Pass":
                    feedback = diagnosis or "the critic rejected the sub-goals"
                    continue
            replan = None
            for i, sub in enumerate(subgoals):
                plan = f"Goal: {goal}\nSub-goals:\n" + "\n".join(
                    f"{'->' if j == i else '  '} {j + 1}. {s}" for j, s in enumerate(subgoals))
                verdict, diagnosis = "Refine", ""
                sub_feedback = feedback
                for _attempt in range(2):  # the sub-goal, then one local refinement
                    skill, target = await m.translate(sub, self._known(sub), self._visible(), sub_feedback)
                    result = SkillResult(False, "the executor named no skill")
                    if skill:
                        async for item in self._skill(skill, target, plan if critic else None):
                            if isinstance(item, SkillResult):
                                result = item
                            else:
                                yield item
                    call = f"{skill} {target or ''}".strip()
                    outcome = "ok" if result.ok else result.message
                    self.trace.append(f"{sub} -> {call}: {outcome}")
                    if not critic:  # nobody judges: the plan goes on whatever the result
                        verdict = "Pass"
                        break
                    verdict, diagnosis, rule = await m.judge(
                        plan, call, f"{'ok' if result.ok else 'failed'}: {result.message}", self._visible(),
                        self._memory(4), self._experience())
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
                return
            feedback = replan
            if self._budget() <= 0:
                break
        yield feedback or "the goal could not be grounded"

    def _learn(self, rule: str | None) -> None:
        """Keep a rule the critic distilled (and in the shared pool when that is on); none without episodic memory."""
        if not rule or self.ablate == "episodic_memory":
            return
        if rule not in self.episodic.experience:
            self.episodic.experience.append(rule)
            self._cap_rules()
        if self.pool is not None:
            self.pool.add(rule)

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
