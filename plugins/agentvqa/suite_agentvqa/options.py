"""Option orders: the file's order, a seeded shuffle, and the rotations of circular evaluation."""

from __future__ import annotations

import random

from suite_agentvqa.data import LETTERS

Order = tuple[int, ...]


def option_orders(question_id: str, n_options: int, shuffle_seed: int | None, circular: bool) -> list[Order]:
    """The option orders to ask, one per model call: the base order (shuffled with a seed, or as in the file),
    then, for circular evaluation, each of its rotations. `order[j]` is the file index shown as letter j."""
    base = list(range(n_options))
    if shuffle_seed is not None:
        random.Random(f"{shuffle_seed}:{question_id}").shuffle(base)
    rotations = n_options if circular else 1
    return [tuple(base[(j + r) % n_options] for j in range(n_options)) for r in range(rotations)]


def shown_letter(order: Order, file_index: int) -> str:
    """The letter under which the option at `file_index` is shown in `order`."""
    return LETTERS[order.index(file_index)]


def file_index(order: Order, letter: str) -> int:
    """The file index of the option shown as `letter` in `order`."""
    return order[LETTERS.index(letter)]
