"""AsgardBench scoring: binary success, the end reason, turn-failure rates, and the paper's tables."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Any

from suite.contract.records import Settlement, Task, Trajectory
from suite.contract.registry import Cell, DetailTable
from suite.engine.outcomes import PARSE_FAILURE, failure_outcome

from suite_asgard.conditions import condition_order
from suite_asgard.termination import END_REASONS, MAX_FAILURES, MAX_REPEATS, MAX_STEPS
from suite_asgard.vocabulary import TASK_TYPES
from suite_asgard.world_rules import TURN_KINDS, UNDOABLE, UNDOABLE_CATEGORIES, UNPARSABLE

INFRA = ("model_error", "env_error", "timeout")
#: Infra outcomes the official harness counts as failed tasks (its API_FAILURE); a crash of its simulator stops
#: the run instead, so env errors and timeouts stay out of its denominator too.
HARNESS_FAILED = ("model_error",)


def settle(task: Task, trajectory: Trajectory, env: Any) -> Settlement:
    """The episode's outcome and metrics from the environment's turn records and termination state."""
    turns = env.turns
    n = len(turns)
    kinds = Counter(t.kind for t in turns)
    categories = Counter(t.category for t in turns if t.kind == UNDOABLE)
    status = env.status
    success = bool(status) and all(status)
    end = env.termination.reason or (MAX_STEPS if trajectory.end_reason == "max_steps" else None)
    plan = env.plan
    acted = kinds[UNPARSABLE] < n
    metrics: dict[str, Any] = {
        "success": success,
        "steps": n,
        "step_count": plan.step_count,
        "step_ratio": n / plan.step_count if success else None,
        "goals_met": sum(status),
        "goals_total": len(status),
        # goals already true in the initial scene are no credit to an agent none of whose replies could be parsed
        "goal_fraction": (sum(status) / len(status) if acted else 0.0) if status else None,
        "end_reason": end or "unfinished",
        "extension": env.termination.extension,
        **{f"turns_{k}": kinds[k] for k in TURN_KINDS},
        **{f"{k}_rate": (kinds[k] / n if n else None) for k in TURN_KINDS},
        **{f"undoable_{c}": categories[c] for c in UNDOABLE_CATEGORIES},
        "task_type": plan.task_type,
        "condition": task.data["condition"]["name"],
        "repeat": task.meta.get("repeat", 1),
        "data": "generated" if task.data["generated"] else "official",
    }
    if success:
        return Settlement("success", metrics)
    left = ", ".join(env.unmet_goals())
    outcome = failure_outcome(n, kinds[UNPARSABLE], end == MAX_STEPS)
    if outcome == PARSE_FAILURE:
        return Settlement(outcome, metrics, f"no reply had an 'Action:' line ({end}); unmet: {left}", end)
    if end == MAX_STEPS:
        return Settlement(outcome, metrics, f"step limit reached after {n} steps; unmet: {left}", end)
    repeats = env.termination.rules.loop_repeats
    # keyed by str | None: `end` is None when the episode ended for a reason the termination did not give
    reasons: dict[str | None, str] = {MAX_REPEATS: f"the same action or sequence repeated {repeats} times in a row",
                                      MAX_FAILURES: "10 failed turns in a row"}
    reason = reasons.get(end, f"ended ({trajectory.end_reason})")
    return Settlement("agent_failure", metrics, f"{reason}; unmet: {left}", end or "unfinished")


def _median_rate(records: list[dict[str, Any]]) -> tuple[float, int] | None:
    """The median over repeats of the success rate, and the number of tasks per repeat."""
    if not records:
        return None
    by_repeat: dict[int, list[bool]] = defaultdict(list)
    for rec in records:
        by_repeat[int(rec["metrics"].get("repeat") or 1)].append(bool(rec["metrics"]["success"]))
    rates = [100 * sum(v) / len(v) for v in by_repeat.values()]
    return statistics.median(rates), max(len(v) for v in by_repeat.values())


def _rate_cell(records: list[dict[str, Any]]) -> Cell | str:
    found = _median_rate(records)
    return "-" if found is None else Cell(f"{found[0]:.1f} (n={found[1]})", sr=found[0], n=found[1])


def _cell(records: list[dict[str, Any]]) -> Cell | str:
    """Our success rate: infra failures are left out of the denominator."""
    return _rate_cell([r for r in records if r["outcome"] not in INFRA])


def _harness_cell(records: list[dict[str, Any]]) -> Cell | str:
    """The harness's success rate: a model error is a failed task (env errors and timeouts are left out)."""
    return _rate_cell([{**r, "metrics": {**r["metrics"], "success": r["outcome"] == "success"}} for r in records
                       if r["outcome"] not in INFRA or r["outcome"] in HARNESS_FAILED])


