"""Goal checks on hand-set states: state, location, put-away, action and contents goals."""

from __future__ import annotations

from suite_asgard.goals import (
    ActionFlags,
    contents_hold,
    evaluate,
    goal_labels,
    location_holds,
    put_away_holds,
    state_holds,
)
from suite_asgard.plans import ContentsGoal, LocationGoal, StateGoal
from suite_asgard.scene_setup import move_into

from .conftest import env_for, grab, ok, one


def test_false_goals_need_every_instance_true_goals_one() -> None:
    env = env_for("settable__has_coffee")
    world = env.world
    knobs = env.layer.instances("StoveKnob")
    goal = StateGoal("StoveKnob", "isToggled", False)
    assert len(knobs) > 1 and state_holds(world, goal)
    world.set(knobs[-1].id, is_toggled=True)
    assert not state_holds(world, goal)
    assert state_holds(world, StateGoal("StoveKnob", "isToggled", True))
    assert state_holds(world, StateGoal("Mug", "isFilledWithLiquid", True))
    world.set(one(env, "Mug").id, fill=None)
    assert not state_holds(world, StateGoal("Mug", "isFilledWithLiquid", True))


def test_a_cooked_goal_on_a_sliceable_type_looks_at_its_pieces() -> None:
    env = env_for("cook__Egg_FloorPlan14")
    world = env.world
    goal = StateGoal("Egg", "isCooked", True)
    assert not state_holds(world, goal)
    grab(env, "Egg")
    ok(env, "FIND Pan", "PUT Pan", "SLICE Egg")
    assert not env.layer.instances("Egg") and not state_holds(world, goal)
    world.set(one(env, "EggCracked").id, is_cooked=True)
    assert state_holds(world, goal)


def test_location_goals_look_through_nesting_but_not_into_the_hand() -> None:
    env = env_for("settable__has_coffee")
    world = env.world
    plate, table = one(env, "Plate"), one(env, "DiningTable")
    assert move_into(world, plate.id, table.id)
    assert move_into(world, one(env, "Apple").id, plate.id)
    assert location_holds(world, LocationGoal("Apple", "Plate"))
    assert location_holds(world, LocationGoal("Apple", "DiningTable"))
    assert not location_holds(world, LocationGoal("Apple", "Bowl"))
    ok(env, "FIND Plate", "PICKUP Plate")
    assert not location_holds(world, LocationGoal("Apple", "Plate"))


def test_put_away_homes() -> None:
    env = env_for("putaway__Dishes")
    world = env.world
    pot, fork = one(env, "Pot"), one(env, "Fork")
    burner, counter = one(env, "StoveBurner"), one(env, "CounterTop")
    cabinet, drawer, fridge = one(env, "Cabinet"), one(env, "Drawer"), one(env, "Fridge")
    assert move_into(world, pot.id, burner.id) and not put_away_holds(world, "Pot")
    assert move_into(world, pot.id, counter.id) and put_away_holds(world, "Pot")
    assert move_into(world, pot.id, cabinet.id) and put_away_holds(world, "Pot")
    assert move_into(world, fork.id, counter.id) and not put_away_holds(world, "Fork")
    assert move_into(world, fork.id, drawer.id) and put_away_holds(world, "Fork")
    assert move_into(world, one(env, "Apple").id, fridge.id) and put_away_holds(world, "Apple")
    assert move_into(world, one(env, "Mug").id, fridge.id) and not put_away_holds(world, "Mug")


def test_the_harness_secondary_homes_count_as_put_away() -> None:
    env = env_for("putaway__Dishes")
    world = env.world
    table, burner, counter = one(env, "DiningTable"), one(env, "StoveBurner"), one(env, "CounterTop")
    cabinet, drawer = one(env, "Cabinet"), one(env, "Drawer")
    cup, pot, pan, ladle, mug = (one(env, t) for t in ("Cup", "Pot", "Pan", "Ladle", "Mug"))
    assert move_into(world, cup.id, table.id) and put_away_holds(world, "Cup")
    assert move_into(world, cup.id, counter.id) and put_away_holds(world, "Cup")
    assert move_into(world, pot.id, table.id) and put_away_holds(world, "Pot")
    assert move_into(world, pan.id, burner.id) and put_away_holds(world, "Pan")
    assert move_into(world, pan.id, table.id) and put_away_holds(world, "Pan")
    assert move_into(world, pan.id, cabinet.id) and not put_away_holds(world, "Pan")  # no Cabinet for a Pan
    assert move_into(world, ladle.id, cabinet.id) and put_away_holds(world, "Ladle")
    assert move_into(world, ladle.id, drawer.id) and put_away_holds(world, "Ladle")
    assert move_into(world, mug.id, table.id) and not put_away_holds(world, "Mug")  # a Mug has one home


def test_contents_goal_wants_exactly_the_listed_types() -> None:
    env = env_for("settable__has_coffee")
    world = env.world
    table = one(env, "DiningTable")
    counters = env.layer.instances("CounterTop")
    goal = ContentsGoal("DiningTable", ("Mug", "Plate", "BreadSliced"))
    assert not contents_hold(world, goal)  # the generator clutters the table
    grab(env, "Knife")
    ok(env, "FIND Bread", "SLICE Bread")
    for item in list(world.children(table.id)):
        assert any(move_into(world, item, c.id) for c in counters)
    assert not contents_hold(world, goal)
    for otype in ("Mug", "Plate"):
        assert move_into(world, one(env, otype).id, table.id)
    assert not contents_hold(world, goal)
    assert move_into(world, one(env, "BreadSliced").id, one(env, "Plate").id)
    assert contents_hold(world, goal)
    assert move_into(world, one(env, "Apple").id, table.id)
    assert not contents_hold(world, goal)


def test_action_goals_and_the_evaluation_order() -> None:
    env = env_for("coffee__has_coffee")
    plan = env.plan
    labels = goal_labels(plan.goals)
    assert labels[:6] == ["CoffeeMachine.isToggled=False", "Toaster.isToggled=False", "StoveKnob.isToggled=False",
                          "Microwave.isOpen=False", "Fridge.isOpen=False", "Faucet.isToggled=False"]
    assert labels[-2:] == ["Mug put away", "action Drink Coffee"]
    status = evaluate(env.world, plan.goals, ActionFlags())
    assert status[:6] == [True] * 6 and status[-1] is False
    assert evaluate(env.world, plan.goals, ActionFlags(drank_coffee=True))[-1] is True
    assert ActionFlags(sprayed_mirror=True).done("Spray Mirror") and not ActionFlags().done("Spray Mirror")
