"""Task builders, one per OmniEAR category, over a generated scene (each may return None: no fit)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from suite_omniear.pack.catalog import ADJECTIVES, COLORS, VERBS, Verb

Task = dict[str, Any]
VERB_BY_NAME = {v.name: v for v in VERBS}


class SceneIndex:
    """Lookups over a scene dict: objects by id, rooms, each object's room and the applicable verbs."""

    def __init__(self, scene: dict[str, Any]) -> None:
        self.scene = scene
        self.rooms = [r["id"] for r in scene["rooms"]]
        self.objects = {o["id"]: o for o in scene["objects"]}
        self.abilities = set(scene["abilities"])

    def parent(self, obj_id: str) -> str:
        return self.objects[obj_id]["location_id"].split(":", 1)[1]

    def room_of(self, obj_id: str) -> str:
        node = self.parent(obj_id)
        while node not in self.rooms:
            node = self.parent(node)
        return node

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.scene["objects"] if o["type"] == kind]

    def tools_for(self, verb: str) -> list[dict[str, Any]]:
        return [o for o in self.scene["objects"] if verb in o["properties"].get("provides_abilities", ())]

    def chores(self, with_tool: bool | None = None) -> list[tuple[dict[str, Any], Verb]]:
        """(object, verb) pairs: the scene lists the verb, it applies now, and a tool exists if needed."""
        out = []
        for obj in self.scene["objects"]:
            for verb in VERBS:
                if verb.name not in self.abilities or obj["states"].get(verb.attribute) != verb.value:
                    continue
                if verb.name == "close" or (verb.requires_tool and not self.tools_for(verb.name)):
                    continue
                if with_tool is None or verb.requires_tool == with_tool:
                    out.append((obj, verb))
        return out

    def movable_items(self, max_weight: float) -> list[dict[str, Any]]:
        """Items without contents an agent can lift (tools excluded)."""
        contents = {self.parent(o) for o in self.objects}
        return [
            o
            for o in self.of_type("ITEM")
            if o["properties"]["weight"] <= max_weight
            and "provides_abilities" not in o["properties"]
            and o["id"] not in contents
        ]


PARTICLES = ("on", "off", "in")


def act(verb: Verb, target: str) -> str:
    """The verb applied to a target in task text: "power the x on", "clean the x", "plug it in"."""
    head, _, particle = verb.name.rpartition("_")
    if head and particle in PARTICLES:
        return f"{head.replace('_', ' ')} {target} {particle}"
    return f"{verb.name.replace('_', ' ')} {target}"


def capital(text: str) -> str:
    """First letter upper-cased (ids keep their case)."""
    return text[:1].upper() + text[1:]


def goal(obj: dict[str, Any], verb: Verb) -> dict[str, Any]:
    """The check that the verb was applied (its attribute flipped)."""
    return {"id": obj["id"], verb.attribute: not verb.value}


