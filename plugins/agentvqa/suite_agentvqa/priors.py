"""Text-only option priors: answer from the question and its options alone, never the image.

They are AgentVQA's shortcut baselines (`suite audit`) and the generator's rejection test: a pack on which a prior
beats chance measures the options' wording, not visual understanding."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from suite_agentvqa.data import Question

WORD = re.compile(r"[a-z0-9]+")
#: Words too common to count as overlap between an option and the question.
STOPWORDS = frozenset("a an the of to in on at is are was be it its this that and or for with by from which what "
                      "where who how do does did you your i".split())

#: A prior scores each option from the question's text and options only, and picks the first best-scored one.
Scores = Callable[[Question], list[float]]


def _words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOPWORDS}


def question_words(question: Question) -> set[str]:
    """The words of everything the prompt says besides the options: goal, action history and question."""
    parts = [question.goal or "", *(question.action_history or ()), question.question]
    return _words(" ".join(parts))


def option_lengths(question: Question) -> list[float]:
    """Each option's length in characters (the longest-option prior)."""
    return [float(len(option)) for option in question.options]


def option_overlaps(question: Question) -> list[float]:
    """How many words each option shares with the question, goal and history (the question-overlap prior)."""
    asked = question_words(question)
    return [float(len(_words(option) & asked)) for option in question.options]


#: The priors that read one question; `most-frequent-letter` reads the answer letters of the whole data set.
PRIORS: dict[str, Scores] = {"longest-option": option_lengths, "question-overlap": option_overlaps}


def pick(name: str, question: Question) -> int:
    """The file index the prior `name` answers: its best-scored option, the first of equals."""
    scores = PRIORS[name](question)
    return scores.index(max(scores))


def odds_correct(name: str, question: Question) -> float:
    """How likely the prior `name` is right if it broke ties at random: 1 when the correct option alone scores
    best, 1/k when it is one of k best, 0 otherwise (a generator balances these, so that where the correct option
    lands among tied ones, which the answer letters already balance, is the only luck left)."""
    scores = PRIORS[name](question)
    best = [i for i, score in enumerate(scores) if score == max(scores)]
    return 1 / len(best) if question.answer in best else 0.0


def letter_priors(questions: Iterable[Question]) -> dict[str, int]:
    """Per dataset, the file index of the most frequent correct letter (the earliest letter of equals)."""
    counts: dict[str, Counter[int]] = {}
    for question in questions:
        counts.setdefault(question.dataset, Counter())[question.answer] += 1
    return {dataset: min(c, key=lambda i: (-c[i], i)) for dataset, c in counts.items()}


def prior_odds(question: Question) -> dict[str, float]:
    """Each single-question prior's `odds_correct` on `question`."""
    return {name: odds_correct(name, question) for name in PRIORS}
