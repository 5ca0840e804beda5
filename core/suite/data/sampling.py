"""Seeded stratified sampling: a subset that keeps each stratum's share of the whole (largest remainder)."""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence


def stratified_sample(keys: Sequence[Hashable], n: int, seed: int | str) -> list[int]:
    """Indices (sorted) of a seeded sample of `n` of the items whose strata are `keys`.

    Each stratum gets `n * size / total` items rounded down, and the items left over go to the strata with the
    largest remainders (ties in a seeded order), so every stratum's share matches the whole's as closely as whole
    numbers allow; then each stratum is sampled with the same seed. All items when `n` is not below their count."""
    if n >= len(keys):
        return list(range(len(keys)))
    rng = random.Random(seed)
    strata: dict[Hashable, list[int]] = {}
    for index, key in enumerate(keys):
        strata.setdefault(key, []).append(index)
    names = list(strata)
    exact = {k: n * len(strata[k]) / len(keys) for k in names}
    quota = {k: math.floor(exact[k]) for k in names}
    tiebreak = {k: r for r, k in enumerate(rng.sample(names, len(names)))}
    for k in sorted(names, key=lambda k: (quota[k] - exact[k], tiebreak[k]))[: n - sum(quota.values())]:
        quota[k] += 1
    return sorted(i for k in names for i in rng.sample(strata[k], quota[k]))
