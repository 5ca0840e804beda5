"""The Improvement Rate (IR): the mean over k = 2..n of the slope of the k segment slopes of the score curve.

By default both regression layers run on normalised time (step t / T, segment j / k: `ir.regress_on=time`). The
paper's printed formula (App. D.2) regresses on the index (i = 1..m within a segment, j = 1..k across them:
`ir.regress_on=index`), which makes IR grow with the episode's length; its magnitudes (-1.12 ... 1.78; App. D maps
IR values to power-law curves) need the normalised reading: with it a curve s_t = (t / T)^a gives IR 0 for a = 1,
2.00 for a = 2 and 3.00 for a = 3 (tests/test_improvement.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from suite_longact.checklist import ScorePoint


def _slope(y: np.ndarray, x: np.ndarray) -> float:
    """The OLS slope of y on x."""
    xc = x - x.mean()
    den = float((xc * xc).sum())
    return float((xc * (y - y.mean())).sum() / den) if den > 0 else 0.0


def improvement_rate(scores: Sequence[float] | np.ndarray, n: int = 10, regress_on: str = "time") -> float | None:
    """IR of the score sequence s_0..s_T, regressing on normalised time (`time`) or on the index as printed
    (`index`); None when it is too short for two segments of two points."""
    s = np.asarray(scores, dtype=float)
    T = len(s) - 1
    if T < 3:
        return None
    t = np.arange(T + 1, dtype=float)
    rates = []
    for k in range(2, n + 1):
        segs = np.array_split(np.arange(T + 1), k)
        if min(len(g) for g in segs) < 2:
            break
        if regress_on == "index":
            alphas = np.array([_slope(s[g], np.arange(1, len(g) + 1, dtype=float)) for g in segs])
            rates.append(_slope(alphas, np.arange(1, k + 1, dtype=float)))
        else:
            alphas = np.array([_slope(s[g], t[g] / T) for g in segs])
            rates.append(_slope(alphas, np.arange(1, k + 1, dtype=float) / k))
    return float(np.mean(rates)) if rates else None


def normalised(scores: np.ndarray, normalise: str = "none") -> np.ndarray | None:
    """The score sequence as IR reads it: as it is (`none`), or divided by its final value (`final`, so that it ends
    at 1 like the curves of the paper's Appendix D.4; None when the final score is 0)."""
    if normalise != "final":
        return scores
    return scores / scores[-1] if len(scores) and scores[-1] > 0 else None


def active_steps(successes: Sequence[bool]) -> list[int]:
    """For r = 0..T, how many of the first r steps were active (their action succeeded)."""
    out = [0]
    for ok in successes:
        out.append(out[-1] + bool(ok))
    return out


def expand(curve: Sequence[ScorePoint], total_steps: int, total_items: int, accumulated: str = "current",
           axis: str = "raw", total_efficiency: float = 0.0, active: Sequence[int] | None = None) -> np.ndarray:
    """The per-step GC score (len T + 1) from the change points, on raw steps, on efficiency steps, or on active
    steps (`active`: active_steps of the episode; a failed or unparsable step takes no time there)."""
    key = "ever" if accumulated == "ever" else "met"
    denom = max(total_items, 1)
    if axis == "efficiency":
        length = int(round(total_efficiency))
        positions = [int(round(p.efficiency_step)) for p in curve]
    elif axis == "active" and active is not None:
        length = active[-1]
        positions = [active[min(p.step, len(active) - 1)] for p in curve]
    else:
        length = total_steps
        positions = [p.step for p in curve]
    s = np.zeros(length + 1)
    for pos, point in zip(positions, curve, strict=True):
        s[min(pos, length):] = getattr(point, key) / denom
    return s
