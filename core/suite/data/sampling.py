"""Seeded stratified sampling: a subset that keeps each stratum's share of the whole (largest remainder).

Strata given as tuples are nested: the sample is first shared out over the first element (e.g. AgentVQA's
dataset), every group getting at least one item when the sample is at least as large as the number of groups, then
within each group over the rest of the key (e.g. the sub-task category) by the same largest-remainder rule."""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence


def _quotas(sizes: dict[Hashable, int], n: int, rng: random.Random, at_least_one: bool) -> dict[Hashable, int]:
    """How many of `n` each stratum gets: its share rounded down, the rest by the largest remainders (ties in a
    seeded order); with `at_least_one` (and `n` at least the number of strata) every stratum gets one or more,
    taken back from the strata most above their share."""
    names = list(sizes)
    total = sum(sizes.values())
    exact = {k: n * sizes[k] / total for k in names}
    quota = {k: math.floor(exact[k]) for k in names}
    tiebreak = {k: r for r, k in enumerate(rng.sample(names, len(names)))}
    for k in sorted(names, key=lambda k: (quota[k] - exact[k], tiebreak[k]))[: n - sum(quota.values())]:
        quota[k] += 1
    if at_least_one and n >= len(names):
        for k in names:
            if quota[k] == 0:
                quota[k] = 1
                donor = max((d for d in names if quota[d] > 1), key=lambda d: (quota[d] - exact[d], -tiebreak[d]))
                quota[donor] -= 1
    return quota


def _sample(keys: Sequence[Hashable], indices: list[int], n: int, rng: random.Random) -> list[int]:
    """`n` of `indices`, stratified by their keys (nested where the keys are tuples)."""
    tuples = {i: k for i in indices if isinstance(k := keys[i], tuple) and len(k) > 1}
    nested = len(tuples) == len(indices)
    strata: dict[Hashable, list[int]] = {}
    for i in indices:
        strata.setdefault(tuples[i][0] if nested else keys[i], []).append(i)
    quota = _quotas({k: len(v) for k, v in strata.items()}, n, rng, at_least_one=nested)
    out: list[int] = []
    for k, members in strata.items():
        if not nested:
            out += rng.sample(members, quota[k])
            continue
        rest = {i: tuples[i][1:] if len(tuples[i]) > 2 else tuples[i][1] for i in members}
        inner = [rest[i] for i in members]
        picked = _sample(inner, list(range(len(members))), quota[k], rng) if quota[k] < len(members) else \
            list(range(len(members)))
        out += [members[j] for j in picked]
    return out


def stratified_sample(keys: Sequence[Hashable], n: int, seed: int | str) -> list[int]:
    """Indices (sorted) of a seeded sample of `n` of the items whose strata are `keys`.

    Each stratum gets `n * size / total` items rounded down, and the items left over go to the strata with the
    largest remainders (ties in a seeded order), so every stratum's share matches the whole's as closely as whole
    numbers allow; then each stratum is sampled with the same seed. Tuple keys are nested (see the module). All
    items when `n` is not below their count."""
    if n >= len(keys):
        return list(range(len(keys)))
    return sorted(_sample(keys, list(range(len(keys))), n, random.Random(seed)))
