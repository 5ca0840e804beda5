"""OmniSim: the public entry point that runs one OmniEAR task step by step."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeGuard

from suite_omniear.data import AttributeTable, EvalTask, SceneSpec, TaskSpec
from suite_omniear.sim import attribute_actions, basic_actions, cooperative
from suite_omniear.sim.action_list import available_actions
from suite_omniear.sim.centralized import ActionResult, run_pair
from suite_omniear.sim.commands import CommandParser, ParseError, normalize
from suite_omniear.sim.fixes import check_fixes
from suite_omniear.sim.render import Renderer
from suite_omniear.sim.verifier import Verifier
from suite_omniear.sim.world import World

MAX_STEPS = 35
OBSERVATION_MODES = ("explore", "global")
CORP_MODE_ONLY = "In cooperative mode, only cooperative carrying or placing actions are allowed"
CARRY_VERBS = frozenset({"CORP_GOTO", "CORP_PLACE"})


def _all_given(args: tuple[str | None, ...]) -> TypeGuard[tuple[str, ...]]:
    return None not in args


def _required(args: tuple[str | None, ...], count: int) -> tuple[str, ...]:
    """The first `count` arguments of a parsed command, which its verb's pattern always captures (only the
    trailing groups of PLACE, EXPLORE and LOOK are optional)."""
    head = args[:count]
    if not _all_given(head):
        raise ValueError(f"a parsed command lacks a required argument: {args!r}")
    return head


@dataclass(slots=True)
class StepOutcome:
    """What one step did: per-agent results, the two-agent overall result, checks and termination."""

    results: dict[str, ActionResult]
    overall: ActionResult | None
    checks_passed: tuple[int, ...]
    task_success: bool
    terminated: bool


class OmniSim:
    """A text simulator for one task; `step` takes one command per agent (`agent_1`, `agent_2`)."""

    def __init__(
        self,
        scene: SceneSpec,
        task: TaskSpec,
        attribute_table: AttributeTable,
        observation_mode: str = "explore",
        fixes: frozenset[str] = frozenset(),
    ) -> None:
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(f"observation_mode must be one of {OBSERVATION_MODES}, got {observation_mode!r}")
        self.scene = scene
        self.task = task
        self.table = attribute_table
        self.observation_mode = observation_mode
        self.fixes = check_fixes(frozenset(fixes))
        self.world = World(scene, task, attribute_table, self.fixes)
        self.verifier = Verifier(task)
        self.parser = CommandParser(scene.abilities, attribute_table, "scan_verb" in self.fixes)
        self.renderer = Renderer(self.world, observation_mode == "global")
        self.agent_ids = list(self.world.agents)
        self.steps_taken = 0
        self.terminated = False
        self._actions_text = ""

    @classmethod
    def from_eval_task(
        cls,
        task: EvalTask,
        attribute_table: AttributeTable,
        observation_mode: str = "explore",
        fixes: frozenset[str] = frozenset(),
    ) -> OmniSim:
        """Build a simulator for a loaded eval task."""
        return cls(task.scene, task.task, attribute_table, observation_mode, fixes)

    @property
    def task_success(self) -> bool:
        """Sticky: every check held after some action."""
        return self.verifier.completed

    @property
    def episode_over(self) -> bool:
        """The harness stops: a termination rule fired or the step cap was reached."""
        return self.terminated or self.steps_taken >= MAX_STEPS

    def checks_passed(self) -> tuple[int, ...]:
        """Indices of the validation checks that hold right now (not sticky)."""
        return self.verifier.passed(self.world)

    def run_command(self, agent_id: str, command: str) -> ActionResult:
        """Execute one already-stripped command for one agent and re-run verification."""
        try:
            parsed = self.parser.parse(command)
        except ParseError as err:
            return ActionResult(err.status, err.message)
        world = self.world
        if parsed.verb == "DONE":  # the reference answers DONE (aliases included) before any mode check
            self.verifier.update(world)
            return ActionResult("SUCCESS", self.verifier.done_message())
        agent = world.agents[agent_id]
        if agent.corp_object is not None and parsed.verb not in CARRY_VERBS:
            return ActionResult("INVALID", CORP_MODE_ONLY)
        args = parsed.args
        verb = parsed.verb
        coop = False
        # the parser makes attribute commands only for verbs the table has a row for
        if parsed.kind == "attribute":
            (obj_id,) = _required(args, 1)
            status, message = attribute_actions.perform(
                world, agent, self.table.actions[parsed.attribute_verb], obj_id
            )
        elif parsed.kind == "corp_attribute":
            action = self.table.actions[parsed.attribute_verb]
            agents_text, obj_id = _required(args, 2)
            status, message = cooperative.corp_attribute(world, agent, action, agents_text, obj_id)
            coop = True
        elif verb == "GOTO":
            status, message = basic_actions.goto(world, agent, *_required(args, 1))
        elif verb == "GRAB":
            status, message = basic_actions.grab(world, agent, *_required(args, 1))
        elif verb == "PLACE":
            (obj_id,) = _required(args, 1)
            status, message = basic_actions.place(world, agent, obj_id, args[1], args[2])
        elif verb == "EXPLORE":
            status, message = basic_actions.explore(world, agent, args[0])
        elif verb == "LOOK":
            status, message = basic_actions.look(world, agent, args[0])
        elif verb == "CORP_GRAB":
            status, message = cooperative.corp_grab(world, agent, *_required(args, 2))
        elif verb == "CORP_GOTO":
            status, message = cooperative.corp_goto(world, agent, *_required(args, 2))
        else:
            status, message = cooperative.corp_place(world, agent, *_required(args, 4))
        if status == "SUCCESS":
            self.verifier.update(world)
        return ActionResult(status, message, coop)

    def step(self, commands: Mapping[str, str]) -> StepOutcome:
        """Run one harness step: one command per agent, as the model produced it (before stripping)."""
        ids = self.agent_ids
        if len(ids) == 1:
            raw = commands[ids[0]]
            result = self.run_command(ids[0], raw.strip())
            results, overall, terminated = {ids[0]: result}, None, self._single_terminates(raw)
        else:
            pair, overall, terminated = run_pair(
                ids, [commands[i].strip() for i in ids], self.run_command, "strict_done" in self.fixes
            )
            results = {ids[0]: pair[0], ids[1]: pair[1]}
        self.steps_taken += 1
        self.terminated = self.terminated or terminated
        self.verifier.update(self.world)  # the harness verifies after every step: a goal true from the start counts
        return StepOutcome(results, overall, self.checks_passed(), self.verifier.completed, terminated)

    def _single_terminates(self, raw: str) -> bool:
        """Reference: any text containing DONE ends it; `strict_done`: only a DONE command (aliases too)."""
        if "strict_done" not in self.fixes:
            return "DONE" in raw.upper()
        try:
            return normalize(raw).upper() == "DONE"
        except ParseError:
            return False

    def observation(self) -> str:
        """The environment description the model sees now."""
        return self.renderer.render()

    def available_actions(self) -> str:
        """The available-actions text the model sees now (changes when tools are grabbed or placed)."""
        if self.world.abilities_changed:
            self._actions_text = available_actions(self.world)
            self.world.abilities_changed = False
        return self._actions_text