def _destination(
    rng: random.Random, index: SceneIndex, item: dict[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """A furniture piece other than the item's holder: (`on the x` / `in the x` text, check)."""
    options = [f for f in index.of_type("FURNITURE") if f["id"] != index.parent(item["id"])]
    if not options:
        return None
    host = rng.choice(options)
    rel = "in" if host["properties"].get("is_container") else "on"
    word = "into" if rel == "in" else "on"
    return f"{word} the {host['id']}", {"id": item["id"], "location_id": f"{rel}:{host['id']}"}


def direct_command(rng: random.Random, index: SceneIndex, agents: list[dict[str, Any]]) -> Task | None:
    """L1 single: place an item somewhere, or apply a no-tool verb."""
    if rng.random() < 0.6:
        items = index.movable_items(agents[0]["max_weight"])
        if not items:
            return None
        item = rng.choice(items)
        where = _destination(rng, index, item)
        if where is None:
            return None
        return _task(f"Place the {item['id']} {where[0]}.", "direct_command", [where[1]])
    chores = index.chores(with_tool=False)
    if not chores:
        return None
    obj, verb = rng.choice(chores)
    keep = add_distractors(rng, index, obj, verb)
    checks = [goal(obj, verb)] + [{"id": d["id"], verb.attribute: d["states"][verb.attribute]} for d in keep]
    return _task(f"{capital(act(verb, 'the ' + obj['id']))}. {KEEP_REST}", "direct_command", checks)


#: the rule a direct command with distractors ends with: the distractors' states are checked too
KEEP_REST = "Leave every other object as it is."


def add_distractors(rng: random.Random, index: SceneIndex, obj: dict[str, Any], verb: Verb) -> list[dict[str, Any]]:
    """Copies of the target in its room (issue 34: a task-blind flipper solved every direct command that applies
    a verb): one in the target's state listed before it and one after it, so a flipper that goes through the
    objects in either order changes one of them before the target, and one in the opposite state, so flipping
    every state both ways fails too. Each keeps its state in the task's checks. Added to the scene; returns them."""
    objects = index.scene["objects"]
    base = obj["id"].rsplit("_", 1)[0]
    taken = {o["id"] for o in objects}
    made = []
    for position, value in (("first", verb.value), ("last", verb.value), ("last", not verb.value)):
        n = 1
        while f"{base}_{n}" in taken:
            n += 1
        copy = {**obj, "id": f"{base}_{n}", "location_id": f"in:{index.room_of(obj['id'])}",
                "properties": {**obj["properties"], "color": rng.choice(COLORS)},
                "states": {**obj["states"], verb.attribute: value}}
        taken.add(copy["id"])
        objects.insert(0 if position == "first" else len(objects), copy)
        index.objects[copy["id"]] = copy
        made.append(copy)
    return made


def attribute_reasoning(rng: random.Random, index: SceneIndex, agents: list[dict[str, Any]]) -> Task | None:
    """L2 single: move the heaviest/lightest (material) item of a room; it must be movable."""
    room = rng.choice(index.rooms)
    items = [o for o in index.of_type("ITEM") if index.room_of(o["id"]) == room]
    material = rng.choice([None, *sorted({o["properties"]["material"] for o in items})])
    if material is not None:
        items = [o for o in items if o["properties"]["material"] == material]
    weights = [o["properties"]["weight"] for o in items]
    if len(items) < 2 or len(set(weights)) != len(weights):
        return None
    heaviest = rng.random() < 0.5
    target = (max if heaviest else min)(items, key=lambda o: o["properties"]["weight"])
    if target not in index.movable_items(agents[0]["max_weight"]):
        return None
    where = _destination(rng, index, target)
    if where is None:
        return None
    kind = f"{material} item" if material else "item"
    text = f"Find the {'heaviest' if heaviest else 'lightest'} {kind} in the {room} and put it {where[0]}."
    return _task(text, "attribute_reasoning", [where[1]])


def tool_use(rng: random.Random, index: SceneIndex, agents: list[dict[str, Any]]) -> Task | None:
    """L2 single: apply a verb that needs a tool."""
    chores = index.chores(with_tool=True)
    if not chores:
        return None
    obj, verb = rng.choice(chores)
    tool = rng.choice(index.tools_for(verb.name))
    text = rng.choice(
        [
            f"{capital(act(verb, 'the ' + obj['id']))}.",
            f"Use the {tool['id']} to {act(verb, 'the ' + obj['id'])}.",
            f"The {obj['id']} is {ADJECTIVES[verb.attribute]}; find a tool and {act(verb, 'it')}.",
        ]
    )
    return _task(text, "tool_use", [goal(obj, verb)])


def compound_reasoning(rng: random.Random, index: SceneIndex, agents: list[dict[str, Any]]) -> Task | None:
    """L3 single: a tool verb on the heaviest/lightest matching object, or a tool verb then a placement."""
    chores = index.chores(with_tool=True)
    if not chores:
        return None
    obj, verb = rng.choice(chores)
    if rng.random() < 0.5:
        room = index.room_of(obj["id"])
        same = [o for o, v in chores if v == verb and index.room_of(o["id"]) == room]
        weights = [o["properties"]["weight"] for o in same]
        if len(same) >= 2 and len(set(weights)) == len(weights):
            heaviest = rng.random() < 0.5
            pick = max if heaviest else min
            target = pick(same, key=lambda o: o["properties"]["weight"])
            which = f"the {'heaviest' if heaviest else 'lightest'} {ADJECTIVES[verb.attribute]} object"
            text = f"{capital(act(verb, which))} in the {room}."
            return _task(text, "compound_reasoning", [goal(target, verb)])
    if obj["type"] != "ITEM" or obj not in index.movable_items(agents[0]["max_weight"]):
        return None
    where = _destination(rng, index, obj)
    if where is None:
        return None
    text = f"{capital(act(verb, 'the ' + obj['id']))} with a suitable tool, then put it {where[0]}."
    return _task(text, "compound_reasoning", [goal(obj, verb), where[1]])


def explicit_collaboration(
    rng: random.Random, index: SceneIndex, agents: list[dict[str, Any]]
) -> Task | None:
    """L1 multi: the two robots are told to apply a verb together."""
    chores = index.chores()
    if not chores:
        return None
    obj, verb = rng.choice(chores)
    text = f"Have robot_1 and robot_2 work as a team to {act(verb, 'the ' + obj['id'])}."
    return _task(text, "explicit_collaboration", [goal(obj, verb)])


def _heavy(index: SceneIndex, agents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    limit = max(a["max_weight"] for a in agents)
    return [f for f in index.of_type("FURNITURE") if f["properties"]["weight"] > limit]


def implicit_collaboration(
    rng: random.Random, index: SceneIndex, agents: list[dict[str, Any]]
) -> Task | None:
    """L2 multi: move furniture heavier than either robot can carry to another room."""
    heavy = _heavy(index, agents)
    if not heavy:
        return None
    piece = rng.choice(heavy)
    rooms = [r for r in index.rooms if r != index.room_of(piece["id"])]
    room = rng.choice(rooms)
    text = rng.choice([f"Move the {piece['id']} to the {room}.", f"The {piece['id']} belongs in the {room}."])
    return _task(text, "implicit_collaboration", [{"id": piece["id"], "location_id": f":{room}"}])


def compound_collaboration(
    rng: random.Random, index: SceneIndex, agents: list[dict[str, Any]]
) -> Task | None:
    """L3 multi: move heavy furniture to another room and apply a verb to it together."""
    heavy = {f["id"] for f in _heavy(index, agents)}
    chores = [(o, v) for o, v in index.chores() if o["id"] in heavy]
    if not chores:
        return None
    piece, verb = rng.choice(chores)
    room = rng.choice([r for r in index.rooms if r != index.room_of(piece["id"])])
    text = f"Bring the {piece['id']} to the {room} and {act(verb, 'it')} together."
    return _task(
        text, "compound_collaboration", [{"id": piece["id"], "location_id": f":{room}"}, goal(piece, verb)]
    )


def _task(description: str, category: str, checks: list[dict[str, Any]]) -> Task:
    return {"task_description": description, "task_category": category, "validation_checks": checks}


BUILDERS: dict[str, Callable[[random.Random, SceneIndex, list[dict[str, Any]]], Task | None]] = {
    "direct_command": direct_command,
    "attribute_reasoning": attribute_reasoning,
    "tool_use": tool_use,
    "compound_reasoning": compound_reasoning,
    "explicit_collaboration": explicit_collaboration,
    "implicit_collaboration": implicit_collaboration,
    "compound_collaboration": compound_collaboration,
}
