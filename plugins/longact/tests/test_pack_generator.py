"""The pack generator's rules: no item holds at step 0, distractors in both states, varied houses, and the
rejection of draws a shortcut baseline scores on."""

from __future__ import annotations

import math
import random
from collections import Counter

from suite_household.generator import generate_house, generate_room
from suite_household.world import World
from suite_longact.checklist import Item, holds
from suite_longact.pack import ambiguity, goals
from suite_longact.pack import generate as gen

from .conftest import put_on


def _first(world: World, otype: str):
    return sorted((o for o in world.objects.values() if o.type == otype), key=lambda o: o.id)[0]


def _scene(world: World, seed: int = 0) -> goals.Scene:
    return goals.Scene(world, random.Random(seed))


def test_a_move_goal_never_picks_an_object_already_at_its_target() -> None:
    world = World(generate_room("Kitchen", 3))
    mugs = sorted((o for o in world.objects.values() if o.type == "Mug"), key=lambda o: o.id)
    basin = _first(world, "SinkBasin")
    for mug in mugs:
        put_on(world, mug.id, basin.id)
    s = _scene(world)
    assert goals._targets(s, world.objects[mugs[0].id], "SinkBasin", "Kitchen") == []
    assert goals.TEMPLATES["move Mug to SinkBasin (Kitchen)"](s) is None  # every mug is already in the sink


def test_a_state_goal_starts_opposite_its_target_with_neighbours_in_both_states() -> None:
    world = World(generate_house(5, ["Kitchen", "Bedroom", "Bathroom"]))
    make = goals.TEMPLATES["open/close Cabinet (Kitchen)"]
    for seed in range(6):
        s = _scene(World(world.scene), seed)
        goal = make(s)
        assert goal is not None
        item = Item.from_dict(goal.items[0])
        assert not holds(s.world, item)  # opposite its target at step 0
        others = [o for o in s.world.objects.values() if o.type == "Cabinet" and o.id != item.object_id]
        states = {o.is_open for o in others if s.rooms[o.room] == "Kitchen"}
        assert states == {True, False} or states == {item.target}  # both states, or all at the target
        away = [o for o in others if s.rooms[o.room] != "Kitchen"]
        assert all(o.is_open != item.target for o in away)  # elsewhere: as the goal starts (its action changes them)
        assert {o.id for o in others} <= s.used  # reserved


def test_goals_ask_for_both_states() -> None:
    world = World(generate_house(5, ["Kitchen", "Bedroom"]))
    targets = Counter()
    for seed in range(20):
        goal = goals.TEMPLATES["switch LightSwitch (Kitchen)"](_scene(World(world.scene), seed))
        targets[goal.items[0]["target"]] += 1
    assert targets[True] > 0 and targets[False] > 0


def test_houses_vary_in_room_count_and_types() -> None:
    specs = [gen.house_spec(h, 14) for h in range(40)]
    assert {len(s["rooms"]) for s in specs} == {3, 4, 5, 6}
    assert all("Kitchen" in s["rooms"] and max(Counter(s["rooms"]).values()) <= 2 for s in specs)
    assert len({"+".join(sorted(s["rooms"])) for s in specs}) >= 8


def test_a_draw_a_shortcut_scores_on_is_rejected() -> None:
    world = World(generate_room("Bathroom", 2))
    switch = _first(world, "LightSwitch")
    flip = {"object_id": switch.id, "object_type": "LightSwitch", "attr": "isToggled", "target": not switch.is_toggled}
    # a bathroom has few switches and openables: flipping them all earns the one item with few side effects
    flippable = sum(1 for o in world.objects.values() if o.type != "Doorway"
                    and (gen.TYPES[o.type].openable or gen.TYPES[o.type].toggleable))
    assert 1 / flippable > gen.CEILINGS["flipper"]
    assert gen.shortcut_reason({"checklist": [flip]}, world).startswith("flipper")
    already = {**flip, "target": switch.is_toggled}
    assert gen.shortcut_reason({"checklist": [already]}, world) == "stop-at-once: an item holds at step 0"


def test_a_kitchen_routine_hides_a_flip_among_many_side_effects() -> None:
    world = World(generate_room("Kitchen", 3))
    switch = _first(world, "LightSwitch")
    flip = {"object_id": switch.id, "object_type": "LightSwitch", "attr": "isToggled", "target": not switch.is_toggled}
    goals = [flip] + [{"object_id": o.id, "object_type": o.type, "attr": "isSliced", "target": True}
                      for o in world.objects.values() if o.type in ("Bread", "Tomato")]
    # not the flipper's: a reader of the types (the kitchen's only bread and tomato) would be
    assert gen.shortcut_reason({"checklist": goals}, world) == "a reader of the goals' types alone above its bound"


