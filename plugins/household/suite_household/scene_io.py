"""Scenes to and from JSON files (schema: schemas/scene.schema.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from suite.contract.errors import DataError
from suite.contract.schemas import read_json, validate

from suite_household.catalog import TYPES
from suite_household.world import Agent, Fixture, Obj, Room, Scene, Wall

SCHEMA = Path(__file__).parent / "schemas" / "scene.schema.json"
FORMAT = "household-scene/1"


def scene_to_dict(scene: Scene) -> dict[str, Any]:
    """A JSON-ready dict of the scene."""
    a = scene.agent
    return {
        "format": FORMAT,
        "name": scene.name,
        "seed": scene.seed,
        "meta": scene.meta,
        "rooms": [
            {"id": r.id, "type": r.type, "x0": r.x0, "z0": r.z0, "x1": r.x1, "z1": r.z1} for r in scene.rooms
        ],
        "walls": [[w.x0, w.z0, w.x1, w.z1] for w in scene.walls],
        "fixtures": [{"box": list(f.box), "color": list(f.color)} for f in scene.fixtures],
        "objects": [
            {
                f: (list(v) if isinstance(v, tuple) else v)
                for f in Obj.__slots__
                if (v := getattr(o, f)) is not None or f == "parent"
            }
            for o in scene.objects
        ],
        "agent": {"x": a.x, "z": a.z, "yaw": a.yaw, "horizon": a.horizon, "standing": a.standing},
    }


def scene_from_dict(data: dict[str, Any], source: str | Path = "<scene>") -> Scene:
    """A scene from its dict form; DataError names the source and the JSON pointer of a bad value."""
    validate(data, SCHEMA, source)
    for i, o in enumerate(data["objects"]):
        if o["type"] not in TYPES:
            raise DataError(source, f"/objects/{i}/type", f"a known object type, not {o['type']!r}")
    objects = tuple(_obj_from_dict(o) for o in data["objects"])
    ids = {o.id for o in objects}
    for i, o in enumerate(objects):
        if o.parent is not None and o.parent not in ids:
            raise DataError(
                source, f"/objects/{i}/parent", f"the id of an object in the scene, not {o.parent!r}"
            )
    return Scene(
        name=data["name"],
        seed=data["seed"],
        rooms=tuple(Room(**r) for r in data["rooms"]),
        walls=tuple(Wall(*w) for w in data["walls"]),
        fixtures=tuple(Fixture(tuple(f["box"]), tuple(f["color"])) for f in data["fixtures"]),
        objects=objects,
        agent=Agent(**data["agent"]),
        meta=data.get("meta", {}),
    )


def _obj_from_dict(o: dict[str, Any]) -> Obj:
    # JSON arrays become the tuples Obj holds; the schema (validated by the caller) fixes the fields' names and types
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in o.items()}
    return Obj(**fields)


def save_scene(scene: Scene, path: str | Path) -> Path:
    """Write the scene as indented JSON; returns the path."""
    path = Path(path)
    path.write_text(json.dumps(scene_to_dict(scene), indent=1) + "\n", encoding="utf-8")
    return path


def load_scene(path: str | Path) -> Scene:
    """Read a scene file written by `save_scene` (or by hand, to the schema)."""
    return scene_from_dict(read_json(path), path)
