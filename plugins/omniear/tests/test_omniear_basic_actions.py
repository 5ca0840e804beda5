"""GOTO, GRAB, PLACE, EXPLORE and LOOK on a tiny hand-built scene (expected texts worked out by hand).

The scene (conftest): rooms hall and kitchen, the agent starts in hall (sorted first). Kitchen: table_1
(furniture, 40 kg) with cup_1 (0.5 kg) and radio_1 on it, cabinet_1 (closed container) with kit_1 inside,
crate_1 (60 kg, closed container). Hall: desk_1 with lamp_1 on it. max_weight 20, grasp limit 2.
"""

from __future__ import annotations

from types import SimpleNamespace

OK, BAD, FAIL = "SUCCESS", "INVALID", "FAILURE"


def load_line(sim) -> str:
    return next(line for line in sim.observation().split("\n") if "Load:" in line).strip()


def test_goto_rooms_objects_and_errors(omni: SimpleNamespace) -> None:
    sim = omni.build()
    assert omni.run(
        sim, "GOTO kitchen", "GOTO cup_1", "GOTO nowhere", "EXPLORE", "GOTO cup_1", "GOTO kitchen"
    ) == [
        (OK, "robot_1 successfully moved to Kitchen"),
        (BAD, "Target object not discovered: Cup 1"),
        (BAD, "Target location does not exist: nowhere"),
        (OK, "robot_1 thoroughly explored Kitchen and discovered 6 new objects"),
        (OK, "robot_1 approached Cup 1 (in Kitchen)"),
        (OK, "robot_1 successfully moved to Kitchen"),
    ]
    assert omni.last(sim, "GOTO hall", "EXPLORE", "GOTO kitchen", "GOTO lamp_1") == (
        BAD,
        "Must go to Hall first, then approach Lamp 1",
    )


def test_explore_discovers_closed_containers_and_checks_the_room(omni: SimpleNamespace) -> None:
    sim = omni.build()
    assert omni.run(
        sim, "EXPLORE", "EXPLORE", "EXPLORE kitchen", "EXPLORE attic", "EXPLORE thorough", "EXPLORE hall"
    ) == [
        (OK, "robot_1 thoroughly explored Hall and discovered 2 new objects"),
        (OK, "robot_1 explored Hall but found no new objects"),
        (BAD, "Agent must go to Kitchen before exploring that room"),
        (BAD, "Agent must go to attic before exploring that room"),
        (OK, "robot_1 explored Hall but found no new objects"),
        (OK, "robot_1 explored Hall but found no new objects"),
    ]
    omni.run(sim, "GOTO kitchen", "EXPLORE")
    assert sim.world.objects["kit_1"].discovered  # inside the closed cabinet


def test_grab_validation_order(omni: SimpleNamespace) -> None:
    sim = omni.build(grasp=1)
    assert omni.run(
        sim,
        "GRAB ghost",
        "GRAB cup_1",
        "GOTO kitchen",
        "EXPLORE",
        "GRAB kit_1",
        "GRAB crate_1",
        "GRAB cup_1",
        "GOTO cup_1",
        "GRAB cup_1",
        "GRAB radio_1",
    ) == [
        (BAD, "Object does not exist: ghost"),
        (BAD, "Object not discovered: Cup 1"),
        (OK, "robot_1 successfully moved to Kitchen"),
        (OK, "robot_1 thoroughly explored Kitchen and discovered 6 new objects"),
        (BAD, "Object kit_1 is in closed container Cabinet 1"),
        (BAD, "Weight limit exceeded (current:0.0kg + object:60.0kg > max:20.0kg)"),
        (FAIL, "Agent must approach Cup 1 before grabbing"),
        (OK, "robot_1 approached Cup 1 (in Kitchen)"),
        (OK, "robot_1 successfully grabbed Cup 1"),
        (BAD, "Agent has reached maximum grab limit (1)"),
    ]
    assert load_line(sim) == "- Load: 0.5/20.0kg"
    assert omni.last(sim, "GOTO hall", "GRAB radio_1") == (
        BAD,
        "Agent must go to Kitchen first to interact with Radio 1",
    )


def test_grab_weight_item_and_container_with_contents(omni: SimpleNamespace) -> None:
    objects = [
        omni.obj("anvil_1", "in:hall", weight=25.0),
        omni.obj("bag_1", "in:hall", weight=19.0, is_container=True),
        omni.obj("brick_1", "in:bag_1", weight=2.0),
        omni.obj("box_1", "in:hall", weight=1.0, is_container=True),
        omni.obj("pen_1", "in:box_1", weight=0.2),
    ]
    sim = omni.build(objects)
    assert omni.run(
        sim,
        "EXPLORE",
        "GRAB anvil_1",
        "GOTO anvil_1",
        "GRAB anvil_1",
        "GRAB bag_1",
        "GOTO box_1",
        "GRAB box_1",
    ) == [
        (OK, "robot_1 thoroughly explored Hall and discovered 5 new objects"),
        (FAIL, "Agent must approach Anvil 1 before grabbing"),
        (OK, "robot_1 approached Anvil 1 (in Hall)"),
        (FAIL, "Weight limit exceeded (current:0.0kg + object:25.0kg > max:20.0kg)"),
        (
            BAD,
            "Cannot grab container with contents: "
            "Weight limit exceeded (current:0.0kg + object:21.0kg > max:20.0kg)",
        ),
        (OK, "robot_1 approached Box 1 (in Hall)"),
        (OK, "robot_1 successfully grabbed Box 1"),
    ]
    assert load_line(sim) == "- Load: 1.2/20.0kg"  # own weight + direct children


