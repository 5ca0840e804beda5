"""The progress ETA counts steps against the episodes' step budgets (issue 16 item 4), not episodes alone, and waits
for a first wave of concurrent episodes; success is over the agent's outcomes, infra failures apart (issue 20 item
17)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from suite.engine import progress as progressmod
from suite.engine.progress import RunProgress, eta_seconds


def test_eta_is_the_budget_left_at_the_share_used_and_the_time_per_step() -> None:
    # 2 episodes took 10 of their 2 x 35 steps in 100 s: 10 s a step, 1/7 of a budget used;
    # 8 episodes of 35 steps are left: 280 steps of budget, 40 expected, 400 s
    assert eta_seconds(100.0, 10, 70, 280) == pytest.approx(400.0)
    assert eta_seconds(5.0, 0, 0, 280) is None


def test_short_first_episodes_do_not_make_a_long_run_look_short(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 60.0, 60.0, 60.0])
    monkeypatch.setattr(progressmod.time, "monotonic", lambda: next(clock))
    bar = RunProgress(total=3, console=Console(file=io.StringIO()), live=False, budgets=[1, 35, 35])
    bar.advance(True, 0, 0.0, "a", steps=1, budget=1)  # a 1-step episode took 60 s: by episodes, 120 s are left
    assert bar.eta() == pytest.approx(70 * 60.0)  # by steps: up to 70 steps of 60 s


def test_episodes_without_a_budget_count_at_the_mean_steps_used(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 30.0, 30.0])
    monkeypatch.setattr(progressmod.time, "monotonic", lambda: next(clock))
    bar = RunProgress(total=2, console=Console(file=io.StringIO()), live=False, budgets=[None, None])
    bar.advance(False, 0, 0.0, "a", steps=3)
    assert bar.eta() == pytest.approx(30.0)


def test_no_eta_until_a_first_wave_of_concurrent_episodes_has_finished(monkeypatch: pytest.MonkeyPatch) -> None:
    """8 episodes run together; the first ends after 300 s: the others are nearly done, not 7 x 300 s away."""
    clock = iter([0.0, 300.0, 300.0, 301.0, 301.0] + [302.0] * 20)
    monkeypatch.setattr(progressmod.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    monkeypatch.setattr(progressmod.sys, "stderr", out)
    bar = RunProgress(total=8, console=Console(file=io.StringIO()), live=False, budgets=[50] * 8, concurrency=8)
    bar.advance(False, 0, 0.0, "a", steps=1, budget=50, infra=True)
    assert bar.eta() is None and out.getvalue().rstrip().endswith("eta -")
    for _ in range(7):
        bar.advance(True, 0, 0.0, "b", steps=10, budget=50)
    assert bar.eta() == pytest.approx(0.0)


def test_success_is_over_the_agents_outcomes_and_infra_failures_are_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(progressmod.sys, "stderr", out)
    bar = RunProgress(total=4, console=Console(file=io.StringIO()), live=False)
    bar.advance(False, 0, 0.0, "a", infra=True)
    assert "success -  infra failures 1  tokens" in out.getvalue().splitlines()[-1]
    for success, infra in ((True, False), (False, False), (False, True)):  # success, agent_failure, timeout
        bar.advance(success, 0, 0.0, "b", infra=infra)
    assert "success 50% of 2  infra failures 2  tokens" in out.getvalue().splitlines()[-1]
