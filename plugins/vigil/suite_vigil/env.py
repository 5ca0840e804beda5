"""One Vigil episode: the house, the start pose and preset states, the four skills, the per-step evaluator.

The agent gets the current 640x480 frame only; what an action did is visible only in later frames (with
`vigil.feedback=true`, also the too_far and path_blocked booleans). The segmentation resolves clicks and
feeds the evaluator; it never reaches the agent. Terminations: a report, the step budget
(`fail_no_report`), or more invalid actions than the family's limit (`invalid_action_limit_exceeded`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from PIL import Image as PILImage
from suite.contract.records import Image, Observation, StepResult, Task
from suite_household.adapter import SimAdapter

from suite_vigil import goals
from suite_vigil.parsing import NORMALIZED_MAX, VigilAction
from suite_vigil.vocabulary import GRID_STEP, INTENT_ACTIONS

REPORT, NO_REPORT, INVALID_LIMIT = "report", "fail_no_report", "invalid_action_limit_exceeded"
_NAV = {"forward": ("MoveAhead", "moveMagnitude"), "backward": ("MoveBack", "moveMagnitude"),
        "turn_left": ("RotateLeft", "degrees"), "turn_right": ("RotateRight", "degrees")}


@dataclass
class Report:
    """The terminal report as the agent gave it (status normalised)."""

    status: str
    summary: str
    raw_status: str
    step: int


@dataclass
class StepLog:
    """What the evaluator recorded after one step (kept by the env for settlement)."""

    skill: str | None
    invalid: bool
    goal: bool
    progress: float
    path_blocked: bool = False
    too_far: bool = False
    signature: str = ""
    target: str | None = None
    success: bool = False
    error: str = ""


@dataclass
class EpisodeState:
    """Counters of the episode so far."""

    invalid: int = 0
    end: str | None = None
    report: Report | None = None
    log: list[StepLog] = field(default_factory=list)


class VigilEnv:
    """The episode's simulator behind the four skills, with the hidden evaluator alongside."""

    def __init__(self, task: Task, sim: SimAdapter, feedback: bool = False, normalized: bool = False) -> None:
        self.task = task
        self.episode = task.data["episode"]
        self.sim = sim
        self.feedback = feedback
        self.normalized = normalized
        self.render_images = True
        self.max_steps = int(self.episode["max_steps"])
        self.max_invalid = int(self.episode["max_invalid"])
        rules = task.data.get("rules") or {}
        self.tracker = goals.Tracker(self.episode["success_spec"], near=rules.get("near_to", "centre"),
                                     sv_rule=rules.get("sv_world", "unchanged"),
                                     obstacles=tuple(o["objectId"] for o in self.episode.get("obstacles", ())))
        self.state = EpisodeState()

    # -- the Env protocol --------------------------------------------------------------------------------------
    def reset(self) -> Observation:
        """Stand at the start pose with the preset states; the first frame."""
        world, spec = self.sim.world, self.tracker.spec
        self.tracker.start_distance = goals.near_distance(world, spec["target"], self.tracker.approach_measure())
        if spec["type"] == "report_status":
            self.tracker.start_state = goals.state_of(world, spec["target"], spec["property"])
        visible = self.target_visible()
        self.tracker.seen = visible
        self.tracker.start_scores = goals.scores(world, self.tracker, visible)
        self.initial_goal = goals.world_ok(world, self.tracker, visible, strict=False)
        return self._observation()

    def step(self, action: VigilAction) -> StepResult:
        """Apply one action, evaluate the hidden goal, and check the terminations."""
        st = self.state
        log = self._apply(action)
        visible = self.target_visible()
        self.tracker.seen = self.tracker.seen or visible
        world = self.sim.world
        log.goal = goals.world_ok(world, self.tracker, visible, strict=False)
        log.progress = goals.progress(world, self.tracker, visible)
        st.log.append(log)
        if st.end is None and st.invalid > self.max_invalid:
            st.end = INVALID_LIMIT
        if st.end is None and len(st.log) >= self.max_steps:
            st.end = NO_REPORT
        info = {"skill": log.skill, "invalid": log.invalid, "target": log.target, "action_success": log.success,
                "error": log.error, "path_blocked": log.path_blocked, "too_far": log.too_far, "goal": log.goal,
                "progress": log.progress, "end": st.end, "invalid_count": st.invalid}
        return StepResult(self._observation(log), feedback=self._feedback_text(log), done=st.end is not None,
                          info=info, failed=not log.success)

    def close(self) -> None:
        """Release the simulator."""
        self.sim.close()

    # -- helpers -----------------------------------------------------------------------------------------------
    def skip_images(self) -> None:
        """Stop encoding frames (privileged agents never look)."""
        self.render_images = False

    def target_visible(self) -> bool:
        """Whether the spec's target is visible now (evaluator only)."""
        target = self.tracker.spec["target"]
        return self.sim.visible({target})[target]

    def pixel(self, x: int, y: int) -> tuple[int, int]:
        """Native pixel of the agent's coordinates (normalized_1000 when configured)."""
        if not self.normalized:
            return x, y
        w, h = self.sim.size
        return min(w - 1, x * w // NORMALIZED_MAX), min(h - 1, y * h // NORMALIZED_MAX)

    def _apply(self, action: VigilAction) -> StepLog:
        st = self.state
        if action.invalid is not None:
            st.invalid += 1
            return StepLog(None, True, False, 0.0, error=action.invalid)
        log = StepLog(action.skill, False, False, 0.0, signature=action.signature())
        args = action.arguments
        if action.skill == "navigate":
            name, key = _NAV[args["mode"]]
            value = args["magnitude"] * GRID_STEP if key == "moveMagnitude" else args["magnitude"]
            log.success, log.error = self.sim.step(name, **{key: value})
            log.path_blocked = not log.success and "blocking" in log.error
        elif action.skill == "look":
            name = "LookUp" if args["direction"] == "up" else "LookDown"
            log.success, log.error = self.sim.step(name, degrees=args["magnitude"])
        elif action.skill == "interact_pixel":
            self._interact(args, log)
        else:
            st.report = Report(args["status"], args["summary"], args.get("raw_status", args["status"]), len(st.log))
            st.end = REPORT
            log.success = True
        return log

    def _interact(self, args: dict[str, Any], log: StepLog) -> None:
        intent = args["intent"]
        if intent == "drop":
            log.success, log.error = self.sim.step("DropHandObject")
            return
        x, y = self.pixel(args["x"], args["y"])
        oid = self.sim.object_at(x, y)
        log.target = oid
        if oid is None:
            log.error = "no object under that pixel"
            return
        if self.sim.distance(oid) > goals.NEAR and oid != self.sim.world.held:
            log.too_far, log.error = True, f"{oid} is beyond {goals.NEAR} m"
            return
        if intent == "ground":
            self.tracker.grounded.append(oid)
            log.success = True
            return
        log.success, log.error = self.sim.step(INTENT_ACTIONS[intent], objectId=oid)

    def _feedback_text(self, log: StepLog) -> str:
        if log.invalid:
            return f"invalid action: {log.error}"
        return f"too_far={str(log.too_far).lower()} path_blocked={str(log.path_blocked).lower()}"

    def _observation(self, log: StepLog | None = None) -> Observation:
        images = []
        if self.render_images:
            buf = io.BytesIO()
            PILImage.fromarray(self.sim.frame()).save(buf, format="PNG", compress_level=1)
            images.append(Image(png=buf.getvalue(), label="current"))
        data: dict[str, Any] = {"step": len(self.state.log)}
        if self.feedback and log is not None and not log.invalid:
            data["feedback"] = {"too_far": log.too_far, "path_blocked": log.path_blocked}
        return Observation(text=self.episode["instruction"], images=images, data=data)
