"""Twin questions (issue 34): four questions with the same text whose images alone tell their answers apart, so no
text-only policy, fixed or learned, can beat chance on them."""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pytest
from suite.contract.records import FOLD_GROUP
from suite_agentvqa.data import LETTERS, Question, read_questions
from suite_agentvqa.learned import cross_fitted, text_of
from suite_agentvqa.packgen.build import PLAN
from suite_agentvqa.packgen.draft import Draft, Twins, are_twins, twins_of
from suite_agentvqa.plugin import PACK_DIR
from suite_agentvqa.priors import PRIORS, prior_odds

TWIN_MAKERS = sorted({(dataset, k): maker for dataset, makers in PLAN.items() for k, maker in enumerate(makers)
                      if isinstance(maker, Twins)}.items())


def _frame(value: int) -> list[np.ndarray]:
    return [np.full((4, 4, 3), value, np.uint8)]


def test_twins_share_their_text_and_each_option_is_right_once() -> None:
    drafts = twins_of(["a", "b", "c", "d"], [_frame(k) for k in range(4)], "tap", "Which?", goal="g", history=["h"])
    assert are_twins(drafts)
    assert [d.correct for d in drafts] == ["a", "b", "c", "d"]
    assert all(sorted([d.correct, *d.wrong]) == ["a", "b", "c", "d"] for d in drafts)
    same_answer = [*drafts[:3], Draft("tap", "Which?", "a", ["b", "c", "d"], _frame(9), goal="g", history=["h"])]
    other_text = [*drafts[:3], Draft("tap", "Which one?", "d", ["a", "b", "c"], _frame(9), goal="g", history=["h"])]
    other_options = [*drafts[:3], Draft("tap", "Which?", "d", ["a", "b", "e"], _frame(9), goal="g", history=["h"])]
    assert not any(are_twins(bad) for bad in (same_answer, other_text, other_options, drafts[:3]))


@pytest.mark.parametrize(("key", "maker"), TWIN_MAKERS, ids=[f"{d}-{k}" for (d, k), _ in TWIN_MAKERS])
def test_every_twin_maker_of_the_plan_makes_twins(key: tuple[str, int], maker: Twins) -> None:
    made = next(d for a in range(2000) if (d := maker(random.Random(f"test:{a}"), 0)) is not None)
    assert are_twins(made)
    # the images carry the difference: no two twins show the same frames
    frames = [b"".join(f.tobytes() for f in d.frames) for d in made]
    assert len(set(frames)) == 4


def test_the_shipped_packs_twins_give_a_text_only_policy_nothing() -> None:
    questions = read_questions(PACK_DIR)
    groups: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        if q.meta.get(FOLD_GROUP):
            groups[q.meta[FOLD_GROUP]].append(q)
    assert len(groups) >= 150  # most of the pack comes in twins
    for twins in groups.values():
        assert len({text_of(q) for q in twins}) == 1  # one text, word for word
        assert sorted(q.answer_letter for q in twins) == list(LETTERS[:len(twins)]) or len(twins) < 4
    for name in PRIORS:  # a fixed text-only prior answers all four alike: right on exactly one
        assert sum(prior_odds(q)[name] for twins in groups.values() if len(twins) == 4 for q in twins) == \
            pytest.approx(sum(1 for twins in groups.values() if len(twins) == 4))


def test_the_learned_text_model_is_never_fitted_on_a_twin_of_what_it_scores() -> None:
    questions = [q for q in read_questions(PACK_DIR) if q.meta.get(FOLD_GROUP)]
    right = cross_fitted(questions, folds=5, seed=0)
    score = 100 * sum(right.values()) / len(right)
    assert 15 <= score <= 35  # at chance: fitted on other groups only, it has nothing to go on
