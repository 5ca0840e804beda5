"""An episode's house: regenerated from its seed by the household generator, then the episode's setup applied."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from suite_household.generator import default_inventory, generate_house
from suite_household.placement import find_spot
from suite_household.scene_io import scene_to_dict
from suite_household.world import Scene, World

_STATE_FIELDS = {"isOpen": "is_open", "isToggled": "is_toggled"}
#: the houses built in this process, by id (checked against their fingerprints): the check before a run builds them,
#: the episodes that follow in the same process reuse them
BUILT: dict[str, Scene] = {}


class HouseMismatch(RuntimeError):
    """The household generator no longer builds the house the pack was written against."""


def house_scene(house: dict[str, Any]) -> Scene:
    """The house of a pack entry: `{seed, rooms, extras}` through `generate_house`."""
    extras = house.get("extras") or {}
    inventories = [default_inventory(rt) + list(extras.get(rt, [])) for rt in house["rooms"]]
    return generate_house(int(house["seed"]), list(house["rooms"]), inventories, name=house["id"])


def fingerprint(scene: Scene) -> str:
    """A short hash of a scene's full JSON form."""
    blob = json.dumps(scene_to_dict(scene), sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def apply_setup(world: World, setup: list[dict[str, Any]]) -> None:
    """The episode's starting changes: objects moved into receptacles, openables and switches set."""
    for op in setup:
        if op["op"] == "move":
            obj, rec = world.objects[op["object"]], world.objects[op["into"]]
            spot = find_spot(world, rec, obj.size, ignore=obj.id)
            if spot is None:
                raise ValueError(f"setup: no room for {obj.id} in {rec.id}")
            x, y, z = obj.center
            world.translate(obj.id, spot[0] - x, spot[1] - y, spot[2] - z)
            world.reparent(obj.id, rec.id)
            world.set(obj.id, room=rec.room)
        else:
            world.set(op["object"], **{_STATE_FIELDS[op["attr"]]: bool(op["value"])})


def episode_scene(house: dict[str, Any], setup: list[dict[str, Any]], cache: dict[str, Scene] | None = None) -> Scene:
    """The episode's starting scene; the house is checked against the fingerprint the pack recorded."""
    base = cache.get(house["id"]) if cache is not None else None
    if base is None:
        base = house_scene(house)
        got = fingerprint(base)
        if house.get("fingerprint") and got != house["fingerprint"]:
            raise HouseMismatch(
                f"house {house['id']}: the household generator builds a different scene ({got}, pack: "
                f"{house['fingerprint']}); regenerate the pack with python -m suite_longact.pack.generate")
        if cache is not None:
            cache[house["id"]] = base
    world = World(base)
    apply_setup(world, setup)
    return Scene(base.name, base.seed, base.rooms, base.walls, base.fixtures, tuple(world.objects.values()),
                 base.agent, meta=dict(base.meta))