def test_pack_figures_count_houses_per_episode_count_and_drops() -> None:
    eps = [{"house": h, "scenario": "cleaning", "goals": [{}] * 9, "oracle_steps": 100 + i,
            "checklist": [{"object_id": "a", "object_type": "Mug", "attr": "position", "target": ["b"]}]}
           for i, h in enumerate(["h1", "h1", "h1", "h2", "h3", "h3"])]
    houses = [{"id": h, "rooms": rooms} for h, rooms in (("h1", ["Kitchen"] * 3), ("h2", ["Kitchen"] * 4),
                                                          ("h3", ["Kitchen"] * 3))]
    facts = [{"goal_in_closed_drawer_or_cabinet": i < 2, "any_in_closed_container": i < 3,
              "flip_all": {"gc_se": 0.0, "gc": 0.5}, "reader_bound": 0.1} for i in range(6)]
    scores = [{"flipper": {"gc_se": 0.02, "gc": 0.1, "side_effects": 4},
               "random-walker": {"gc_se": 0.0, "gc": 0.0, "side_effects": 1}}]
    out = gen.pack_figures({"episodes": eps, "houses": houses}, facts, Counter(), Counter({"oracle: x": 2}), scores)
    assert out["houses_by_episode_count"] == {"1": 1, "2": 1, "3": 1}
    assert out["houses_by_room_count"] == {"3": 2, "4": 1}
    assert out["episodes_with_a_goal_object_in_a_closed_drawer_or_cabinet"] == 2
    assert out["episodes_with_a_checklist_object_in_a_closed_container"] == 3
    assert out["dropped_draws_by_reason"] == {"oracle: x": 2}
    assert out["audit"]["flipper"]["gc_se"] == 2.0 and out["audit"]["flip-everything bound"]["gc"] == 50.0
    assert out["audit"]["type-reader bound"]["gc_se"] == 10.0


def test_dropped_reasons_are_grouped_by_kind() -> None:
    dropped = Counter({"oracle: oracle stuck: no pose from which Pick Knife succeeds": 2,
                       "oracle: oracle stuck: no pose from which ToggleOn LightSwitch succeeds": 1,
                       "oracle: oracle stuck: no pose from which Pick Mug succeeds": 3,
                       "oracle changed what no goal names: Pot": 1})
    assert gen._kinds(dropped) == {"oracle: slicing (the knife or the food out of reach)": 2,
                                   "oracle: wall switch out of reach": 1,
                                   "oracle: an object out of reach to pick up": 3,
                                   "oracle: changed an object no goal names": 1}


def test_every_goal_keeps_its_look_alikes_and_says_so() -> None:
    house = gen.house_spec(3, 14)
    s = _scene(World(gen.house_scene(house)), 1)
    chosen, _ = goals.compose(s, "cleaning")
    named = {it["object_id"] for g in chosen for it in g.items}
    for g in chosen:
        otype = g.items[0]["object_type"]
        same = {o.id for o in s.world.objects.values() if o.type == otype} - named
        assert all(sorted(same) == it.get("keep", []) for it in g.items), g.detailed
        assert ("(leave the other " in g.detailed) == bool(same)
        assert all(ambiguity.chance(s.world, it) <= ambiguity.MAX_CHANCE for it in g.items), g.detailed


def test_the_chance_of_a_reader_of_types_alone() -> None:
    world = World(generate_house(5, ["Kitchen", "Bedroom", "LivingRoom"]))
    by = {t: sorted((o for o in world.objects.values() if o.type == t), key=lambda o: o.id)
          for t in ("Cabinet", "Fridge", "Mug", "Shelf", "Apple")}
    cabinets = by["Cabinet"]
    for c in cabinets:
        world.set(c.id, is_open=False)
    world.set(cabinets[0].id, is_open=True)
    shut = {"object_id": cabinets[1].id, "object_type": "Cabinet", "attr": "isOpen", "target": True}
    assert ambiguity.chance(world, shut) == 1 / (len(cabinets) - 1)  # the open one is not a candidate
    fridge = {"object_id": by["Fridge"][0].id, "object_type": "Fridge", "attr": "isOpen", "target": True}
    assert ambiguity.chance(world, fridge) == 1.0  # the house's only fridge: its type names it
    mugs = by["Mug"]
    here = mugs[0].center
    shelves = sorted(by["Shelf"], key=lambda r: math.dist(r.center, here))
    move = {"object_id": mugs[0].id, "object_type": "Mug", "attr": "position", "target": [shelves[-1].id]}
    assert ambiguity.chance(world, move) == 1 / len(mugs) / len(shelves)  # a far shelf: one in the shelves
    nearest = {**move, "target": [shelves[0].id]}
    assert ambiguity.chance(world, nearest) == 1 / len(mugs)  # the shelf nearest the mug: a carrier finds it
    slice_ = {"object_id": by["Apple"][0].id, "object_type": "Apple", "attr": "isSliced", "target": True}
    assert ambiguity.chance(world, slice_) == 1 / len(by["Apple"])
    bound = ambiguity.reader_bound(world, [fridge, shut])
    p = 1 / (len(cabinets) - 1)
    assert bound == (1 + p) / (2 + (1 - p))
    reason = gen.shortcut_reason({"checklist": [fridge, shut]}, world)
    assert reason == "a reader of the goals' types alone above its bound"
