"""OmniEAR scoring: sticky success, steps, DONE-claim confusion, and the paper's per-category table."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from suite.contract.records import Settlement, Task, Trajectory
from suite.contract.registry import Cell, DetailTable
from suite.engine.outcomes import AGENT_FAILURE, PARSE_FAILURE, failure_outcome, unparsable_steps

from suite_omniear.data import CATEGORIES, EvalTask

SINGLE_CATEGORIES = CATEGORIES[:4]
MULTI_CATEGORIES = CATEGORIES[4:]
DONE_CELLS = ("claimed_success", "claimed_failure", "success_unclaimed", "neither")


def scalar_max_size(et: EvalTask) -> bool:
    """Whether an agent's `max_size` is a plain number (the reference harness drops these tasks)."""
    return any(not isinstance(a.max_size, list) for a in et.task.agents)


def claims_done(commands: Mapping[str, str]) -> bool:
    """The model said DONE: the single agent's command, or both agents' commands in one step."""
    return all(c.strip().upper() == "DONE" for c in commands.values())


def _first_completion(trajectory: Trajectory, at_first_step: bool) -> int | None:
    if at_first_step:
        return 1
    return next((s.index + 1 for s in trajectory.steps if s.info.get("task_success")), None)


def _command_success_rate(trajectory: Trajectory) -> float | None:
    statuses = [r["status"] for s in trajectory.steps for r in s.info.get("results", {}).values()]
    return sum(s == "SUCCESS" for s in statuses) / len(statuses) if statuses else None


def settle(task: Task, trajectory: Trajectory, success: bool, done_claims: list[int],
           completed_at_first_step: bool = False) -> Settlement:
    """The episode's outcome and metrics (success is the verifier's sticky verdict; DONE is not required).

    `completed_at_first_step`: the goal held in the scene file and the first step ran no command (the
    trajectory's first step then carries no verifier info)."""
    steps = len(trajectory.steps)
    claimed = bool(done_claims)
    cell = DONE_CELLS[(0 if success else 1) if claimed else (2 if success else 3)]
    multi = task.data["agents"] > 1
    parse_failures = unparsable_steps(trajectory)
    metrics: dict[str, Any] = {
        "success": success,
        "success_single": None if multi else success,
        "success_multi": success if multi else None,
        "steps": steps,
        "success_steps": steps if success else None,
        "done_claim": cell,
        "first_done_step": done_claims[0] if done_claims else None,
        "first_completion_step": _first_completion(trajectory, completed_at_first_step),
        "command_success_rate": _command_success_rate(trajectory),
        "parse_failures": parse_failures,
        "scalar_max_size": task.data["scalar_max_size"],
    }
    if success:
        return Settlement("success", metrics)
    outcome = failure_outcome(steps, parse_failures, trajectory.end_reason == "max_steps")
    if outcome == PARSE_FAILURE:
        return Settlement(outcome, metrics, f"none of the {steps} replies could be parsed", "unparsable")
    if outcome != AGENT_FAILURE:
        return Settlement(outcome, metrics, f"goal not reached in {steps} steps", "step_cap")
    reason = "claimed DONE before the goal held" if claimed else "stopped before the goal held"
    return Settlement("agent_failure", metrics, reason, "false_done" if claimed else "stopped")


def _average(values: list[float]) -> float:
    """The mean of a non-empty list."""
    return sum(values) / len(values)


def _mean(values: list[float]) -> float | None:
    return _average(values) if values else None


def _cell(records: list[dict[str, Any]]) -> Cell | str:
    if not records:
        return "-"
    sr = 100 * sum(bool(r["metrics"]["success"]) for r in records) / len(records)
    steps = _mean([r["metrics"]["steps"] for r in records])
    return Cell(f"{sr:.1f} / {steps:.1f} (n={len(records)})", sr=sr, steps=steps, n=len(records))


def detail_tables(records: list[dict[str, Any]]) -> list[DetailTable]:
    """The paper's main-table layout (SR% / Step per category, single and multi averages) and DONE claims."""
    scored = [r for r in records if r["outcome"] not in ("model_error", "env_error", "timeout")]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for rec in scored:
        groups[(rec["model"] or "-", rec["agent"])].append(rec)
    main_rows, done_rows = [], []
    for (model, agent), recs in sorted(groups.items()):
        by_cat = defaultdict(list)
        for rec in recs:
            by_cat[rec["task_category"]].append(rec)
        rates = {c: 100 * _average([float(r["metrics"]["success"]) for r in by_cat[c]]) for c in CATEGORIES
                 if by_cat[c]}
        single = _mean([rates[c] for c in SINGLE_CATEGORIES if c in rates])
        multi = _mean([rates[c] for c in MULTI_CATEGORIES if c in rates])
        main_rows.append([model, agent, *(_cell(by_cat[c]) for c in CATEGORIES), single, multi])
        counts = {c: sum(r["metrics"]["done_claim"] == c for r in recs) for c in DONE_CELLS}
        done_rows.append([model, agent, *(counts[c] for c in DONE_CELLS)])
    scalar = sum(bool(r["metrics"].get("scalar_max_size")) for r in scored)
    titles = [c.replace("_", " ") for c in CATEGORIES]
    return [
        DetailTable("SR % / mean steps per category (steps over all episodes; the paper's Table 1 layout)",
                    ["model", "agent", *titles, "single avg SR", "multi avg SR"], main_rows),
        DetailTable("DONE claims against the verifier", ["model", "agent", *DONE_CELLS], done_rows),
        DetailTable("Scalar max_size tasks (the reference harness drops them)",
                    ["episodes included", "to exclude"], [[scalar, "omniear.exclude_scalar_max_size=true"]]),
    ]
