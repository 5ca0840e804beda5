"""Reading the chosen letter from a model's reply: an exact letter first, then answer declarations.

A reply that names no letter, or names different letters at the first level that matches, is unevaluated:
there is never a guess. Levels, tried in order (the first that matches decides):

1. the whole reply (reasoning blocks removed) is one letter, possibly decorated: `B`, ` b `, `**C**`, `(D).`;
2. a final declaration: `Final answer: B`, `\\boxed{C}`;
3. an answer declaration: `Answer: B`, `The answer is (C)`, `The correct option is D`, `I choose A`;
4. an option mention: `Option B`, `choice (c)`;
5. a line that starts with a letter: `B. Tap: [12, 40]`, `C)`, a lone `D` on the last line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from suite_agentvqa.data import LETTERS

THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)
THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.I)
THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.I)
DECORATION = r"\s*_`'\"(){}\[\]<>"
#: Between a keyword and its letter: "is", "would be", ":", "-", "=" and markdown emphasis, any number of times.
CONNECTOR = r"(?:[\s*_`]*(?:(?i:is|would\s+be|will\s+be|should\s+be|must\s+be)\b|[:：=\-–—]))*"
LEAD = r"[\s*_`'\"(\[{]*(?:(?i:option|choice|letter)\s*)?[(\[]?"


@dataclass(frozen=True)
class Parsed:
    """A parsed reply: the letter, or None with the reason it is unevaluated."""

    letter: str | None
    reason: str = ""


def _letter_group(letters: str) -> str:
    upper, lower = f"[{letters}]", f"[{letters.lower()}]"
    listed = rf"(?!\s*(?:,|/|&|\bor\b|\band\b)\s*[(\[]?[{letters}](?![A-Za-z0-9]))"
    lower_closes_line = r"(?=[)\].*_`'\"]*[ \t]*(?:$|\n))"
    return rf"(?:({upper})(?![A-Za-z0-9]){listed}|({lower}){lower_closes_line})"


@cache
def _levels(letters: str) -> tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]:
    letter = _letter_group(letters)
    final = re.compile(r"(?i:\bfinal\s+(?:answer|choice|option|selection))" + CONNECTOR + LEAD + letter)
    boxed = re.compile(r"\\boxed\{\s*(?:\\text\{\s*)?" + letter)
    answer = re.compile(
        r"(?i:\banswer\b|\bcorrect\s+(?:option|choice|letter)\b|\bbest\s+(?:option|choice)\b"
        r"|\bi(?:'d|\s+would|'ll|\s+will)?\s+(?:choose|pick|select|go\s+with)\b)" + CONNECTOR + LEAD + letter)
    mention = re.compile(r"(?i:\b(?:option|choice))\s*[:#]?\s*[(\[]?" + letter)
    line_start = re.compile(rf"^[ \t>*_\-]*[(\[]?([{letters}])(?:[).:\]]|\*\*|[ \t]*$)", re.M)
    return (("final", (final, boxed)), ("answer", (answer,)), ("option", (mention,)), ("line", (line_start,)))


def strip_reasoning(reply: str) -> str | None:
    """The reply without `<think>...</think>` blocks (and anything before a dangling `</think>`); None when a
    reasoning block is never closed (a model stuck thinking gave no answer)."""
    text = THINK_BLOCK.sub(" ", reply)
    closes = list(THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end():]
    return None if THINK_OPEN.search(text) else text


def _exact(text: str, letters: str) -> str | None:
    core = text.strip().strip(DECORATION + "*").rstrip(".:!").strip(DECORATION + "*")
    return core.upper() if len(core) == 1 and core.upper() in letters else None


def parse_answer(reply: str | None, n_options: int = 4) -> Parsed:
    """The letter a reply chooses among the first `n_options` letters, or None with the reason."""
    letters = LETTERS[:n_options]
    text = strip_reasoning(reply or "")
    if text is None:
        return Parsed(None, "unevaluated: a reasoning block was never closed")
    if not text.strip():
        return Parsed(None, "unevaluated: empty reply")
    exact = _exact(text, letters)
    if exact:
        return Parsed(exact)
    for level, patterns in _levels(letters):
        found = {next(g for g in m.groups() if g).upper() for pattern in patterns for m in pattern.finditer(text)}
        if len(found) == 1:
            return Parsed(found.pop())
        if found:
            return Parsed(None, f"unevaluated: ambiguous {level} ({', '.join(sorted(found))})")
    return Parsed(None, f"unevaluated: no option letter ({', '.join(letters)}) found")
