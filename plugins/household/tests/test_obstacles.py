"""Movable obstacles: a box an episode puts in a doorway blocks the way until it is picked up, and blocks again
where it is dropped; the household player adds a house's extra objects the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite_household.catalog import TYPES
from suite_household.controller import Controller
from suite_household.generator import generate_house
from suite_household.obstacles import OBSTACLES, door_blocked, obstacle_at, passage, with_obstacles
from suite_household.player import SceneLibrary
from suite_household.procthor import procthor_house
from suite_household.scene_io import save_scene
from suite_household.world import AGENT_RADIUS, Scene


def _house() -> tuple[Scene, str]:
    scene = generate_house(5, ["Kitchen", "LivingRoom"])
    return scene, next(o.id for o in scene.objects if o.type == "Doorway")


def _in_doorway(scene: Scene, door_id: str, offset: float = 0.0) -> dict:
    door = next(o for o in scene.objects if o.id == door_id)
    x, _, z = door.center
    *_, along_x = passage(door)
    size = TYPES["Box"].size
    return {"objectId": "Box|obstacle|0", "type": "Box", "size": list(size),
            "position": {"x": x, "y": size[1] / 2, "z": z + offset if along_x else z,
                         **({} if along_x else {"x": x + offset})}}


def _reach(ctl: Controller) -> int:
    return len(ctl.step(action="GetReachablePositions").metadata["actionReturn"])


def test_a_box_in_the_doorway_blocks_the_way_until_it_is_picked_up() -> None:
    scene, door = _house()
    open_house = _reach(Controller(scene=scene, width=64, height=48, renderImage=False))
    blocked = with_obstacles(scene, [_in_doorway(scene, door, 0.2)])
    assert blocked.meta[OBSTACLES] == ("Box|obstacle|0",)
    ctl = Controller(scene=blocked, width=64, height=48, renderImage=False)
    box = ctl.world.objects["Box|obstacle|0"]
    assert ctl.world.objects[box.parent].type == "Floor" and box.room
    assert door_blocked(ctl.world, door)
    assert _reach(ctl) < open_house  # the other room is cut off
    x, _, z = box.center
    assert obstacle_at(ctl.world, x + box.size[0] / 2 + AGENT_RADIUS - 0.01, z) == box.id
    assert obstacle_at(ctl.world, x + box.size[0] / 2 + AGENT_RADIUS + 0.01, z) is None
    spot = min(ctl.nav.reachable((ctl.world.agent.x, ctl.world.agent.z)),
               key=lambda p: abs(p[0] - x) + abs(p[1] - z))
    ctl.step(action="Teleport", position={"x": spot[0], "y": 0.9, "z": spot[1]})
    picked = ctl.step(action="PickupObject", objectId=box.id, forceAction=True)
    assert picked.metadata["lastActionSuccess"], picked.metadata["errorMessage"]
    assert not door_blocked(ctl.world, door) and obstacle_at(ctl.world, x, z) is None
    assert _reach(ctl) == open_house


def test_a_dropped_obstacle_blocks_where_it_lands() -> None:
    scene, door = _house()
    ctl = Controller(scene=with_obstacles(scene, [_in_doorway(scene, door, 0.2)]), width=64, height=48,
                     renderImage=False)
    a = ctl.world.agent
    ctl.step(action="PickupObject", objectId="Box|obstacle|0", forceAction=True)
    ctl.step(action="Teleport", position={"x": a.x, "y": 0.9, "z": a.z}, rotation={"x": 0, "y": 0, "z": 0})
    dropped = ctl.step(action="DropHandObject", forceAction=True)
    assert dropped.metadata["lastActionSuccess"], dropped.metadata["errorMessage"]
    x, _, z = ctl.world.objects["Box|obstacle|0"].center
    assert obstacle_at(ctl.world, x, z) == "Box|obstacle|0"
    assert not door_blocked(ctl.world, door)


def test_a_box_beside_the_passage_leaves_the_door_open() -> None:
    scene, door = _house()
    d = next(o for o in scene.objects if o.id == door)
    aside = _in_doorway(scene, door, 0.2)
    *_, along_x = passage(d)
    key = "x" if along_x else "z"
    aside["position"][key] += 0.9  # beside the door, not in front of it
    world = Controller(scene=with_obstacles(scene, [aside]), width=64, height=48, renderImage=False).world
    assert not door_blocked(world, door)


def test_a_bad_obstacle_is_refused() -> None:
    scene, door = _house()
    off = _in_doorway(scene, door)
    off["position"] = {"x": 1000.0, "y": 0.1, "z": 1000.0}
    with pytest.raises(ValueError, match="on no floor"):
        with_obstacles(scene, [off])
    fixed = _in_doorway(scene, door, 0.2)
    fixed["type"] = "Fridge"
    with pytest.raises(ValueError, match="not a pickupable type"):
        with_obstacles(scene, [fixed])


def test_the_player_adds_a_houses_extra_objects_as_obstacles(tmp_path: Path) -> None:
    scene, door = _house()
    save_scene(scene, tmp_path / f"{scene.name}.json")
    house = procthor_house(with_obstacles(scene, [_in_doorway(scene, door, 0.2)]))
    served = SceneLibrary([tmp_path]).house(house)
    assert served.meta[OBSTACLES] == ("Box|obstacle|0",)
    assert door_blocked(Controller(scene=served, width=64, height=48, renderImage=False).world, door)
