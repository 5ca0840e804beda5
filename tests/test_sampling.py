"""Stratified `--limit`: each stratum keeps its share, seeded, for benchmarks that declare strata."""

from __future__ import annotations

from collections import Counter

from suite.contract.records import Task
from suite.data.sampling import stratified_sample
from suite.engine.runner import select_tasks


def test_each_stratum_keeps_its_share() -> None:
    keys = ["a"] * 60 + ["b"] * 30 + ["c"] * 10
    picked = stratified_sample(keys, 20, 0)
    assert Counter(keys[i] for i in picked) == {"a": 12, "b": 6, "c": 2}
    assert picked == sorted(picked) and len(set(picked)) == 20


def test_leftovers_go_to_the_largest_remainders() -> None:
    keys = ["a"] * 5 + ["b"] * 3 + ["c"] * 2  # of 4: exact 2.0, 1.2, 0.8 -> 2, 1, 1
    assert Counter(keys[i] for i in stratified_sample(keys, 4, 1)) == {"a": 2, "b": 1, "c": 1}


def test_seeded_and_complete() -> None:
    keys = [i % 7 for i in range(100)]
    assert stratified_sample(keys, 30, 3) == stratified_sample(keys, 30, 3)
    assert stratified_sample(keys, 30, 3) != stratified_sample(keys, 30, 4)
    assert stratified_sample(keys, 100, 0) == list(range(100)) == stratified_sample(keys, 500, 0)


def test_select_tasks_uses_the_strata_when_given() -> None:
    tasks = [Task("b", f"t{i}", {"kind": "rare" if i < 10 else "common"}) for i in range(100)]
    plain = select_tasks(tasks, None, 10, 0)
    strat = select_tasks(tasks, None, 10, 0, strata=lambda t: t.data["kind"])
    assert Counter(t.data["kind"] for t in strat) == {"rare": 1, "common": 9}
    assert [t.id for t in plain] == [t.id for t in select_tasks(tasks, None, 10, 0)]  # unchanged without strata


def test_tuple_strata_cover_every_group_first_when_the_sample_allows() -> None:
    """AgentVQA's strata are (dataset, category): 14 datasets of unequal sizes; a sample of 14 holds one question of
    each dataset (a flat largest-remainder share would leave the small ones out), a sample of 28 two or more of the
    large ones, and the share within a dataset still follows its categories."""
    sizes = [250, 200, 150, 100, 100, 100, 100, 100, 100, 50, 50, 50, 25, 25]
    keys = [(f"d{d}", f"c{i % 3}") for d, size in enumerate(sizes) for i in range(size)]
    for n in (14, 20, 28, 100):
        picked = stratified_sample(keys, n, seed=0)
        assert len(picked) == n and len({keys[i][0] for i in picked}) == 14
    picked = stratified_sample(keys, 7, seed=0)  # fewer than the groups: seven of them, by their shares
    assert len(picked) == 7 and len({keys[i][0] for i in picked}) == 7
    assert stratified_sample(keys, 28, seed=3) == stratified_sample(keys, 28, seed=3)
