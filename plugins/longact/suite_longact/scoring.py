"""LongAct's scoring (paper section 3.2 / spec section 7): SR, GC (item and object level, per type), Nav / Manip
efficiency steps and the Improvement Rate, and the report's Tables 1 and 2 and score curve."""

from __future__ import annotations

from typing import Any

from suite.contract.records import Settlement, Task, Trajectory
from suite.contract.registry import Cell, DetailTable
from suite.engine.outcomes import BUDGET_EXHAUSTED, PARSE_FAILURE, failure_outcome, unparsable_steps

from suite_longact.improvement import active_steps, expand, improvement_rate, normalised
from suite_longact.vocabulary import KINDS

CURVE_POINTS = 64


def ir_settings(config: Any) -> dict[str, Any]:
    """The Improvement Rate's open choices (config `ir`): n, accumulated (current | ever), axis (raw | efficiency
    | active), normalise (none | final), regress_on (time | index)."""
    ir = config or {}
    return {"n": int(ir.get("n", 10)), "accumulated": str(ir.get("accumulated", "current")),
            "axis": str(ir.get("axis", "raw")), "normalise": str(ir.get("normalise", "none")),
            "regress_on": str(ir.get("regress_on", "time"))}


def settle(task: Task, trajectory: Trajectory, env: Any, config: Any) -> Settlement:
    """The episode's metrics from the final checklist and the per-step score curve."""
    cl, c = env.checklist, env.counts
    settings = ir_settings(config)
    active = active_steps([bool(s.info.get("success")) for s in trajectory.steps]) \
        if settings["axis"] == "active" else None
    curve = expand(cl.curve, c.raw, len(cl.items), settings["accumulated"], settings["axis"], c.efficiency, active)
    scores = normalised(curve, settings["normalise"])
    ir = improvement_rate(scores, settings["n"], settings["regress_on"]) if scores is not None else None
    success = all(cl.status)
    changed = cl.side_effects(env.world)
    metrics: dict[str, Any] = {
        "gc_se": cl.gc_side_effects(env.world),
        "success": float(success),
        "gc": cl.gc,
        "side_effects": len(changed),
        "gc_object": cl.object_gc(),
        "nav_steps": round(c.nav, 2),
        "manip_steps": c.manip,
        "raw_steps": c.raw,
        "nav_raw": c.nav_raw,
        "manip_raw": c.manip_raw,
        "ir": ir,
        "split": task.data.get("split"),
        "scenario": task.category,
        "stopped": env.stopped,
        "curve": " ".join(f"{p.step}:{p.efficiency_step:g}:{p.met}:{p.ever}" for p in cl.curve),
        "items": len(cl.items),
        "unparsable": unparsable_steps(trajectory),
    }
    for kind, (met, total) in cl.by_kind().items():
        metrics[f"met_{kind}"], metrics[f"total_{kind}"] = met, total
        metrics[f"gc_{kind}"] = met / total if total else None
    if success:
        return Settlement("success", metrics)
    unmet = ", ".join(f"{i.object_type}.{i.attr}" + (" (a look-alike changed)" if not cl.kept(env.world, i) else "")
                      for i in cl.unmet()[:5])
    failure = f"{len(cl.unmet())}/{len(cl.items)} checklist items unmet ({unmet})"
    capped = trajectory.end_reason == "max_steps" and not env.stopped
    outcome = failure_outcome(len(trajectory.steps), metrics["unparsable"], capped)
    if outcome == PARSE_FAILURE:
        return Settlement(outcome, metrics, f"no reply parsed into an action; {failure}", "unparsable")
    if outcome == BUDGET_EXHAUSTED:
        return Settlement(outcome, metrics, f"step cap reached; {failure}", "step_cap")
    return Settlement(outcome, metrics, f"stopped with {failure}" if env.stopped else failure, "incomplete")


def _pct(value: float | None) -> Cell | str:
    return "-" if value is None else Cell(f"{100 * value:.2f}", percent=round(100 * value, 4))


def _num(value: float | None, fmt: str) -> Cell | str:
    return "-" if value is None else Cell(format(value, fmt), value=round(value, 4))


