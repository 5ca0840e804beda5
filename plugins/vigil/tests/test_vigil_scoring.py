"""Hand-computed settlements for every row of section 7's outcome table, on real pack episodes."""

from __future__ import annotations

import pytest

from .conftest import act, first, oracle_actions, report, run

SPIN = act("navigate", mode="turn_left", magnitude=360.0)  # changes nothing: uses a step
BAD = act("navigate")
BAD.skill, BAD.invalid = None, "not exactly one JSON object"


@pytest.fixture(scope="module")
def pg():
    return first("PG")


@pytest.fixture(scope="module")
def sv():
    return first("SV", lambda t: t.data["episode"]["success_spec"]["property"] == "isOpen")


def expect(settlement, **figures) -> None:
    m = settlement.metrics
    got = {k: (settlement.category if k == "category" else settlement.outcome if k == "outcome" else m[k])
           for k in figures}
    assert got == figures


def test_w1_report_match_is_verified_success(pg) -> None:
    s, _ = run(pg, [*oracle_actions(pg), report("success")])
    expect(s, W=True, B=True, FR=False, NR=False, IL=False, outcome="success", category=None,
           outcome_category="verified_success", closure_lag=1, steps=2)  # ground, then report at once: lag 1


def test_w1_no_report_is_nr_drift(pg) -> None:
    s, _ = run(pg, [*oracle_actions(pg), SPIN, SPIN, SPIN, SPIN, report("success")])
    expect(s, W=True, B=False, NR=True, FR=False, IL=False, reported=False, end="fail_no_report",
           outcome="budget_exhausted", category="NR", outcome_category="post_attainment_drift", steps=5)
    assert [s.metrics[f"post_goal_{k}"] for k in ("navigate", "look", "interact_pixel", "report", "invalid")] == [
        4, 0, 0, 0, 0]


def test_w1_report_fail_is_fr(pg) -> None:
    s, _ = run(pg, [*oracle_actions(pg), report("fail")])
    expect(s, W=True, B=False, FR=True, NR=False, category="FR", outcome_category="unsupported_commitment",
           false_success=False)


def test_w0_report_success_is_a_false_success_at_zero_progress(pg) -> None:
    s, _ = run(pg, [report("success")])
    expect(s, W=False, B=False, FR=True, category="FR", outcome_category="unsupported_commitment",
           outcome="agent_failure", false_success=True, fs_at_zero=True, progress_at_report=0.0, cf_always_success=0.0)


@pytest.mark.parametrize("status", ["fail", "unsafe", "invalid", "completed!"])
def test_w0_fail_statuses_are_honest_fails(pg, status: str) -> None:
    s, _ = run(pg, [report(status)])
    expect(s, W=False, B=False, FR=False, NR=False, match=True, honest_fail=True, category="honest_fail",
           outcome_category="missed_execution")


def test_w0_state_labels_never_match_in_goal_mode(pg) -> None:
    s, _ = run(pg, [report("open")])
    expect(s, W=False, FR=True, honest_fail=False)


def test_w0_budget_exhausted_is_nr_missed_execution(pg) -> None:
    s, _ = run(pg, [SPIN] * 5)
    expect(s, W=False, NR=True, IL=False, category="NR", outcome_category="missed_execution", steps=5,
           end="fail_no_report", outcome="budget_exhausted")


def test_invalid_actions_over_the_limit_end_as_il(pg) -> None:
    limit = pg.data["episode"]["max_invalid"]
    s, env = run(pg, [BAD] * (limit + 1) + [report("fail")])
    expect(s, W=False, IL=True, NR=True, FR=False, category="IL", end="invalid_action_limit_exceeded",
           invalid_actions=limit + 1, steps=limit + 1, outcome="parse_failure")
    assert not env.state.report
    s, _ = run(pg, [SPIN] + [BAD] * (limit + 1))
    expect(s, IL=True, category="IL", outcome="agent_failure", steps=limit + 2)


def test_sv_needs_the_exact_label(sv) -> None:
    label = "open" if sv.data["episode"]["state_overrides"] else "closed"
    wrong = {"open": "closed", "closed": "open"}[label]
    right, _ = run(sv, [report(label)])
    expect(right, W=True, B=True, closure_lag=0)  # the goal held from the start: first seen after step 1, the report
    for status in (wrong, "success", "fail"):
        s, _ = run(sv, [report(status)])
        expect(s, W=True, B=False, FR=True, category="FR", cf_always_success=0.0, cf_oracle=1.0)


def test_closure_lag_is_the_report_step_minus_the_first_goal_step() -> None:
    ai = first("AI")
    actions = oracle_actions(ai)
    s, env = run(ai, [*actions, SPIN, SPIN, report("success")])
    assert env.state.log[0].progress < 1.0
    expect(s, W=True, B=True, closure_lag=3, first_goal_step=len(actions), report_step=len(actions) + 3)
    assert s.metrics["progress_final"] == 1.0


def test_progress_is_zero_until_a_sub_condition_advances() -> None:
    da = first("DA")
    s, env = run(da, [SPIN, report("success")])
    assert [log.progress for log in env.state.log] == [0.0, 0.0] and s.metrics["progress_max"] == 0.0
    assert s.metrics["fs_at_zero"]


def test_retries_count_repeats_of_an_identical_invocation(pg) -> None:
    click = next(a for a in oracle_actions(pg) if a.skill == "interact_pixel")
    s, _ = run(pg, [click, click, click, report("success")])
    assert s.metrics["retries"] == 2 and s.metrics["B"]
