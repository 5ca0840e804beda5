"""The report's Vigil tables (section 7 and 8), computed from stored episode records without re-running:
the per-family W/B grid, closure (W+, NR, FS, @0, lag), conditional report rates, counterfactual report
policies, the post-attainment action mix, execution events, and the +FB paired deltas per family."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from suite.contract.records import INFRA_OUTCOMES
from suite.contract.registry import Cell, DetailTable

from suite_vigil.scoring import POST_KEYS
from suite_vigil.vocabulary import FAMILY_CODES, SKILLS

Records = list[dict[str, Any]]
POLICIES = (("actual", "B"), ("always-success", "cf_always_success"), ("random", "cf_random"),
            ("oracle", "cf_oracle"))


def _pct(values: list[float]) -> float | None:
    return round(100.0 * sum(values) / len(values), 1) if values else None


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 2) if values else None


def _rate(recs: Records, key: str) -> float | None:
    return _pct([float(r["metrics"].get(key) or 0) for r in recs])


def _groups(records: Records) -> dict[tuple[str, str], Records]:
    out: dict[tuple[str, str], Records] = defaultdict(list)
    for rec in records:
        if rec["outcome"] not in INFRA_OUTCOMES and "W" in rec["metrics"]:
            fb = " +FB" if rec["metrics"].get("feedback") else ""
            out[(rec["model"] or "-", f"{rec['agent']}{fb}")].append(rec)
    return dict(sorted(out.items()))


def _families(recs: Records) -> dict[str, Records]:
    by = defaultdict(list)
    for rec in recs:
        by[rec["metrics"]["family"]].append(rec)
    return by


def summary(recs: Records) -> dict[str, Any]:
    """Aggregate figures of a set of episode records (rates in % of all of them)."""
    m = [r["metrics"] for r in recs]
    w1 = [x for x in m if x["W"]]
    w0 = [x for x in m if not x["W"]]
    fs = [x for x in m if x["false_success"]]
    lags = [x["closure_lag"] for x in m if x.get("closure_lag") is not None]
    w_rate, b_rate = _rate(recs, "W"), _rate(recs, "B")  # None exactly when there are no records
    return {
        "n": len(m), "W": w_rate, "W_strict": _rate(recs, "W_strict"), "B": b_rate,
        "delta": None if w_rate is None or b_rate is None else round(w_rate - b_rate, 1),
        "FR": _rate(recs, "FR"), "NR": _rate(recs, "NR"), "IL": _rate(recs, "IL"),
        "honest": _rate(recs, "honest_fail"), "steps": _mean([x["steps"] for x in m]),
        "W+": len(w1), "NR_W1": sum(not x["reported"] for x in w1), "FS": len(fs),
        "at0": _pct([float(x["fs_at_zero"]) for x in fs]), "lag": _mean(lags),
        "stop": _pct([float(x["reported"]) for x in m]), "rep_W0": _pct([float(x["reported"]) for x in w0]),
        "norep_W1": _pct([float(not x["reported"]) for x in w1]), "n_W0": len(w0), "n_W1": len(w1),
    }


def _wb(s: dict[str, Any]) -> Cell:
    return Cell(f"{s['W']}/{s['B']}", W=s["W"], B=s["B"], n=s["n"])


def detail_tables(records: Records) -> list[DetailTable]:
    """Every Vigil table, one row per (model, agent) of the report (a +FB run is its own row)."""
    grid, fam_rows, closure, cond, cf, mix, events = [], [], [], [], [], [], []
    for (model, agent), recs in _groups(records).items():
        fams = _families(recs)
        s = summary(recs)
        grid.append([model, agent, *(_wb(summary(fams[f])) if fams.get(f) else "-" for f in FAMILY_CODES), _wb(s)])
        for code in (*FAMILY_CODES, "all"):
            part = recs if code == "all" else fams.get(code, [])
            if part:
                f = summary(part)
                fam_rows.append([model, agent, code, f["n"], f["W"], f["W_strict"], f["B"], f["delta"], f["FR"],
                                 f["NR"], f["IL"], f["honest"], f["steps"]])
        always = _rate(recs, "cf_always_success")
        closure.append([model, agent, s["W+"], s["NR_W1"], s["FS"], s["at0"], s["lag"],
                        None if always is None or s["B"] is None else round(always - s["B"], 1)])
        cond.append([model, agent, s["stop"], s["rep_W0"], s["n_W0"], s["norep_W1"], s["n_W1"]])
        for name, key in POLICIES:
            cf.append([model, agent, name, _rate(recs, key),
                       *(_rate(fams[f], key) if fams.get(f) else None for f in FAMILY_CODES)])
        mix.append([model, agent, *action_mix(recs)])
        events.append([model, agent, *(_mean([float(r["metrics"][k]) for r in recs])
                                       for k in ("path_blocked", "too_far", "retries"))])
    tables = [
        DetailTable("Vigil W/B (%) per family (the paper's grid layout)", ["model", "agent", *FAMILY_CODES, "all"],
                    grid),
        DetailTable("Vigil per family: rates in % of all episodes (FR, NR, IL overlap; B + FR + NR + honest = 100)",
                    ["model", "agent", "family", "n", "W", "W strict", "B", "Δ", "FR", "NR", "IL", "honest fail",
                     "steps"], fam_rows),
        DetailTable("Closure: W+ (W=1 episodes), NR among them, false successes, % of them at zero progress, lag, "
                    "and what always reporting success would gain over B (pp)",
                    ["model", "agent", "W+", "NR (W=1)", "FS", "@0 %", "closure lag", "always-success − B"], closure),
        DetailTable("Conditional report rates (Table 14)",
                    ["model", "agent", "Stop %", "P(rep|W=0) %", "n W=0", "P(¬rep|W=1) %", "n W=1"], cond),
        DetailTable("Counterfactual report policies: B (%) from the stored records (Table 12; random = its "
                    "expectation)", ["model", "agent", "policy", "all", *FAMILY_CODES], cf),
        DetailTable("Post-attainment action mix (% of steps after the goal first holds, W=1 episodes pooled)",
                    ["model", "agent", *SKILLS, "invalid", "steps"], mix),
        DetailTable("Execution events per episode (logged in every condition)",
                    ["model", "agent", "path_blocked", "too_far", "retries"], events),
    ]
    paired = feedback_deltas(records)
    if paired:
        tables.append(DetailTable("Action feedback: +FB minus base on the same episodes (pp)",
                                  ["model", "family", "n", "ΔW", "ΔB", "ΔFR", "ΔNR"], paired))
    return tables


def action_mix(recs: Records) -> list[Any]:
    """Shares (%) of each skill among all post-attainment steps of W=1 episodes, and the step count."""
    totals: dict[str, int] = defaultdict(int)
    for rec in recs:
        if rec["metrics"]["W"]:
            for k in POST_KEYS:
                totals[k] += rec["metrics"][f"post_goal_{k}"]
    n = sum(totals.values())
    return [round(100.0 * totals[k] / n, 1) if n else None for k in POST_KEYS] + [n]


def feedback_deltas(records: Records) -> list[list[Any]]:
    """Per model and family, the +FB run minus the base run on the episodes both finished (pp)."""
    by: dict[tuple[str, bool], dict[str, dict[str, Any]]] = defaultdict(dict)
    for rec in records:
        if rec["outcome"] not in INFRA_OUTCOMES and "W" in rec["metrics"]:
            by[(rec["model"] or "-", bool(rec["metrics"].get("feedback")))][rec["task_id"]] = rec["metrics"]
    rows = []
    for model in sorted({m for m, _ in by}):
        base, fb = by.get((model, False), {}), by.get((model, True), {})
        shared = sorted(base.keys() & fb.keys())
        if not shared:
            continue
        for code in (*FAMILY_CODES, "all"):
            ids = [t for t in shared if code == "all" or base[t]["family"] == code]
            if ids:
                d = [round(100.0 * sum(float(fb[t][k]) - float(base[t][k]) for t in ids) / len(ids), 1)
                     for k in ("W", "B", "FR", "NR")]
                rows.append([model, code, len(ids), *d])
    return rows
