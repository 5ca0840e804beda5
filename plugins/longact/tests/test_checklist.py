"""The checklist on a live kitchen: slicing (pieces replace the whole), liquids, per-step curve, GC levels."""

from __future__ import annotations

import pytest
from suite_household.world import Agent
from suite_longact.checklist import Item, holds

from .conftest import first, kitchen_env, put_on, teleport_facing


def _item(obj, attr, target):
    return {"object_id": obj.id, "object_type": obj.type, "attr": attr, "target": target}


def test_sliced_pieces_replace_the_whole() -> None:
    env = kitchen_env([])
    apple, counter, knife = first(env, "Apple"), first(env, "CounterTop"), first(env, "Knife")
    w = env.world
    put_on(w, apple.id, counter.id)
    sliced = Item.from_dict(_item(apple, "isSliced", True))
    on_counter = Item.from_dict(_item(apple, "position", [counter.id]))
    assert not holds(w, sliced) and holds(w, on_counter)
    w.reparent(knife.id, None)
    w.set(knife.id, picked_up=True)
    w.held = knife.id
    teleport_facing(env, apple.id)
    assert env.step({"action": "Slice", "object": apple.id}).info["success"]
    assert apple.id not in w.objects
    assert holds(w, sliced) and holds(w, on_counter)  # judged on the pieces
    assert not holds(w, Item.from_dict(_item(apple, "isCooked", True)))


def test_liquids_coffee_and_water() -> None:
    env = kitchen_env([])
    w = env.world
    mug, machine = first(env, "Mug"), first(env, "CoffeeMachine")
    coffee = Item.from_dict(_item(mug, "isFilledWithLiquid", "coffee"))
    anything = Item.from_dict(_item(mug, "isFilledWithLiquid", True))
    put_on(w, mug.id, machine.id)
    assert not holds(w, coffee)
    teleport_facing(env, machine.id)
    assert env.step({"action": "ToggleOn", "object": machine.id}).info["success"]
    assert holds(w, coffee) and holds(w, anything)
    assert not holds(w, Item.from_dict(_item(mug, "isFilledWithLiquid", "water")))


def test_gc_item_and_object_level_and_the_curve() -> None:
    env = kitchen_env([])
    fridge, mw = first(env, "Fridge"), first(env, "Microwave")
    items = [_item(fridge, "isOpen", True), _item(fridge, "position", ["nowhere"]), _item(mw, "isOpen", True)]
    env = kitchen_env(items)
    teleport_facing(env, fridge.id)
    env.step({"action": "MoveAhead"})
    assert env.checklist.curve[-1].step == 0  # navigation never re-evaluates
    assert env.step({"action": "Open", "object": fridge.id}).info["success"]
    cl = env.checklist
    assert cl.status == [True, False, False]
    assert cl.gc == 1 / 3 and cl.object_gc() == 0.0
    assert cl.by_kind()["OC"] == (1, 2) and cl.by_kind()["PP"] == (0, 1)
    assert [(p.step, p.met) for p in cl.curve] == [(0, 0), (2, 1)]
    assert isinstance(env.world.agent, Agent)


def test_a_goal_done_to_a_look_alike_or_to_every_instance_is_not_done() -> None:
    env = kitchen_env([])
    cabinets = sorted((o for o in env.world.objects.values() if o.type == "Cabinet"), key=lambda o: o.id)[:3]
    for c in cabinets:
        env.world.set(c.id, is_open=False)
    goal, look_alike, other = cabinets
    item = {**_item(goal, "isOpen", True), "keep": [look_alike.id, other.id]}
    env = kitchen_env([item])
    for c in cabinets:
        env.world.set(c.id, is_open=False)
    env.checklist.start(env.world)
    assert Item.from_dict(item).keep == (look_alike.id, other.id)
    env.world.set(look_alike.id, is_open=True)  # the wrong cabinet
    env.checklist.evaluate(env.world)
    assert env.checklist.status == [False]
    env.world.set(goal.id, is_open=True)  # then every cabinet of the type: still not the goal
    env.checklist.evaluate(env.world)
    assert env.checklist.status == [False]
    assert holds(env.world, Item.from_dict(item))  # the goal object's own state holds
    env.world.set(look_alike.id, is_open=False)  # put back as it began: done
    env.checklist.evaluate(env.world)
    assert env.checklist.status == [True] and env.checklist.gc_side_effects(env.world) == 1.0


def test_a_look_alike_missing_from_the_house_is_a_clear_error() -> None:
    env = kitchen_env([])
    fridge = first(env, "Fridge")
    with pytest.raises(ValueError, match="look-alikes to keep are not in the house: Cabinet|nowhere"):
        kitchen_env([{**_item(fridge, "isOpen", True), "keep": ["Cabinet|nowhere"]}])
