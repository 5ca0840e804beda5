"""The termination rules, on hand-computed turn sequences (the official harness's rules by default)."""

from __future__ import annotations

import pytest
from suite.contract.errors import ConfigError
from suite_asgard.termination import (
    EXTENDED,
    FIRST_GOAL,
    HIT_HARD_LIMIT,
    MAX_FAILURES,
    MAX_REPEATS,
    MAX_STEPS,
    NO_EXTENSION,
    SUCCESS,
    Termination,
    TerminationRules,
    repeats_tail,
)
from suite_asgard.vocabulary import step_limits

Turn = tuple[str | None, str | None, bool]
#: Three objects in turn, never a loop and never a new object after the first three turns.
CYCLE: list[Turn] = [("FIND Mug", "Mug", True), ("FIND Cup", "Cup", True), ("FIND Bowl", "Bowl", True)]
GARBAGE: Turn = (None, None, False)
EMPTY: Turn = ("(empty reply)", "", False)  # what the env records for an empty reply (the harness's empty_response)


def run(term: Termination, turns: list[Turn], goals_at: int | None = None, new_goal_at: tuple[int, ...] = (),
        progress_at: tuple[int, ...] = ()) -> list[str | None]:
    """Feed turns (action, object, success); returns the end reason after each turn (numbered from 1 on)."""
    out = []
    for action, obj, ok in turns:
        i = term.steps + 1
        out.append(term.record(action, obj, ok, goals_at == i, int(i in new_goal_at), i in progress_at))
    return out


