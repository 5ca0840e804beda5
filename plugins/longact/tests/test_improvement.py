"""The Improvement Rate against hand-computed cases and the power-law calibration of the spec."""

from __future__ import annotations

import numpy as np
import pytest
from suite_longact.checklist import ScorePoint
from suite_longact.improvement import expand, improvement_rate


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
