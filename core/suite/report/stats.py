"""Bootstrap confidence intervals: an expanded percentile bootstrap that resamples tasks (the repeats of a task go
together) within each stratum, pooling strata of one task (docs/report.md, "Intervals")."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np

#: the interval every report shows, and below how many tasks it is marked as unreliable (a bootstrap of a handful
#: of tasks is too narrow; of identical ones, zero-width)
CI_METHOD = "expanded percentile bootstrap over tasks"
MIN_RELIABLE_N = 10
#: what the report shows instead of an interval when there is a single task to resample (repeats of one task say
#: nothing of how the others would go)
NO_INTERVAL = "no interval: one task"


def task_of(episode_id: str) -> str:
    """The task an episode runs: its id without the ` #k` that `--repeats` adds (repeats are resampled together)."""
    base, sep, k = episode_id.rpartition(" #")
    return base if sep and k.isdigit() else episode_id


def bootstrap_macro_ci(groups: Mapping[str, Sequence[float]], resamples: int = 1000, confidence: float = 0.95,
                       seed: int = 0, tasks: Mapping[str, Sequence[str]] | None = None) -> tuple[float, float, float]:
    """Mean of the group means (a plain mean for one group) and its bootstrap CI (NaNs when there is no interval).

    `tasks` names each value's task (default: every value its own). Tasks are resampled within their group; a
    group of one task draws from the pool of all such groups (with the smallest other group when it is the only
    one). A replicate's deviation from the estimate is scaled by sqrt(N / (N - 1)) for the N tasks it drew from
    (the unbiased variance) and by Student's t over the normal quantile (Hesterberg's expanded percentile
    interval); the bounds stay within the range of the values."""
    kept = {g: v for g, v in sorted(groups.items()) if len(v)}
    strata = [_units(v, (tasks or {}).get(g)) for g, v in kept.items()]
    if not strata:
        return float("nan"), float("nan"), float("nan")
    mean = float(np.mean([s.sum() / c.sum() for s, c in strata]))
    sizes = [s.size for s, _ in strata]
    pools = _pools(sizes)
    if resamples <= 0 or pools is None:
        return mean, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    spread = np.zeros(resamples)
    for size, pool in zip(sizes, pools, strict=True):
        sums = np.concatenate([strata[p][0] for p in pool])
        counts = np.concatenate([strata[p][1] for p in pool])
        idx = rng.integers(0, sums.size, size=(resamples, size))
        drawn = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
        spread += math.sqrt(sums.size / (sums.size - 1)) * (drawn - sums.sum() / counts.sum())
    replicates = mean + _t_factor(confidence, _freedom(sizes)) * spread / len(strata)
    alpha = (1 - confidence) / 2
    values = np.concatenate([np.asarray(v, dtype=float) for v in kept.values()])
    low, high = np.clip(np.quantile(replicates, [alpha, 1 - alpha]), values.min(), values.max())
    return mean, float(low), float(high)


def _units(values: Sequence[float], tasks: Sequence[str] | None) -> tuple[np.ndarray, np.ndarray]:
    """Per task of a group: the sum of its values and how many it has."""
    if tasks is None:
        return np.asarray(values, dtype=float), np.ones(len(values))
    order = {t: i for i, t in enumerate(dict.fromkeys(tasks))}
    index = [order[t] for t in tasks]
    sums, counts = np.zeros(len(order)), np.zeros(len(order))
    np.add.at(sums, index, np.asarray(values, dtype=float))
    np.add.at(counts, index, 1.0)
    return sums, counts


def _pools(sizes: list[int]) -> list[list[int]] | None:
    """Per group, the groups whose tasks it draws from: itself, or for a group of one task every group of one task
    (collapsed strata), with the smallest other group when it is the only one; None when there is one task in
    all."""
    single = [g for g, n in enumerate(sizes) if n == 1]
    pools = [[g] for g in range(len(sizes))]
    if len(single) == 1:
        others = [g for g in range(len(sizes)) if g not in single]
        if not others:
            return None
        single.append(min(others, key=lambda g: sizes[g]))
    for g in single:
        if sizes[g] == 1:
            pools[g] = single
    return pools


def _freedom(sizes: list[int]) -> int:
    """Degrees of freedom of the variance the bootstrap estimates: N - 1 per group of N > 1 tasks, and m - 1 for
    the pool of m groups of one task (a lone one borrows its spread and adds none)."""
    single = sizes.count(1)
    return sum(n - 1 for n in sizes if n > 1) + max(single - 1, 0)


def _t_factor(confidence: float, df: int) -> float:
    """Student's t quantile over the normal one at `confidence` for `df` degrees of freedom: how much wider a t
    interval is than a normal one (exact for df 1 and 2, Cornish-Fisher to the fourth order, within 1 %, above)."""
    p = 0.5 + confidence / 2
    z = NormalDist().inv_cdf(p)
    if df <= 2:
        return (math.tan(math.pi * (p - 0.5)) if df == 1 else (2 * p - 1) / math.sqrt(2 * p * (1 - p))) / z
    g = [(z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96, (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
         (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160]
    return 1 + sum(c / df ** (k + 1) for k, c in enumerate(g)) / z


def finite_or_none(x: float) -> float | None:
    """`x` rounded to 6 decimals for JSON, or None for NaN (no data)."""
    return None if x != x else round(x, 6)