def cycle(n: int) -> list[Turn]:
    return (CYCLE * (n // 3 + 1))[:n]


def test_step_limits_from_n() -> None:
    assert step_limits(4) == (15, 20)
    assert step_limits(10) == (15, 20)
    assert step_limits(11) == (16, 22)
    assert step_limits(38) == (57, 76)
    assert step_limits(107) == (160, 214)


def test_loop_of_one_action_ends_on_the_eighth_repeat() -> None:
    assert not repeats_tail(["FIND Mug"] * 7)
    assert repeats_tail(["FIND Mug"] * 8)
    assert not repeats_tail(["PICKUP Mug"] + ["FIND Mug"] * 7)


def test_loop_of_a_sequence() -> None:
    pair = ["FIND Mug", "PICKUP Mug"]
    assert not repeats_tail(pair * 7)
    assert repeats_tail(pair * 8)
    assert repeats_tail(["OPEN Fridge"] + ["FIND Egg", "PICKUP Egg", "PUT Pan"] * 8)
    assert not repeats_tail(["FIND Egg", "PICKUP Egg", "PUT Pan"] * 7 + ["FIND Egg", "PICKUP Egg"])


def test_the_papers_more_than_eight_times_is_a_setting() -> None:
    term = Termination(15, 20, TerminationRules(loop_repeats=9))
    assert run(term, [("FIND Mug", "Mug", True)] * 9) == [None] * 8 + [MAX_REPEATS]


def test_repeats_end_before_consecutive_failures() -> None:
    term = Termination(15, 20)
    assert run(term, [("PICKUP Mug", "Mug", False)] * 8) == [None] * 7 + [MAX_REPEATS]


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


def test_a_model_that_only_answers_garbage_loops_after_eight_turns() -> None:
    # the harness keeps unparsable turns in its history as one and the same entry
    term = Termination(15, 20)
    assert run(term, [GARBAGE] * 8) == [None] * 7 + [MAX_REPEATS]


def test_unparsable_turns_are_part_of_a_looping_sequence() -> None:
    term = Termination(30, 40)
    ends = run(term, [GARBAGE, ("FIND Mug", "Mug", True)] * 8)
    assert ends == [None] * 15 + [MAX_REPEATS]


def test_leaving_unparsable_turns_out_of_loops_is_a_setting() -> None:
    term = Termination(15, 20, TerminationRules(loop_counts_unparsable=False))
    assert run(term, [GARBAGE] * 10) == [None] * 9 + [MAX_FAILURES]
    assert term.actions == []


def test_empty_replies_are_their_own_loop_entry() -> None:
    term = Termination(30, 40)
    assert run(term, [GARBAGE] * 4 + [EMPTY] * 4) == [None] * 8  # eight unparsable turns, two entries
    assert term.actions[-1] == "(empty reply)" and term.objects[-1] == ""
    assert run(Termination(30, 40), [EMPTY] * 8) == [None] * 7 + [MAX_REPEATS]


def test_an_empty_reply_names_the_empty_object_for_the_novelty_check() -> None:
    term = Termination(15, 30)
    assert run(term, cycle(15) + [EMPTY]) == [None] * 16 and term.soft == 25


def test_goals_met_wins_over_every_other_rule() -> None:
    term = Termination(15, 20)
    assert run(term, [("PICKUP Mug", "Mug", False)] * 8, goals_at=8)[-1] == SUCCESS


def test_the_soft_limit_ends_an_episode_only_once_it_is_exceeded() -> None:
    term = Termination(15, 20)
    ends = run(term, cycle(16))
    # 15 turns are allowed; the 16th exceeds the soft limit, and its last 10 turns name no new object
    assert ends == [None] * 15 + [MAX_STEPS]
    assert term.steps == 16 and term.extension == NO_EXTENSION


def test_the_hard_limit_allows_hard_plus_one_turns() -> None:
    term = Termination(15, 20)
    turns = [(f"FIND O{i}", f"O{i}", True) for i in range(25)]
    assert run(term, turns[:20]) == [None] * 20
    assert term.soft == 25 and term.extension == EXTENDED  # extended at turn 16 by a new object
    assert run(term, turns[20:21]) == [MAX_STEPS] and term.steps == 21 and term.extension == HIT_HARD_LIMIT


def test_a_clean_slice_spray_or_drink_grants_one_extension_whenever_it_happened() -> None:
    term = Termination(15, 40)
    # the flag set at turn 2 is still there when turn 16 exceeds the soft limit: one extension, to 25
    assert run(term, cycle(16), progress_at=(2,)) == [None] * 16
    assert term.soft == 25 and not term.progress_flag and term.extension == EXTENDED
    # the flag was used up: turn 26 exceeds the new limit with nothing new
    assert run(term, cycle(10)) == [None] * 9 + [MAX_STEPS] and term.steps == 26


def test_a_flag_set_after_an_extension_grants_the_next_one() -> None:
    term = Termination(15, 40)
    run(term, cycle(16), progress_at=(3, 9))  # two flags before turn 16 make one extension
    assert term.soft == 25
    assert run(term, cycle(10), progress_at=(20,)) == [None] * 10 and term.soft == 35


def test_a_goal_met_for_the_first_time_does_not_extend_by_default() -> None:
    term = Termination(15, 30)
    assert run(term, cycle(16), new_goal_at=(7,))[-1] == MAX_STEPS


def test_the_papers_first_goal_reading_is_a_setting() -> None:
    term = Termination(15, 30, TerminationRules(progress=FIRST_GOAL))
    assert run(term, cycle(16), new_goal_at=(7,), progress_at=(8,)) == [None] * 16 and term.soft == 25
    # turn 26: the goal of turn 7 is more than 10 turns back, and the action flag counts for nothing here
    assert run(term, cycle(10), progress_at=(20,))[-1] == MAX_STEPS and term.steps == 26


def test_an_unparsable_turn_names_an_object_for_the_novelty_check() -> None:
    # as in the harness, whose history holds "None None" for such a turn
    term = Termination(15, 30)
    turns = cycle(15) + [GARBAGE]
    assert run(term, turns) == [None] * 16 and term.soft == 25


def test_termination_settings_are_checked() -> None:
    assert TerminationRules.from_config({}) == TerminationRules()
    assert TerminationRules.from_config({"loop_repeats": 9}).loop_repeats == 9
    with pytest.raises(ConfigError, match="progress"):
        TerminationRules.from_config({"progress": "novelty"})
    with pytest.raises(ConfigError, match="unknown setting"):
        TerminationRules.from_config({"loop": 8})
    with pytest.raises(ConfigError, match="loop_repeats"):
        TerminationRules.from_config({"loop_repeats": 1})


def test_the_env_raises_the_flag_on_a_spray_whose_preconditions_hold() -> None:
    from .conftest import env_for, grab, ok, turn

    env = env_for("clean_mirror__")
    ok(env, "FIND Mirror")
    assert not turn(env, "SPRAY Mirror")["success"] and not env.termination.progress_flag  # no SprayBottle held
    grab(env, "SprayBottle")
    ok(env, "FIND Mirror", "SPRAY Mirror")
    assert env.termination.progress_flag and env.turns[-1].progress


def test_tasks_carry_the_configured_rules_and_a_cap_one_past_the_hard_limit() -> None:
    from .conftest import env_for, tasks

    task = tasks(task_types=["turn_on_tv"])[0]
    soft, hard = task.data["plan"].limits
    assert task.max_steps == hard + 1 and task.data["termination"] == TerminationRules().to_dict()
    env = env_for("turn_on_tv__", termination={"loop_repeats": 9, "progress": "first_goal"})
    assert env.termination.rules == TerminationRules(loop_repeats=9, progress=FIRST_GOAL)
