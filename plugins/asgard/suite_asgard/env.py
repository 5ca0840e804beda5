"""One AsgardBench episode on the household simulator: commands in, two images and Success/Failure out."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from PIL import Image as PILImage
from suite.contract.records import Image, Observation, StepResult, Task
from suite_household.controller import Controller
from suite_household.overlay import draw_hand
from suite_household.world import World

from suite_asgard.action_layer import ActionLayer
from suite_asgard.commands import Command
from suite_asgard.conditions import Condition
from suite_asgard.goals import ActionFlags, evaluate, goal_labels, unmet
from suite_asgard.household_sim import HouseholdSim
from suite_asgard.plans import Plan
from suite_asgard.scene_setup import build_scene
from suite_asgard.termination import PROGRESS_ACTIONS, Termination, TerminationRules
from suite_asgard.world_rules import INVALID_ACTION, INVALID_OBJECT, UNDOABLE, UNPARSABLE, VALID, asgard_rules

_INVALID_MESSAGES = {
    INVALID_ACTION: "{action} is not one of the available actions.",
    INVALID_OBJECT: "{obj} is not one of the available objects.",
    UNPARSABLE: "The reply had no line of the form 'Action: ACTION OBJECT'.",
}
EMPTY_MESSAGE = "The reply was empty."


def household_env(task: Task, config: Any) -> AsgardEnv:
    """An episode on the embedded household simulator: the plan's scene (see scene_setup), the configured camera."""
    size = int(config.get("image_size") or 1024)
    view = (float(config.get("field_of_view") or 90), float(config.get("visibility_distance") or 1.5))
    scene = build_scene(task.data["plan"], list(task.data["inventory"]), view)
    ctl = Controller(scene, width=size, height=size, fieldOfView=view[0], visibilityDistance=view[1],
                     rules=asgard_rules(), renderImage=False)
    return AsgardEnv(task, HouseholdSim(ctl))


@dataclass(frozen=True)
class TurnRecord:
    """What one turn was and did (the env keeps one per turn for scoring)."""

    command: Command
    kind: str
    success: bool
    category: str | None
    message: str
    progress: bool = False


class AsgardEnv:
    """The episode's world, action layer, goals and termination; renders what the model sees."""

    def __init__(self, task: Task, sim: Any) -> None:
        self.task = task
        self.plan: Plan = task.data["plan"]
        self.condition = Condition(**task.data["condition"])
        self.sim = sim
        self.render_images = not self.condition.text_only
        self.layer = ActionLayer(sim)
        self.labels = goal_labels(self.plan.goals)
        self.ever_met: set[int] = set()
        self.status: list[bool] = []
        self.turns: list[TurnRecord] = []
        rules = TerminationRules(**task.data.get("termination", {}))
        soft, hard = self.plan.limits
        self.termination = Termination(soft, hard, rules=rules)
        self._current: Image | None = None

    # -- the Env protocol ------------------------------------------------------------------------------------
    def reset(self) -> Observation:
        """The starting view (one image)."""
        self.status = self._goals()
        self.ever_met = {i for i, ok in enumerate(self.status) if ok}
        self._current = self._frame()
        return self._observation(None)

    def step(self, command: Command) -> StepResult:
        """Run one turn and check the goals and the termination rules."""
        before = self._current
        turn = self._run(command)
        self.turns.append(turn)
        self.status = self._goals()
        newly = {i for i, ok in enumerate(self.status) if ok} - self.ever_met
        self.ever_met |= newly
        end = self.termination.record(command.text, command.obj if command.text is not None else None,
                                      turn.success, all(self.status), len(newly), turn.progress)
        self._current = self._frame()
        info = {
            "kind": turn.kind, "category": turn.category, "success": turn.success, "message": turn.message,
            "action": command.text, "goals_met": sum(self.status), "goals_total": len(self.status),
            "end": end, "extension": self.termination.extension,
        }
        verdict = "Success" if turn.success else "Failure"
        feedback = f"{command.text or '(no action)'} {verdict}" + (f": {turn.message}" if turn.message else "")
        return StepResult(self._observation(before), feedback=feedback, done=end is not None, info=info,
                          failed=not turn.success)

    def close(self) -> None:
        """Release the simulator."""
        self.sim.close()

    # -- helpers ---------------------------------------------------------------------------------------------
    def skip_images(self) -> None:
        """Stop rendering (privileged agents never look)."""
        self.render_images = False
        self._current = None

    @property
    def world(self) -> World:
        """The simulator's current state."""
        return self.sim.world

    def flags(self) -> ActionFlags:
        """Which action goals' actions were done."""
        world = self.world
        mirrors = {o.id for o in world.objects.values() if o.type == "Mirror"}
        return ActionFlags(drank_coffee="coffee" in self.layer.drank, sprayed_mirror=bool(mirrors & self.layer.sprayed))

    def unmet_goals(self) -> list[str]:
        """Labels of the goals that do not hold now."""
        return unmet(self.labels, self.status)

    def _goals(self) -> list[bool]:
        return evaluate(self.world, self.plan.goals, self.flags())

    def _run(self, command: Command) -> TurnRecord:
        if command.kind != VALID:
            template = EMPTY_MESSAGE if command.empty else _INVALID_MESSAGES[command.kind]
            message = template.format(action=command.action, obj=command.obj)
            return TurnRecord(command, command.kind, False, None, message)
        if command.action is None or command.obj is None:  # Command.valid gives both
            raise ValueError(f"a valid command names an action and an object, not {command!r}")
        outcome = self.layer.execute(command.action, command.obj)
        kind = VALID if outcome.success else outcome.kind or UNDOABLE
        progress = command.action in PROGRESS_ACTIONS and outcome.preconditions_held
        return TurnRecord(command, kind, outcome.success, outcome.category, outcome.message, progress)

    def _frame(self) -> Image | None:
        if not self.render_images:
            return None
        rgb = self.sim.frame()
        if self.world.held and self.condition.hand_opacity > 0:
            rgb = draw_hand(rgb, float(self.condition.hand_opacity))
        buf = io.BytesIO()
        PILImage.fromarray(rgb).save(buf, format="PNG")
        return Image(png=buf.getvalue(), label=f"after {len(self.turns)} turns")

    def _observation(self, before: Image | None) -> Observation:
        images = []
        if self._current is not None:
            if before is not None and self.condition.images == "both":
                images.append(before)
            images.append(self._current)
        return Observation(text="", images=images, data={"objects": list(self.task.data["objects"])})
