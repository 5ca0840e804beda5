"""Random scenes in the OmniEAR scene format, drawn from our catalog with a seeded RNG."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from suite_omniear.pack.catalog import COLORS, FURNITURE, ITEMS, THEMES, TOOLS, VERBS, Thing

OPENERS = ("open", "close")


def slug(name: str) -> str:
    """A snake_case id from a display name."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


class SceneBuilder:
    """Accumulates rooms and objects with unique ids (`<slug>_<n>`)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rooms: list[dict[str, Any]] = []
        self.objects: list[dict[str, Any]] = []
        self._counts: Counter[str] = Counter()

    def add(self, thing: Thing, kind: str, location: str) -> dict[str, Any]:
        """Add an object made from a template at `location` ("in:x" / "on:x")."""
        rng = self.rng
        base = slug(thing.name)
        self._counts[base] += 1
        props: dict[str, Any] = {
            "weight": round(rng.uniform(*thing.weight), 1),
            "material": rng.choice(thing.materials),
            "color": rng.choice(COLORS),
        }
        if kind == "FURNITURE":
            props["size"] = [
                round(rng.uniform(0.5, 2.5), 1),
                round(rng.uniform(0.4, 1.2), 1),
                round(rng.uniform(0.5, 2.0), 1),
            ]
        if thing.container or kind == "FURNITURE":
            props["is_container"] = thing.container
        if thing.provides:
            props["provides_abilities"] = list(thing.provides)
        states = dict(thing.states)
        if thing.container:
            states["is_open"] = kind == "ITEM" and rng.random() < 0.5
        obj = {
            "id": f"{base}_{self._counts[base]}",
            "name": thing.name,
            "type": kind,
            "location_id": location,
            "properties": props,
            "states": states,
        }
        self.objects.append(obj)
        return obj

    def place_item(self, thing: Thing, room: str, furniture: list[dict[str, Any]]) -> dict[str, Any]:
        """Put an item on/in one of the room's furniture pieces, or on the room floor."""
        if furniture and self.rng.random() < 0.8:
            host = self.rng.choice(furniture)
            rel = "in" if host["properties"].get("is_container") else "on"
            return self.add(thing, "ITEM", f"{rel}:{host['id']}")
        return self.add(thing, "ITEM", f"in:{room}")


def build_scene(rng: random.Random) -> dict[str, Any]:
    """A scene of 2-4 rooms with furniture, items and 3-5 tools, plus the verbs it supports."""
    theme = rng.choice(sorted(THEMES))
    description, room_pool = THEMES[theme]
    builder = SceneBuilder(rng)
    picked = rng.sample(room_pool, k=rng.randint(2, 4))
    ids = [slug(name) for name, _ in picked]
    for index, (name, props) in enumerate(picked):
        links = [ids[j] for j in (index - 1, index + 1) if 0 <= j < len(ids)]
        builder.rooms.append(
            {"id": ids[index], "name": name, "properties": dict(props), "connected_to_room_ids": links}
        )
    furniture_by_room: dict[str, list[dict[str, Any]]] = {}
    for room in ids:
        pieces = [
            builder.add(rng.choice(FURNITURE), "FURNITURE", f"in:{room}") for _ in range(rng.randint(2, 3))
        ]
        furniture_by_room[room] = pieces
        for _ in range(rng.randint(1, 3)):
            builder.place_item(rng.choice(ITEMS), room, pieces)
    for tool in rng.sample(TOOLS, k=rng.randint(3, 5)):
        room = rng.choice(ids)
        builder.place_item(tool, room, furniture_by_room[room])
    return {
        "description": f"{description} ({theme})",
        "rooms": builder.rooms,
        "objects": builder.objects,
        "abilities": scene_abilities(rng, builder.objects),
    }


def scene_abilities(rng: random.Random, objects: list[dict[str, Any]]) -> list[str]:
    """Verbs that apply to some object or come with a tool, the open/close pair, and one distractor."""
    names: set[str] = set(OPENERS)
    for obj in objects:
        names.update(obj["properties"].get("provides_abilities", ()))
        for verb in VERBS:
            if obj["states"].get(verb.attribute) == verb.value and not verb.requires_tool:
                names.add(verb.name)
    names.add(rng.choice(VERBS).name)
    return sorted(names)
