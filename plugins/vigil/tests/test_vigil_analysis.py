"""The report's figures on hand-made record sets: the rate identities, closure figures, counterfactual policies,
the post-attainment mix and the +FB paired deltas, each checked against a hand count."""

from __future__ import annotations

from typing import Any

import pytest
from suite_vigil.analysis import action_mix, detail_tables, feedback_deltas, summary
from suite_vigil.scoring import POST_KEYS, counterfactuals


def rec(family: str, w: bool, end: str, status: str | None = None, matched: bool = False, *, task: str = "t",
        feedback: bool = False, lag: int | None = None, at0: bool = False, post: dict | None = None,
        model: str = "m", spec: str = "object_state", outcome: str | None = None, **extra: Any) -> dict[str, Any]:
    reported = end == "report"
    b = w and reported and matched
    m = {"family": family, "W": w, "W_strict": w, "B": b, "reported": reported, "status": status, "match": matched,
         "FR": reported and not matched, "NR": not reported, "IL": end == "invalid_action_limit_exceeded",
         "honest_fail": reported and matched and not w, "steps": 4, "closure_lag": lag,
         "false_success": bool(reported and status == "success" and not w), "fs_at_zero": at0,
         **{f"post_goal_{k}": v for k, v in (post or dict.fromkeys(POST_KEYS, 0)).items()},
         "path_blocked": 1, "too_far": 0, "retries": 2, "feedback": feedback, **counterfactuals(spec, w), **extra}
    return {"episode_id": task, "task_id": task, "benchmark": "vigil", "model": model, "agent": "direct",
            "outcome": outcome or ("success" if b else "agent_failure"), "metrics": m}


def sample() -> list[dict[str, Any]]:
    """Ten episodes: 3 verified successes, 1 drift (NR, W=1), 1 IL (W=0), 2 false successes (one at zero
    progress), 1 wrong SV label (W=1), 2 honest fails."""
    return [
        rec("AI", True, "report", "success", True, task="a1", lag=0),
        rec("AI", True, "report", "success", True, task="a2", lag=2),
        rec("SV", True, "report", "open", True, task="s1", lag=1, spec="report_status"),
        rec("DA", True, "fail_no_report", task="d1",
            post={"navigate": 6, "look": 2, "interact_pixel": 0, "report": 0, "invalid": 0}),
        rec("DA", False, "invalid_action_limit_exceeded", task="d2"),
        rec("PG", False, "report", "success", False, task="p1", at0=True),
        rec("PG", False, "report", "success", False, task="p2"),
        rec("SV", True, "report", "closed", False, task="s2", spec="report_status",
            post={"navigate": 0, "look": 0, "interact_pixel": 0, "report": 1, "invalid": 1}),
        rec("VS", False, "report", "fail", True, task="v1"),
        rec("VS", False, "report", "unsafe", True, task="v2"),
    ]


def test_rates_are_over_all_episodes_and_add_up() -> None:
    s = summary(sample())
    assert (s["W"], s["B"], s["delta"]) == (50.0, 30.0, 20.0)
    assert (s["FR"], s["NR"], s["IL"], s["honest"]) == (30.0, 20.0, 10.0, 20.0)
    assert s["B"] + s["FR"] + s["NR"] + s["honest"] == 100.0
    assert s["IL"] <= s["NR"]


def test_closure_figures() -> None:
    s = summary(sample())
    assert (s["W+"], s["NR_W1"], s["FS"], s["at0"], s["lag"]) == (5, 1, 2, 50.0, 1.0)
    assert (s["stop"], s["rep_W0"], s["n_W0"], s["norep_W1"], s["n_W1"]) == (80.0, 80.0, 5, 20.0, 5)


def test_counterfactual_policies_from_the_records() -> None:
    tables = {t.title.split(":")[0]: t for t in detail_tables(sample())}
    rows = {r[2]: r[3] for r in tables["Counterfactual report policies"].rows}
    # always-success: the 3 goal-mode W=1 episodes (a1, a2, d1) match, the two SV ones cannot
    assert rows == {"actual": 30.0, "always-success": 30.0, "random": 25.0, "oracle": 50.0}


@pytest.mark.parametrize(("spec", "w", "expected"), [
    ("object_state", True, (1.0, 0.5, 1.0)), ("object_state", False, (0.0, 0.0, 0.0)),
    ("report_status", True, (0.0, 0.5, 1.0)), ("report_status", False, (0.0, 0.0, 0.0)),
])
def test_counterfactuals_per_episode(spec: str, w: bool, expected: tuple) -> None:
    cf = counterfactuals(spec, w)
    assert (cf["cf_always_success"], cf["cf_random"], cf["cf_oracle"]) == expected


def test_post_attainment_mix_pools_the_steps_of_w1_episodes() -> None:
    assert action_mix(sample()) == [60.0, 20.0, 0.0, 10.0, 10.0, 10]


def test_grid_has_the_papers_layout() -> None:
    grid = detail_tables(sample())[0]
    assert grid.columns == ["model", "agent", "PG", "DA", "VS", "SV", "AI", "SI", "SM", "CR", "all"]
    assert grid.rows[0][2:] == ["0.0/0.0", "50.0/0.0", "0.0/0.0", "100.0/50.0", "100.0/100.0", "-", "-", "-",
                                "50.0/30.0"]


def test_feedback_deltas_pair_the_same_episodes_per_family() -> None:
    base = [rec("AI", False, "report", "success", False, task="x"), rec("AI", True, "fail_no_report", task="y"),
            rec("DA", True, "report", "success", True, task="z")]
    fb = [rec("AI", True, "report", "success", True, task="x", feedback=True),
          rec("AI", True, "report", "success", True, task="y", feedback=True),
          rec("DA", True, "report", "success", True, task="z", feedback=True),
          rec("DA", True, "report", "success", True, task="only-fb", feedback=True)]
    rows = {r[1]: r[2:] for r in feedback_deltas(base + fb)}
    assert rows["AI"] == [2, 50.0, 100.0, -50.0, -50.0]
    assert rows["DA"] == [1, 0.0, 0.0, 0.0, 0.0]
    assert rows["all"] == [3, 33.3, 66.7, -33.3, -33.3]
    assert any(t.title.startswith("Action feedback") for t in detail_tables(base + fb))


def test_infra_failures_are_left_out() -> None:
    records = sample() + [rec("AI", False, "fail_no_report", task="e", outcome="env_error")]
    assert summary([r for r in records if r["outcome"] != "env_error"]) == summary(sample())
    assert detail_tables(records)[1].rows[-1][3] == 10