def _group(records: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in records:
        if r.get("outcome") in ("model_error", "env_error", "timeout"):
            continue
        key = (str(r["metrics"].get("split") or "detailed"), str(r.get("agent")), str(r.get("model") or "-"))
        groups.setdefault(key, []).append(r)
    return groups


def _mean(recs: list[dict[str, Any]], key: str) -> float | None:
    """The mean of a metric over the records that have it (older records lack GC-SE)."""
    vals = [r["metrics"][key] for r in recs if r["metrics"].get(key) is not None]
    return sum(vals) / len(vals) if vals else None


def table_row(recs: list[dict[str, Any]], kinds: tuple[str, ...]) -> list[Cell | str]:
    """GC Avg (the paper's GC: the share of objects whose every item holds, per episode, then the mean), GC per type
    (pooled over items), SR, Nav, Manip and IR of a group of episodes."""
    m = [r["metrics"] for r in recs]
    cols = [_pct(_mean(recs, "gc_object"))]
    for kind in kinds:
        total = sum(x.get(f"total_{kind}", 0) for x in m)
        cols.append(_pct(sum(x.get(f"met_{kind}", 0) for x in m) / total if total else None))
    irs = [x["ir"] for x in m if x.get("ir") is not None]
    cols += [_pct(sum(x["success"] for x in m) / len(m)),
             _num(sum(x["nav_steps"] for x in m) / len(m), ".0f"),
             _num(sum(x["manip_steps"] for x in m) / len(m), ".1f"),
             _num(sum(irs) / len(irs) if irs else None, ".2f")]
    return cols


TABLE1 = ("PP", "TO", "OC", "Sl")
TABLE2 = ("PP", "TO", "Sl", "CK", "FW")


def parse_curve(text: str) -> list[tuple[int, float, int, int]]:
    """The score curve of an episode record: (raw step, efficiency step, items met, items ever met) per change."""
    out = []
    for point in text.split():
        step, eff, met, ever = point.split(":")
        out.append((int(step), float(eff), int(met), int(ever)))
    return out


def score_curve(recs: list[dict[str, Any]], points: int = CURVE_POINTS) -> list[float]:
    """Mean GC (current) after each of `points` equally spaced raw steps up to the longest episode."""
    longest = max(r["metrics"]["raw_steps"] for r in recs) or 1
    out = []
    for i in range(points + 1):
        step = longest * i / points
        vals = []
        for r in recs:
            met = 0
            for p in parse_curve(r["metrics"]["curve"]):
                if p[0] <= step:
                    met = p[2]
            vals.append(met / max(r["metrics"]["items"], 1))
        out.append(sum(vals) / len(vals))
    return out


def _spark(values: list[float]) -> str:
    bars = " ▁▂▃▄▅▆▇█"
    return "".join(bars[min(8, int(v * 8 + 0.5))] for v in values)


def detail_tables(records: list[dict[str, Any]]) -> list[DetailTable]:
    """Table 1 (detailed split) and Table 2 (concise split) in the paper's layout, all six types, the curve."""
    groups = _group(records)
    tables = []
    for split, kinds, title in (("detailed", TABLE1, "Table 1 layout: detailed split"),
                                ("concise", TABLE2, "Table 2 layout: concise split")):
        rows = [[agent, model, str(len(recs)), *table_row(recs, kinds)]
                for (s, agent, model), recs in sorted(groups.items()) if s == split]
        if rows:
            tables.append(DetailTable(f"LongAct {title} (GC and SR in %, steps = efficiency steps)",
                                      ["agent", "model", "n", "GC Avg", *kinds, "SR", "Nav", "Manip", "IR"], rows))
    if groups:
        rows = [[split, agent, model, _pct(_mean(recs, "gc_se")), _num(_mean(recs, "side_effects"), ".2f"),
                 *table_row(recs, KINDS)] for (split, agent, model), recs in sorted(groups.items())]
        tables.append(DetailTable("LongAct GC by all six state types (%), with the side-effect-aware GC-SE",
                                  ["split", "agent", "model", "GC-SE", "side effects", "GC Avg", *KINDS, "SR", "Nav",
                                   "Manip", "IR"], rows))
        curve_rows = []
        for (split, agent, model), recs in sorted(groups.items()):
            curve = score_curve(recs)
            longest = max(r["metrics"]["raw_steps"] for r in recs)
            curve_rows.append([split, agent, model, str(longest), _spark(curve), _pct(curve[-1])])
        tables.append(DetailTable("LongAct score (GC) versus raw step, 0 to the longest episode",
                                  ["split", "agent", "model", "steps", "curve", "final GC"], curve_rows))
    return tables
