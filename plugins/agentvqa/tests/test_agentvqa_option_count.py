"""Questions with 2 to N options: loading, the letters the prompt shows, parsing and scoring (spec sections 3, 9.3)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from suite.contract.records import Action, StepRecord, Task, Trajectory
from suite_agentvqa.answers import parse_answer
from suite_agentvqa.data import read_questions
from suite_agentvqa.options import option_orders
from suite_agentvqa.prompting import question_text
from suite_agentvqa.scoring import settle


@pytest.fixture
def mixed(tiny: Path, recs: SimpleNamespace) -> list:
    image = {"images": ["media/a.png"]}
    recs.write_records(tiny, [
        recs.record("perception_test/2", "perception_test", "egocentric_videos", "motion_causality", image,
                    options=["falls", "rolls", "stays"], answer="C"),
        recs.record("erqa/2", "erqa", "robotics", "task_estimation", image, options=["yes", "no"], answer="A"),
        recs.record("gameqa/2", "gameqa", "games", "world_modeling", image,
                    options=["up", "down", "left", "right", "wait"], answer="E"),
    ])
    return read_questions(tiny)


def test_two_to_n_options_load(mixed: list) -> None:
    assert [(len(q.options), q.answer_letter) for q in mixed] == [(3, "C"), (2, "A"), (5, "E")]


def test_the_prompt_shows_the_actual_letters(mixed: list) -> None:
    three, two, five = (question_text(q, tuple(range(len(q.options)))) for q in mixed)
    assert "A. falls\nB. rolls\nC. stays\n" in three and "(A, B, or C)" in three and "D." not in three
    assert "A. yes\nB. no\n" in two and "(A or B)" in two
    assert "E. wait" in five and "(A, B, C, D, or E)" in five


def test_four_options_keep_the_papers_phrase(tiny: Path) -> None:
    question = read_questions(tiny)[0]
    assert "(A, B, C, or D)" in question_text(question, (0, 1, 2, 3))


def test_parsing_accepts_only_the_letters_shown() -> None:
    assert parse_answer("E", 5).letter == "E"
    assert parse_answer("Answer: D", 3).letter is None
    assert parse_answer("C", 3).letter == "C"
    assert parse_answer("B", 2).letter == "B"


@pytest.mark.parametrize("circular", [False, True])
def test_scoring_maps_letters_through_orders_of_any_length(mixed: list, circular: bool) -> None:
    question = mixed[2]
    orders = option_orders(question.id, 5, 3, circular)
    task = Task("agentvqa", question.id, {"question": question, "orders": orders, "protocol": "p"})
    letters = ["ABCDE"[order.index(4)] for order in orders]
    traj = Trajectory(task, steps=[StepRecord(i, Action(a, a)) for i, a in enumerate(letters)], end_reason="done")
    got = settle(task, traj)
    assert got.outcome == "success" and got.metrics["answers_as_filed"] == "E" * len(orders)
