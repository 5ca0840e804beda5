"""The report's intervals: strata of one episode get a real interval, a single task gets none, repeats of a task are
resampled together, and every design the suite produces covers the truth 95 % of the time (by simulation)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from suite.cli.main import main
from suite.report.stats import NO_INTERVAL, _t_factor, bootstrap_macro_ci, task_of

Draw = Callable[[np.random.Generator], tuple[dict[str, list[float]], dict[str, list[str]] | None]]


def test_one_episode_per_stratum_gets_an_interval_of_some_width() -> None:
    # issue 37: one AgentVQA question per dataset, 3 of 5 right; the old bootstrap returned 60.0 [60.0, 60.0]
    right = {"d1": [1.0], "d2": [1.0], "d3": [0.0], "d4": [1.0], "d5": [0.0]}
    mean, low, high = bootstrap_macro_ci(right)
    assert mean == pytest.approx(0.6) and low < mean < high
    diffs = {"d1": [-1.0], "d2": [-1.0], "d3": [0.0], "d4": [-1.0], "d5": [0.0]}  # its paired differences
    mean, low, high = bootstrap_macro_ci(diffs)
    assert mean == pytest.approx(-0.6) and -1.0 <= low < mean < high <= 0.0
    # a lone stratum of one episode among bigger ones borrows its spread from the smallest of them
    lone = {"a": [1.0, 0.0, 1.0], "b": [0.0, 0.0, 0.0, 0.0], "c": [1.0]}
    with_c, without_c = bootstrap_macro_ci(lone), bootstrap_macro_ci({"a": lone["a"], "b": lone["b"]})
    assert with_c[2] - with_c[1] > 0 and with_c[1] < with_c[0] < with_c[2] and without_c[2] > without_c[1]


def test_a_single_task_gets_no_interval() -> None:
    assert np.isnan(bootstrap_macro_ci({"": [1.0]})[1:]).all()
    mean, low, high = bootstrap_macro_ci({"": [1.0, 0.0, 1.0]}, tasks={"": ["t", "t", "t"]})  # one task, 3 repeats
    assert mean == pytest.approx(2 / 3) and np.isnan(low) and np.isnan(high)


def test_repeats_of_a_task_are_resampled_together() -> None:
    assert task_of("counter/c01 #3") == task_of("counter/c01") == "counter/c01" and task_of("a #b") == "a #b"
    # four tasks each solved every time or never: 4 tasks, not 40 independent episodes
    values = [1.0] * 20 + [0.0] * 20
    tasks = [f"t{i // 10}" for i in range(40)]
    _, low, high = bootstrap_macro_ci({"": values}, tasks={"": tasks})
    _, low_iid, high_iid = bootstrap_macro_ci({"": values})
    assert high - low > 2 * (high_iid - low_iid)


def test_t_factor_matches_students_table() -> None:
    z = 1.959964
    for df, t in [(1, 12.706), (2, 4.303), (3, 3.182), (10, 2.228), (30, 2.042)]:
        assert _t_factor(0.95, df) * z == pytest.approx(t, rel=2e-3)


def test_report_says_why_a_single_task_has_no_interval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--repeats", "3",
                 "--out", str(out), "--no-report"]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    success = json.loads(capsys.readouterr().out)["rows"][0]["benchmarks"]["counter"]["metrics"]["success"]
    assert (success["n"], success["tasks"], success["mean"]) == (3, 1, 1.0)
    assert success["ci_low"] is None and success["ci_high"] is None and success["no_interval"] == NO_INTERVAL
    assert main(["report", str(out)]) == 0
    assert f"100.0 ({NO_INTERVAL})" in capsys.readouterr().out
    assert main(["report", str(out), "--format", "csv"]) == 0
    success_row = next(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert (success_row["ci_low"], success_row["tasks"], success_row["no_interval"]) == ("", "1", NO_INTERVAL)
    assert main(["report", str(out), "--format", "latex"]) == 0
    assert f"100.0 ({NO_INTERVAL})" in capsys.readouterr().out


# Coverage by simulation. Each design is drawn REPLICATIONS times with a known truth; the share of intervals that
# hold it estimates the coverage with a binomial standard error of sqrt(0.95 * 0.05 / 400) = 1.1 points, so a
# method whose true coverage is 95 % lands outside 95 +- 3.5 points (3.2 standard errors) with probability 0.0014.
# The draws are seeded, so the test is deterministic; the tolerance says how far from nominal a method may be.
REPLICATIONS, TOLERANCE = 400, 0.035
P6 = np.array([0.2, 0.4, 0.5, 0.6, 0.7, 0.9])  # six strata (AgentVQA's datasets, Vigil's families) of unequal rates
P20 = np.linspace(0.3, 0.7, 20)


def _stratified(rng: np.random.Generator) -> tuple[dict[str, list[float]], None]:
    """The macro mean of six strata of four tasks each."""
    return {str(g): list((rng.random(4) < p).astype(float)) for g, p in enumerate(P6)}, None


def _one_per_stratum(rng: np.random.Generator) -> tuple[dict[str, list[float]], None]:
    """Twenty strata of one task each (a small stratified --limit)."""
    return {str(g): [float(rng.random() < p)] for g, p in enumerate(P20)}, None


def _lone_single(rng: np.random.Generator) -> tuple[dict[str, list[float]], None]:
    """Five strata of three tasks and one of a single task."""
    groups = {str(g): list((rng.random(3) < p).astype(float)) for g, p in enumerate(P6[:5])}
    return {**groups, "5": [float(rng.random() < P6[5])]}, None


def _repeats(rng: np.random.Generator) -> tuple[dict[str, list[float]], dict[str, list[str]]]:
    """Twenty tasks of uniformly spread difficulty, three repeats each (--repeats 3): the truth is 0.5."""
    p = rng.random(20)
    values = (rng.random((20, 3)) < p[:, None]).astype(float).ravel()
    return {"": list(values)}, {"": [f"t{i // 3}" for i in range(60)]}


def _paired(rng: np.random.Generator) -> tuple[dict[str, list[float]], None]:
    """Paired differences of two models on thirty tasks of shared difficulty (logit d and d + 0.5)."""
    d = rng.normal(size=30)
    base, other = rng.random(30) < 1 / (1 + np.exp(-d)), rng.random(30) < 1 / (1 + np.exp(-d - 0.5))
    return {"": list(other.astype(float) - base)}, None


def _paired_truth() -> float:
    d = np.random.default_rng(99).normal(size=2_000_000)
    return float(np.mean(1 / (1 + np.exp(-d - 0.5)) - 1 / (1 + np.exp(-d))))


DESIGNS: dict[str, tuple[Draw, float]] = {
    "stratified": (_stratified, float(P6.mean())),
    "one unit per stratum": (_one_per_stratum, float(P20.mean())),
    "one stratum of one unit": (_lone_single, float(P6.mean())),
    "repeats": (_repeats, 0.5),
    "paired": (_paired, _paired_truth()),
}


@pytest.mark.parametrize("design", DESIGNS)
def test_intervals_cover_the_truth_at_their_nominal_rate(design: str) -> None:
    draw, truth = DESIGNS[design]
    rng = np.random.default_rng(7)
    hits = 0
    for replication in range(REPLICATIONS):
        groups, tasks = draw(rng)
        _, low, high = bootstrap_macro_ci(groups, 500, 0.95, replication, tasks)
        hits += low <= truth <= high
    assert abs(hits / REPLICATIONS - 0.95) <= TOLERANCE, f"{design}: coverage {hits / REPLICATIONS:.3f}"
