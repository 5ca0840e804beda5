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
