"""The termination rules, on hand-computed turn sequences."""

from __future__ import annotations

from suite_asgard.termination import (
    EXTENDED,
    HIT_HARD_LIMIT,
    MAX_FAILURES,
    MAX_REPEATS,
    MAX_STEPS,
    NO_EXTENSION,
    SUCCESS,
    Termination,
    repeats_tail,
)
from suite_asgard.vocabulary import step_limits


def run(term: Termination, turns: list[tuple[str | None, str | None, bool]], goals_at: int | None = None,
        new_goal_at: tuple[int, ...] = ()) -> list[str | None]:
    """Feed turns (action, object, success); returns the end reason after each turn."""
    out = []
    for i, (action, obj, ok) in enumerate(turns, 1):
        out.append(term.record(action, obj, ok, goals_at == i, int(i in new_goal_at)))
    return out


def test_step_limits_from_n() -> None:
    assert step_limits(4) == (15, 20)
    assert step_limits(10) == (15, 20)
    assert step_limits(11) == (16, 22)
    assert step_limits(38) == (57, 76)
    assert step_limits(107) == (160, 214)


def test_loop_of_one_action_ends_on_the_ninth_repeat() -> None:
    assert not repeats_tail(["FIND Mug"] * 8)
    assert repeats_tail(["FIND Mug"] * 9)
    assert not repeats_tail(["PICKUP Mug"] + ["FIND Mug"] * 8)


def test_loop_of_a_sequence() -> None:
    pair = ["FIND Mug", "PICKUP Mug"]
    assert not repeats_tail(pair * 8)
    assert repeats_tail(pair * 9)
    assert repeats_tail(["OPEN Fridge"] + ["FIND Egg", "PICKUP Egg", "PUT Pan"] * 9)
    assert not repeats_tail(["FIND Egg", "PICKUP Egg", "PUT Pan"] * 8 + ["FIND Egg", "PICKUP Egg"])


def test_repeats_end_before_consecutive_failures() -> None:
    term = Termination(15, 20)
    ends = run(term, [("PICKUP Mug", "Mug", False)] * 9)
    assert ends == [None] * 8 + [MAX_REPEATS]


def test_ten_failures_in_a_row_end_the_episode() -> None:
    term = Termination(15, 20)
    turns = [(f"PICKUP {o}", o, False) for o in "ABCDEFGHIJ"]
    assert run(term, turns) == [None] * 9 + [MAX_FAILURES]


def test_a_success_resets_the_failure_count() -> None:
    term = Termination(30, 40)
    turns = [(f"PICKUP {o}", o, False) for o in "ABCDEFGHI"] + [("FIND Mug", "Mug", True)]
    turns += [(f"OPEN {o}", o, False) for o in "ABCDEFGHI"]
    assert run(term, turns) == [None] * 19
    assert term.failures_in_row == 9


def test_unparsable_turns_count_as_failures_but_never_as_a_loop() -> None:
    term = Termination(15, 20)
    assert run(term, [(None, None, False)] * 10) == [None] * 9 + [MAX_FAILURES]
    assert term.actions == []


def test_goals_met_wins_over_every_other_rule() -> None:
    term = Termination(15, 20)
    assert run(term, [("PICKUP Mug", "Mug", False)] * 9, goals_at=9)[-1] == SUCCESS


def test_soft_limit_without_novelty_ends_the_episode() -> None:
    term = Termination(15, 20)
    turns = [("FIND Mug", "Mug", True), ("FIND Cup", "Cup", True)] * 8  # a pair loop, but only 7.5 times
    ends = run(term, turns[:15])
    assert ends[:14] == [None] * 14
    # the last 10 turns touch Mug and Cup, which the 5 turns before also touched: no novelty
    assert ends[14] == MAX_STEPS and term.steps == 15 and term.extension == NO_EXTENSION


def test_soft_limit_extends_by_ten_on_a_new_object_up_to_the_hard_limit() -> None:
    term = Termination(15, 20)
    turns = [(f"FIND O{i}", f"O{i}", True) for i in range(25)]
    assert run(term, turns[:19]) == [None] * 19
    assert term.soft == 25 and term.extension == EXTENDED
    assert run(term, turns[19:20]) == [MAX_STEPS] and term.extension == HIT_HARD_LIMIT


def test_a_first_time_goal_in_the_last_ten_turns_extends_the_soft_limit() -> None:
    term = Termination(15, 30)
    turns = [("FIND Mug", "Mug", True), ("FIND Cup", "Cup", True)] * 8
    ends = run(term, turns[:15], new_goal_at=(7,))
    assert ends == [None] * 15 and term.soft == 25
    ends = run(term, turns[:10])
    assert ends[-1] == MAX_STEPS and term.steps == 25
