"""The `fixed-plan` shortcut baseline: the happy-path plan of a task's goals, written without looking."""

from __future__ import annotations

from suite.contract.registry import Reading
from suite.engine.host import build_host
from suite_asgard import learned_plan
from suite_asgard.blind_plan import blind_commands
from suite_asgard.plans import ContentsGoal, Goals, LocationGoal, StateGoal

from .conftest import tasks


def test_plan_of_goals_fetches_slices_cleans_and_puts() -> None:
    goals = Goals(
        state=(StateGoal("Mirror", "isDirty", False), StateGoal("Fridge", "isOpen", False),
               StateGoal("Television", "isToggled", True)),
        location=(LocationGoal("AppleSliced", "Bowl"),),
        put_away=("Mug",),
        actions=("Spray Mirror", "Drink Coffee"),
        contents=(ContentsGoal("DiningTable", ("Plate",)),),
    )
    assert blind_commands(goals) == [
        ("FIND", "Mirror"), ("CLEAN", "Mirror"),  # the Fridge is a household switch the goals only ask closed
        ("FIND", "Television"), ("TOGGLE_ON", "Television"),
        ("FIND", "Mirror"), ("SPRAY", "Mirror"), ("FIND", "Coffee"), ("DRINK", "Coffee"),
        ("FIND", "Knife"), ("PICKUP", "Knife"), ("FIND", "Apple"), ("SLICE", "Apple"), ("PUT", "CounterTop"),
        ("FIND", "AppleSliced"), ("PICKUP", "AppleSliced"), ("FIND", "Bowl"), ("PUT", "Bowl"),
        ("FIND", "Mug"), ("PICKUP", "Mug"), ("FIND", "Cabinet"), ("PUT", "Cabinet"),
        ("FIND", "Plate"), ("PICKUP", "Plate"), ("FIND", "DiningTable"), ("PUT", "DiningTable"),
    ]


def test_declared_baselines_and_ceilings() -> None:
    spec = build_host().benchmark("asgard")
    from suite.validity.baselines import baselines_of

    by_name = {b.name: b for b in baselines_of(spec)}
    assert list(by_name) == ["stop-at-once", "random", "fixed-plan", "learned-plan"]
    assert by_name["learned-plan"].learner is not None and by_name["learned-plan"].reads == ("category", "step")
    assert all(b.chance_for("*") == 0.0 for b in by_name.values())
    assert by_name["stop-at-once"].ceiling_for("*") == by_name["random"].ceiling_for("*") == 5.0
    assert by_name["fixed-plan"].agent == "fixed-plan" and spec.audit_limit == 36
    assert by_name["fixed-plan"].ceiling_for("*") == 20.0 and by_name["fixed-plan"].ceiling_for("toast") == 0.0
    assert by_name["fixed-plan"].ceiling_for("slice_and_distribute") == 50.0


def test_the_learned_plan_keeps_per_type_the_training_plan_that_solves_most_and_reads_nothing_else() -> None:
    """Fitted on toast tasks, it keeps one of their happy-path plans, the one that solves most of them when played
    blind; on a held-out task it plays that plan turn by turn from the type and the turn index alone, then answers
    no action."""
    toast = [t for t in tasks() if t.category == "toast"]
    train = toast[:4]
    policy = learned_plan.fit(train)
    plan = policy.chosen["toast"]  # type: ignore[attr-defined]
    candidates = {tuple(blind_commands(t.data["plan"].goals)) for t in train}
    assert plan in candidates
    solved = {p: sum(learned_plan.solves(t, p) for t in train) for p in candidates}
    assert solved[plan] == max(solved.values())
    assert policy(Reading(category="toast", step=0)) == learned_plan.answer(plan, 0)
    assert policy(Reading(category="toast", step=len(plan))) == "<answer>\n</answer>"
    assert policy(Reading(category="coffee", step=0)) == "<answer>\n</answer>"  # no plan for an unseen type
