"""The answer parser over realistic replies: the letter it must read, or None (unevaluated, never a guess)."""

from __future__ import annotations

import pytest
from suite_agentvqa.answers import parse_answer, strip_reasoning

REPLIES = [
    # exact letters, decorated
    ("B", "B"),
    ("  c  ", "C"),
    ("d", "D"),
    ("A.", "A"),
    ("**C**", "C"),
    ("(D)", "D"),
    ("`B`", "B"),
    ("'A'", "A"),
    ("[C]", "C"),
    ("B\n", "B"),
    # declarations
    ("Answer: B", "B"),
    ("Answer: (C)", "C"),
    ("answer: d", "D"),
    ("ANSWER - A", "A"),
    ("**Answer:** B", "B"),
    ("The answer is (B).", "B"),
    ("The correct answer is option C.", "C"),
    ("The correct option is D", "D"),
    ("I choose A.", "A"),
    ("I'd go with C", "C"),
    ("Answer：B", "B"),
    ("The best option is B, because the fridge is on the left.", "B"),
    ("\\boxed{D}", "D"),
    ("So the final answer is $\\boxed{\\text{A}}$.", "A"),
    ("Option B", "B"),
    ("option (c)", "C"),
    ("B. Tap: [512, 980]", "B"),
    ("C) Swipe: Left", "C"),
    ("- **A**", "A"),
    # chain of thought, then the answer
    ("The goal is to open the fridge. Tapping at [12, 40] hits the microwave, so that is wrong. The fridge "
     "is at [120, 60].\n\nAnswer: C", "C"),
    ("Let me think step by step.\n1. Option A taps the wall.\n2. Option B taps the fridge handle.\n"
     "Therefore the answer is B.", "B"),
    ("Looking at the frames, the apple is picked up in frame 4.\n\nFinal answer: A", "A"),
    ("Initially I thought the answer is A, but the lamp is behind.\nFinal Answer: **D**", "D"),
    ("<think>The mug is closer than the kettle... maybe A? No, C.</think>\nC", "C"),
    ("<think>Which one? A or B.</think>Answer: B", "B"),
    ("reasoning about the scene...</think> D", "D"),
    ("After comparing all four options carefully:\n\nB", "B"),
    ("The answer is A, not B.", "A"),
    # unevaluated
    ("", None),
    ("   ", None),
    ("I'm sorry, but I can't determine that from the image.", None),
    ("I cannot answer this question.", None),
    ("None of the options is correct.", None),
    ("A or B", None),
    ("A and C are both plausible.", None),
    ("Answer: A, B", None),
    ("AB", None),
    ("E", None),
    ("Answer: A\nAnswer: C", None),
    ("Option A is wrong. Option C could work.", None),
    ("The answer is a bit unclear from this view.", None),
    ("<think>Let me look again. The options are A, B, C and D. I keep thinking", None),
    ("<thinking>The object on the left...", None),
    ("Tap: [512, 980]", None),
]


@pytest.mark.parametrize(("reply", "letter"), REPLIES)
def test_reply(reply: str, letter: str | None) -> None:
    parsed = parse_answer(reply)
    assert parsed.letter == letter, parsed.reason
    assert (parsed.reason == "") == (letter is not None)
    if letter is None:
        assert parsed.reason.startswith("unevaluated")


def test_enough_realistic_replies() -> None:
    assert len(REPLIES) >= 40 and sum(letter is None for _, letter in REPLIES) >= 10


def test_ambiguity_and_reasoning_reasons() -> None:
    assert "ambiguous" in parse_answer("Answer: A\nAnswer: C").reason
    assert "never closed" in parse_answer("<think>endless").reason
    assert strip_reasoning("<think>x</think>B") == " B"


def test_letters_follow_the_option_count() -> None:
    assert parse_answer("C", n_options=2).letter is None
    assert parse_answer("B", n_options=2).letter == "B"
