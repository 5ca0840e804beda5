"""House generation: room types, multi-room doors, FloorPlan inventories, scene files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from suite.contract.errors import DataError
from suite_household.catalog import TYPES, can_hold
from suite_household.controller import Controller
from suite_household.generator import (
    ROOM_TYPES,
    floorplan_room_type,
    generate_floorplan,
    generate_house,
    generate_room,
)
from suite_household.scene_io import load_scene, save_scene, scene_from_dict, scene_to_dict

ITEM_CACHE = (
    Path(__file__).resolve().parents[3]
    / ".."
    / "shared"
    / "data"
    / "asgardbench"
    / "AsgardBench"
    / "Data"
    / "item_cache.json"
)


@pytest.mark.parametrize("room_type", ROOM_TYPES)
def test_rooms_place_objects_only_where_receptacles_allow(room_type: str) -> None:
    scene = generate_room(room_type, seed=3)
    objs = {o.id: o for o in scene.objects}
    assert sum(o.type == "Floor" for o in scene.objects) == 1
    for o in scene.objects:
        if TYPES[o.type].pickupable and o.parent is not None and objs[o.parent].type != "Floor":
            assert can_hold(objs[o.parent].type, o.type), (o.type, objs[o.parent].type)


def test_house_rooms_are_joined_by_open_doors() -> None:
    scene = generate_house(5)
    assert [r.type for r in scene.rooms] == list(ROOM_TYPES)
    doors = [o for o in scene.objects if o.type == "Doorway"]
    assert len(doors) == 4 and all(d.is_open for d in doors)
    ctl = Controller(scene=scene, width=64, height=48, renderImage=False)
    reach = ctl.step(action="GetReachablePositions").metadata["actionReturn"]
    rooms = {ctl.world.room_at(p["x"], p["z"]) for p in reach}
    assert rooms == {r.id for r in scene.rooms}


def test_closed_door_blocks_the_way() -> None:
    scene = generate_house(5, ["Kitchen", "LivingRoom"])
    ctl = Controller(scene=scene, width=64, height=48, renderImage=False)
    door = next(o.id for o in scene.objects if o.type == "Doorway")
    before = len(ctl.step(action="GetReachablePositions").metadata["actionReturn"])
    ok = ctl.step(action="CloseObject", objectId=door, forceAction=True)
    assert ok.metadata["lastActionSuccess"], ok.metadata["errorMessage"]
    assert len(ctl.step(action="GetReachablePositions").metadata["actionReturn"]) < before


def test_scene_file_round_trip(tmp_path: Path) -> None:
    scene = generate_house(9, ["Bedroom", "Bathroom"])
    loaded = load_scene(save_scene(scene, tmp_path / "scene.json"))
    assert loaded == scene
    a = Controller(scene=scene, width=80, height=60).step(action="RotateLeft")
    b = Controller(scene=loaded, width=80, height=60).step(action="RotateLeft")
    assert a.metadata == b.metadata and a.frame.tobytes() == b.frame.tobytes()


def test_bad_scene_file_names_the_pointer() -> None:
    data = scene_to_dict(generate_room("Bathroom", 1))
    data["objects"][2]["type"] = "Spaceship"
    with pytest.raises(DataError, match="/objects/2/type"):
        scene_from_dict(data, "x.json")


def test_floorplan_room_types() -> None:
    assert [floorplan_room_type(f"FloorPlan{n}") for n in (1, 212, 305, 427)] == list(ROOM_TYPES)


def test_every_floorplan_holds_its_inventory() -> None:
    if not ITEM_CACHE.exists():
        pytest.skip("shared AsgardBench data not present")
    import json

    cache = json.loads(ITEM_CACHE.read_text())
    for plan, names in cache["names"].items():
        scene = generate_floorplan(plan, cache, seed=0)
        got = Counter(o.name for o in scene.objects if o.type != "Doorway")
        assert got == Counter(names), plan
        assert scene.rooms[0].type == floorplan_room_type(plan)


def test_floorplan_from_path() -> None:
    if not ITEM_CACHE.exists():
        pytest.skip("shared AsgardBench data not present")
    scene = generate_floorplan("FloorPlan1", ITEM_CACHE, seed=1)
    assert {o.name for o in scene.objects} >= {"Mug_e7fad100", "CoffeeMachine_19c6af8e"}