def test_place_checks_and_messages(omni: SimpleNamespace) -> None:
    sim = omni.build()
    omni.run(sim, "GOTO kitchen", "EXPLORE", "GOTO cup_1")
    assert omni.run(
        sim,
        "PLACE cup_1",
        "PLACE cup_1 on",
        "PLACE cup_1 on table_1",
        "GRAB cup_1",
        "PLACE cup_1 on desk_1",
        "PLACE cup_1 in table_1",
        "PLACE cup_1 on kitchen",
        "PLACE cup_1 in kitchen",
    ) == [
        (
            BAD,
            "PLACE action must specify placement method (on/in) and location, format: "
            "PLACE <object_id> <on|in> <location_id>",
        ),
        (BAD, "Invalid command format: PLACE cup_1 on"),
        (BAD, "Agent does not hold object: cup_1"),
        (OK, "robot_1 successfully grabbed Cup 1"),
        (BAD, "Agent must approach desk_1 before placing object"),
        (BAD, "Target location Table 1 does not support 'in' placement"),
        (BAD, "Cannot place object on room"),
        (OK, "robot_1 placed Cup 1 on Kitchen"),  # says "on" even for "in"
    ]
    assert sim.world.objects["cup_1"].location_id == "in:kitchen"
    assert load_line(sim) == "- Load: 0.0/20.0kg"


def test_place_into_a_closed_container_is_not_checked(omni: SimpleNamespace) -> None:
    sim = omni.build()
    assert omni.last(
        sim, "GOTO kitchen", "EXPLORE", "GOTO cup_1", "GRAB cup_1", "GOTO crate_1", "PLACE cup_1 in crate_1"
    ) == (OK, "robot_1 placed Cup 1 on Crate 1")
    assert sim.world.objects["crate_1"].states["is_open"] is False


def test_look_is_hidden_but_works(omni: SimpleNamespace) -> None:
    sim = omni.build()
    assert omni.run(sim, "LOOK", "LOOK AROUND", "EXPLORE", "LOOK lamp_1", "EXAMINE lamp_1", "LOOK ghost") == [
        (OK, "robot_1 looked around Hall"),
        (OK, "robot_1 looked around Hall"),
        (OK, "robot_1 thoroughly explored Hall and discovered 2 new objects"),
        (OK, "robot_1 looked at Lamp 1"),
        (OK, "robot_1 looked at Lamp 1"),
        (BAD, "Object does not exist: ghost"),
    ]
    assert omni.last(sim, "GOTO kitchen", "EXPLORE", "LOOK kit_1") == (
        BAD,
        "Object kit_1 is in closed container Cabinet 1",
    )
    assert "LOOK" not in sim.available_actions()


def test_parse_errors(omni: SimpleNamespace) -> None:
    sim = omni.build()
    assert omni.run(sim, "DANCE", "EXPLORE.", "GOTO kitchen,", 'GOTO "kitchen"', "   ") == [
        (BAD, "Unknown command: DANCE"),
        (BAD, "Unknown command: EXPLORE."),
        (BAD, "Invalid command format: GOTO kitchen,"),
        (BAD, 'Invalid command format: GOTO "kitchen"'),
        (FAIL, "Command processing error: list index out of range"),
    ]


def test_place_into_its_own_contents_is_refused(omni: SimpleNamespace) -> None:
    objects = [omni.obj("bag_1", "in:hall", is_container=True), omni.obj("pen_1", "in:bag_1", weight=0.1)]
    sim = omni.build(objects)
    commands = (
        "EXPLORE",
        "GOTO bag_1",
        "GRAB bag_1",
        "GOTO pen_1",
        "PLACE bag_1 on pen_1",
        "PLACE bag_1 on bag_1",
    )
    assert omni.run(sim, *commands) == [
        (OK, "robot_1 thoroughly explored Hall and discovered 2 new objects"),
        (OK, "robot_1 approached Bag 1 (in Hall)"),
        (OK, "robot_1 successfully grabbed Bag 1"),
        (OK, "robot_1 approached Pen 1 (in Hall)"),
        (BAD, "Cannot place bag_1 in or on itself or its contents"),  # the reference would loop forever
        (BAD, "Cannot place bag_1 in or on itself or its contents"),
    ]
