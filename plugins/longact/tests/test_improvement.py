"""The Improvement Rate against hand-computed cases and the power-law calibration of the spec."""

from __future__ import annotations

import numpy as np
import pytest
from suite_longact.checklist import ScorePoint
from suite_longact.improvement import active_steps, expand, improvement_rate, normalised


@pytest.mark.parametrize(("a", "expected"), [(1, 0.0), (2, 2.0), (3, 3.0)])
def test_power_law_curves(a: float, expected: float) -> None:
    t = np.arange(2001) / 2000
    assert improvement_rate(t**a, n=10) == pytest.approx(expected, abs=0.01)


def test_decelerating_curve_is_negative_and_flat_is_zero() -> None:
    t = np.arange(1001) / 1000
    assert improvement_rate(np.sqrt(t)) < -1.0
    assert improvement_rate(np.full(500, 0.3)) == pytest.approx(0.0, abs=1e-12)


def test_two_segments_by_hand() -> None:
    # s = 0,0,0,1,2,3 (T = 5); k = 2 splits into [0,1,2] and [3,4,5]
    # slopes on t/T: first 0, second 1 / 0.2 = 5; slope of (0, 5) over j/k = (0.5, 1) is 10
    assert improvement_rate([0, 0, 0, 1, 2, 3], n=2) == pytest.approx(10.0)


def test_too_short_is_undefined() -> None:
    assert improvement_rate([0, 1]) is None


def test_expand_current_ever_and_efficiency_axis() -> None:
    curve = [ScorePoint(0, 0.0, 0, 0), ScorePoint(3, 1.5, 2, 2), ScorePoint(5, 2.0, 1, 2)]
    assert expand(curve, 6, 4).tolist() == [0, 0, 0, 0.5, 0.5, 0.25, 0.25]
    assert expand(curve, 6, 4, accumulated="ever").tolist() == [0, 0, 0, 0.5, 0.5, 0.5, 0.5]
    assert expand(curve, 6, 4, axis="efficiency", total_efficiency=3.0).tolist() == [0, 0, 0.25, 0.25]


def test_normalised_by_the_final_score() -> None:
    # a curve ending at 0.5: IR is linear in the scale, so (t/T)^2 / 2 gives 1.0 as it is and 2.0 normalised
    t = np.arange(2001) / 2000
    half = 0.5 * t**2
    assert improvement_rate(half) == pytest.approx(1.0, abs=0.01)
    assert improvement_rate(normalised(half, "final")) == pytest.approx(2.0, abs=0.01)
    assert normalised(half, "none") is half
    assert normalised(np.zeros(5), "final") is None  # nothing scored: undefined


def test_idling_moves_raw_ir_but_not_ir_over_active_steps() -> None:
    # the same work (a steady climb over 6 steps), alone or after 6 failed (idle) steps
    climb = [ScorePoint(0, 0.0, 0, 0)] + [ScorePoint(i, 0.0, i, i) for i in range(1, 7)]
    alone = expand(climb, 6, 6)
    assert improvement_rate(alone, n=3) == pytest.approx(0.0, abs=1e-9)
    late = [ScorePoint(0, 0.0, 0, 0)] + [ScorePoint(6 + i, 0.0, i, i) for i in range(1, 7)]
    idle_first = expand(late, 12, 6)
    assert idle_first.tolist()[:7] == [0.0] * 7
    assert improvement_rate(idle_first, n=3) > 0.5  # idling first reads as acceleration
    active = active_steps([False] * 6 + [True] * 6)
    assert active == [0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6]
    on_active = expand(late, 12, 6, axis="active", active=active)
    assert on_active.tolist() == alone.tolist()
    assert improvement_rate(on_active, n=3) == pytest.approx(0.0, abs=1e-9)


def test_the_printed_regression_on_the_index_is_a_setting() -> None:
    """s = 0, 1, 3, 6 (T = 3; only k = 2 has segments of two points: [0, 1] and [3, 6]). On the index (App. D.2 as
    printed) the segment slopes are 1 and 3 and their slope over j = 1, 2 is 2; on normalised time (the default)
    they are 3 and 9 over t/T, and 12 over j/k = 0.5, 1."""
    from suite_longact.improvement import improvement_rate

    assert improvement_rate([0, 1, 3, 6], n=2, regress_on="index") == pytest.approx(2.0)
    assert improvement_rate([0, 1, 3, 6], n=2) == pytest.approx(12.0)
