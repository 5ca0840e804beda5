"""Bootstrap confidence intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

#: the interval every report shows, and below how many values it is marked as unreliable (a percentile bootstrap
#: of a handful of episodes is far too narrow; of identical ones, zero-width)
CI_METHOD = "percentile bootstrap"
MIN_RELIABLE_N = 10


def bootstrap_ci(values: Sequence[float], resamples: int = 1000, confidence: float = 0.95,
                 seed: int = 0) -> tuple[float, float, float]:
    """Mean and percentile-bootstrap confidence interval of `values` (NaNs when empty)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(data.mean())
    if data.size == 1 or resamples <= 0:
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, data.size, size=(resamples, data.size))
    means = data[idx].mean(axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return mean, float(low), float(high)


def bootstrap_macro_ci(groups: Mapping[str, Sequence[float]], resamples: int = 1000, confidence: float = 0.95,
                       seed: int = 0) -> tuple[float, float, float]:
    """Mean of the group means and a percentile-bootstrap CI resampling within each group (NaNs when empty)."""
    data = [np.asarray(v, dtype=float) for _, v in sorted(groups.items()) if len(v)]
    if not data:
        return float("nan"), float("nan"), float("nan")
    mean = float(np.mean([d.mean() for d in data]))
    if resamples <= 0 or all(d.size == 1 for d in data):
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    means = np.mean([d[rng.integers(0, d.size, size=(resamples, d.size))].mean(axis=1) for d in data], axis=0)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return mean, float(low), float(high)


def finite_or_none(x: float) -> float | None:
    """`x` rounded to 6 decimals for JSON, or None for NaN (no data)."""
    return None if x != x else round(x, 6)
