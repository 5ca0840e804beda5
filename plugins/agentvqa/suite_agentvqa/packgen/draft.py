"""A generated question before it gets its id, answer position and media files."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Draft:
    """The question, the correct option, three options known to be wrong, and the frames to show."""

    category: str
    question: str
    correct: str
    wrong: list[str]
    frames: list[np.ndarray]
    media_kind: str = "images"
    goal: str | None = None
    history: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def valid(self) -> bool:
        """Exactly three wrong options, all four distinct and non-empty, and something to show."""
        options = [self.correct, *self.wrong]
        return len(self.wrong) == 3 and len(set(options)) == 4 and all(options) and bool(self.frames)


#: A question maker: a seeded attempt that returns a draft whose answer is certain, or None to try again.
Maker = Callable[[random.Random, int], Draft | None]


def pick_wrong(candidates: list[str], correct: str, rng: random.Random, k: int = 3) -> list[str] | None:
    """`k` distinct candidates other than the correct one, drawn with the seed, or None if there are too few."""
    pool = sorted({c for c in candidates if c != correct})
    return rng.sample(pool, k) if len(pool) >= k else None


@dataclass(frozen=True)
class Twins:
    """A maker of twin questions (issue 34): four drafts with the same text (question, goal, history, options) whose
    frames differ, each option right in exactly one of them, so the text alone tells nothing of the answer. `make`
    is a seeded attempt that returns the four drafts, or None to try again."""

    make: Callable[[random.Random, int], list[Draft] | None]

    def __call__(self, rng: random.Random, seed: int) -> list[Draft] | None:
        """The four twin drafts when the attempt gave valid twins, else None."""
        drafts = self.make(rng, seed)
        return drafts if drafts is not None and are_twins(drafts) else None


def are_twins(drafts: list[Draft]) -> bool:
    """Four valid drafts sharing question, goal, history and option set, each with a different correct option."""
    first = drafts[0]
    options = {first.correct, *first.wrong}
    return (len(drafts) == 4 and all(d.valid() for d in drafts)
            and all((d.question, d.goal, d.history, d.media_kind) == (first.question, first.goal, first.history,
                                                                       first.media_kind) for d in drafts)
            and all({d.correct, *d.wrong} == options for d in drafts) and len({d.correct for d in drafts}) == 4
            and len({len(d.frames) for d in drafts}) == 1)


def twins_of(correct: list[str], frames: list[list[np.ndarray]], category: str | list[str], question: str,
             media_kind: str = "images", goal: str | None = None,
             history: list[str] | None = None) -> list[Draft]:
    """The four twin drafts: draft k has `correct[k]` right and shows `frames[k]`; the same text for all four."""
    categories = [category] * 4 if isinstance(category, str) else category
    return [Draft(categories[k], question, answer, [c for c in correct if c != answer], frames[k], media_kind, goal,
                  list(history) if history is not None else None) for k, answer in enumerate(correct)]