def _groups(records: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for rec in records:
        key = (rec["model"] or "-", rec["agent"], str(rec["metrics"].get("condition", "-")))
        groups[key].append(rec)
    return dict(sorted(groups.items()))


def _pct(part: float, whole: float) -> Cell | str:
    return Cell(f"{100 * part / whole:.1f}", percent=100 * part / whole) if whole else "-"


def detail_tables(records: list[dict[str, Any]]) -> list[DetailTable]:
    """Success per task type and per condition (medians over repeats), turn outcomes, end reasons, steps.

    Infra failures are left out of every table but the two columns and the table that reproduce the harness's
    denominator, where a model error counts as a failed task.
    """
    groups = _groups(records)
    type_rows, turn_rows, end_rows, step_rows = [], [], [], []
    conditions = sorted({k[2] for k in groups}, key=condition_order)
    by_model: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    harness_by_model: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for (model, agent, condition), all_recs in groups.items():
        recs = [r for r in all_recs if r["outcome"] not in INFRA]
        harness = _harness_cell(all_recs)
        if harness != "-":
            harness_by_model[(model, agent)][condition] = harness
        if not recs:
            continue
        by_model[(model, agent)][condition] = _cell(recs)
        by_type = defaultdict(list)
        for rec in recs:
            by_type[rec["metrics"].get("task_type") or rec["task_category"]].append(rec)
        type_rows.append([model, agent, condition, _cell(recs), harness, *(_cell(by_type[t]) for t in TASK_TYPES)])
        turns = {k: sum(r["metrics"].get(f"turns_{k}", 0) for r in recs) for k in ("valid", "invalid_action",
                                                                                  "invalid_object", UNDOABLE,
                                                                                  UNPARSABLE)}
        total = sum(turns.values())
        undoable = {c: sum(r["metrics"].get(f"undoable_{c}", 0) for r in recs) for c in UNDOABLE_CATEGORIES}
        turn_rows.append([model, agent, condition, total, *(_pct(v, total) for v in turns.values()),
                          *(_pct(v, turns[UNDOABLE]) for v in undoable.values())])
        ends = Counter(r["metrics"].get("end_reason") for r in recs)
        end_rows.append([model, agent, condition, len(recs), *(ends.get(e, 0) for e in END_REASONS)])
        wins = [r["metrics"] for r in recs if r["metrics"]["success"]]
        ratio = statistics.mean(m["step_ratio"] for m in wins) if wins else None
        steps = statistics.mean(m["steps"] for m in wins) if wins else None
        extended = sum(r["metrics"].get("extension") != "none" for r in recs)
        step_rows.append([model, agent, condition, len(wins), steps, ratio, extended])
    condition_rows = [[m, a, *(cells.get(c, "-") for c in conditions)] for (m, a), cells in sorted(by_model.items())]
    harness_rows = [[m, a, *(cells.get(c, "-") for c in conditions)]
                    for (m, a), cells in sorted(harness_by_model.items())]
    return [
        DetailTable("Success rate % per task type (median over repeats; n = tasks per repeat; infra failures left "
                    "out, except in 'all, harness', where a model error is a failed task as in the harness)",
                    ["model", "agent", "condition", "all", "all, harness", *TASK_TYPES], type_rows),
        DetailTable("Success rate % per condition (the paper's Table 6 layout; median over repeats)",
                    ["model", "agent", *conditions], condition_rows),
        DetailTable("Success rate % per condition with the harness's denominator (a model error is a failed task; "
                    "compare these with the paper's Table 6)", ["model", "agent", *conditions], harness_rows),
        DetailTable("Turns: % valid / invalid action / invalid object / undoable / unparsable, and the undoable "
                    "turns' causes (% holding / visibility / incompatibility)",
                    ["model", "agent", "condition", "turns", "valid", "invalid action", "invalid object", "undoable",
                     "unparsable", *UNDOABLE_CATEGORIES], turn_rows),
        DetailTable("How episodes ended (Fig. 6)", ["model", "agent", "condition", "episodes", "success",
                                                   "max repeats", "max failures", "max steps"], end_rows),
        DetailTable("Steps of successful episodes: mean steps, mean ratio to the plan's N; episodes given extra "
                    "steps past the soft limit", ["model", "agent", "condition", "successes", "mean steps",
                                                  "steps / N", "extended"], step_rows),
    ]



