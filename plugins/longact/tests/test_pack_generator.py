"""The pack generator's rules: no item holds at step 0, distractors in both states, varied houses, and the
rejection of draws a shortcut baseline scores on."""

from __future__ import annotations

import random
from collections import Counter

from suite_household.generator import generate_house, generate_room
from suite_household.world import World
from suite_longact.checklist import Item, holds
from suite_longact.pack import generate as gen
from suite_longact.pack import goals

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
    world = World(generate_house(5, ["Kitchen", "Bedroom"]))
    make = goals.TEMPLATES["open/close Cabinet (Kitchen)"]
    for seed in range(6):
        s = _scene(World(world.scene), seed)
        goal = make(s)
        assert goal is not None
        item = Item.from_dict(goal.items[0])
        assert not holds(s.world, item)  # opposite its target at step 0
        others = [o for o in s.world.objects.values() if o.type == "Cabinet" and o.id != item.object_id]
        states = {o.is_open for o in others}
        assert states == {True, False} or states == {item.target}  # both states, or all at the target
        assert "leave the other cabinets in the kitchen as they are" in goal.detailed
        assert {op["object"] for op in goal.setup} >= {o.id for o in others}


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
    assert gen.shortcut_reason({"checklist": goals}, world) == ""


def test_pack_figures_count_houses_per_episode_count_and_drops() -> None:
    eps = [{"house": h, "scenario": "cleaning", "goals": [{}] * 9, "oracle_steps": 100 + i,
            "checklist": [{"object_id": "a", "object_type": "Mug", "attr": "position", "target": ["b"]}]}
           for i, h in enumerate(["h1", "h1", "h1", "h2", "h3", "h3"])]
    houses = [{"id": h, "rooms": rooms} for h, rooms in (("h1", ["Kitchen"] * 3), ("h2", ["Kitchen"] * 4),
                                                          ("h3", ["Kitchen"] * 3))]
    facts = [{"goal_in_closed_drawer_or_cabinet": i < 2, "any_in_closed_container": i < 3,
              "flip_all": {"gc_se": 0.0, "gc": 0.5}} for i in range(6)]
    scores = [{"flipper": {"gc_se": 0.02, "gc": 0.1, "side_effects": 4},
               "random-walker": {"gc_se": 0.0, "gc": 0.0, "side_effects": 1}}]
    out = gen.pack_figures({"episodes": eps, "houses": houses}, facts, Counter(), Counter({"oracle: x": 2}), scores)
    assert out["houses_by_episode_count"] == {"1": 1, "2": 1, "3": 1}
    assert out["houses_by_room_count"] == {"3": 2, "4": 1}
    assert out["episodes_with_a_goal_object_in_a_closed_drawer_or_cabinet"] == 2
    assert out["episodes_with_a_checklist_object_in_a_closed_container"] == 3
    assert out["dropped_draws_by_reason"] == {"oracle: x": 2}
    assert out["audit"]["flipper"]["gc_se"] == 2.0 and out["audit"]["flip-everything bound"]["gc"] == 50.0


def test_dropped_reasons_are_grouped_by_kind() -> None:
    dropped = Counter({"oracle: oracle stuck: no pose from which Pick Knife succeeds": 2,
                       "oracle: oracle stuck: no pose from which ToggleOn LightSwitch succeeds": 1,
                       "oracle: oracle stuck: no pose from which Pick Mug succeeds": 3,
                       "oracle changed what no goal names: Pot": 1})
    assert gen._kinds(dropped) == {"oracle: slicing (the knife or the food out of reach)": 2,
                                   "oracle: wall switch out of reach": 1,
                                   "oracle: an object out of reach to pick up": 3,
                                   "oracle: changed an object no goal names": 1}
