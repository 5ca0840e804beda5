"""Issue 34: PG's learned click prior (per object word, the grid point that grounded most training targets), read
from the simulator's instance buffer, and the pack generator's cap on it."""

from __future__ import annotations

import json
from collections import Counter

from suite.contract.registry import Reading
from suite.engine.host import build_host
from suite_vigil import clicks
from suite_vigil.baselines import play
from suite_vigil.plugin import PACK_DIR

from .conftest import tasks


def _pg() -> list:
    return [t for t in tasks() if t.category == "PG"]


def test_the_word_is_the_head_of_the_description() -> None:
    assert clicks.word_of("Find the shelf in view in your current view and ground it with a click, then report.") \
        == "shelf"
    assert clicks.word_of("Find the toilet paper hanger in your current view and ground it with a click.") \
        == "toilet paper hanger"
    assert clicks.word_of("Walk up to the sofa until it is within 1.5 m of you, then report.") == ""


def test_a_point_the_buffer_says_hits_grounds_the_target_when_played() -> None:
    """The hit points come from the click's own rule: a click at one solves the episode through the env."""
    checked = 0
    for task in _pg()[:8]:
        hits = sorted(clicks.task_hits(task))
        if not hits:
            continue
        x, y = hits[0]
        def policy(instruction: str, max_steps: int, step: int, x: int = x, y: int = y) -> dict:
            if step == 0:
                return {"skill_name": "interact_pixel", "arguments": {"intent": "ground", "x": x, "y": y}}
            return {"skill_name": "report", "arguments": {"status": "success", "summary": "done"}}

        settlement, _ = play(task, policy)
        assert settlement.metrics["B"] == 1.0, task.id
        checked += 1
    assert checked >= 3


def test_the_fit_keeps_per_word_the_point_most_training_targets_share() -> None:
    train = _pg()[:40]
    policy = clicks.fit_pg(train)
    by_word: dict[str, Counter] = {}
    for task in train:
        by_word.setdefault(clicks.word_of(task.data["episode"]["instruction"]), Counter()).update(
            clicks.task_hits(task))
    for word, point in policy.points.items():  # type: ignore[attr-defined]
        counts = by_word[word]
        assert counts[point] == max([0, *counts.values()])
    task = train[0]
    reply = json.loads(policy(Reading(text=task.data["episode"]["instruction"], step=0)))
    point = policy.points[clicks.word_of(task.data["episode"]["instruction"])]  # type: ignore[attr-defined]
    assert reply == {"skill_name": "interact_pixel", "arguments": {"intent": "ground", "x": point[0], "y": point[1]}}
    assert json.loads(policy(Reading(text="anything", step=1)))["skill_name"] == "report"


def test_the_shipped_pack_caps_every_click_point() -> None:
    """No grid point grounds more than POINT_CAP of the pack's PG targets, nor two targets of one word."""
    points: Counter = Counter()
    pairs: Counter = Counter()
    for task in _pg():
        hits = clicks.task_hits(task)
        points.update(hits)
        pairs.update((clicks.word_of(task.data["episode"]["instruction"]), p) for p in hits)
    assert max(points.values()) <= clicks.POINT_CAP and max(pairs.values()) == 1
    manifest = json.loads((PACK_DIR / "PACK.json").read_text())
    assert manifest["families"]["PG"]["click_point_max"]["cap"] == clicks.POINT_CAP


def test_the_learned_click_is_declared_for_pg() -> None:
    spec = build_host().benchmark("vigil")
    (baseline,) = [b for b in spec.baselines if b.name == "learned-click-PG"]
    assert baseline.learner is clicks.fit_pg and baseline.reads == ("text", "step") and baseline.blind
    assert baseline.ceiling_for("PG") == 10.0
