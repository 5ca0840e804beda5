"""Write the generated LongAct pack: 300 long-horizon episodes over the four scenarios, oracle-validated.

    python -m suite_longact.pack.generate [--seed 14] [--episodes 300] [--out plugins/longact/pack/data]

Following the paper's pipeline (a house and a scenario; the objects and their desired states; a multi-goal
workflow with its final-state checklist; verification), with the model and the annotators replaced by seeded
templates and the verification by the privileged oracle: an episode is kept only when the oracle solves it,
and the oracle's raw step count is recorded with it. Houses are regenerated from their seed by the household
generator at run time; the pack records each house's fingerprint so a changed generator is caught.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suite.loop import TraceSink, run_episode
from suite.records import Task
from suite_household.catalog import TYPES, can_hold
from suite_household.generator import ROOM_TYPES
from suite_household.placement import find_spot
from suite_household.rules import FLAT_SURFACES
from suite_household.world import Obj, World
from suite_longact.houses import apply_setup, fingerprint, house_scene
from suite_longact.vocabulary import SCENARIO_TITLES, SCENARIOS

OUT = Path(__file__).parent / "data"
PACK_FILE = "episodes.json"
MANIFEST = "PACK.json"
EPISODES_PER_HOUSE = 3
GOALS = 9
ROOM_WORDS = {"Kitchen": "kitchen", "LivingRoom": "living room", "Bedroom": "bedroom", "Bathroom": "bathroom"}
#: extra objects per room type, so that same-type objects need a referring expression to tell them apart
EXTRAS = {"Kitchen": ["Mug", "Book", "Cup", "Plate"], "LivingRoom": ["Mug", "Book", "Pillow", "Newspaper"],
          "Bedroom": ["Book", "Pen", "Mug", "RemoteControl"], "Bathroom": ["Cloth", "Book", "Candle"]}


@dataclass
class Goal:
    """One goal of a routine: its two phrasings, its checklist items and the setup it needs."""

    detailed: str
    concise: str
    items: list[dict[str, Any]]
    setup: list[dict[str, Any]] = field(default_factory=list)
    objects: tuple[str, ...] = ()


class Scene:
    """Read-only helpers over a house world for writing goals and referring expressions."""

    def __init__(self, world: World, rng: random.Random) -> None:
        self.world = world
        self.rng = rng
        self.rooms = {r.id: r.type for r in world.scene.rooms}
        self.used: set[str] = set()

    def of(self, otype: str, room: str | None = None) -> list[Obj]:
        """Objects of a type (in a room type), unused by earlier goals, sorted by id."""
        return sorted((o for o in self.world.objects.values() if o.type == otype and o.id not in self.used
                       and (room is None or self.rooms.get(o.room) == room)), key=lambda o: o.id)

    def pick(self, otype: str, room: str | None = None) -> Obj | None:
        """A random unused object of the type."""
        found = self.of(otype, room)
        return self.rng.choice(found) if found else None

    def room(self, obj: Obj) -> str:
        """The room word of an object."""
        return ROOM_WORDS[self.rooms[obj.room]]

    def ref(self, obj: Obj, where: bool = True) -> str | None:
        """A referring expression that singles the object out (type, then room, then its open/on state, then
        what it rests on or in when `where`), or None when none does."""
        word = _words(obj.type)
        same = [o for o in self.world.objects.values() if o.type == obj.type]
        if len(same) == 1:
            return f"the {word}"
        in_room = [o for o in same if o.room == obj.room]
        if len(in_room) == 1:
            return f"the {word} in the {self.room(obj)}"
        t = TYPES[obj.type]
        states = ((t.openable, "is_open", ("open", "closed")), (t.toggleable, "is_toggled", ("switched-on", "off")))
        for flag, attr, words in states:
            if flag and sum(getattr(o, attr) == getattr(obj, attr) for o in in_room) == 1:
                return f"the {words[0] if getattr(obj, attr) else words[1]} {word} in the {self.room(obj)}"
        parent = self.world.objects.get(obj.parent) if obj.parent else None
        if where and parent is not None:
            prep = "in" if TYPES[parent.type].openable or parent.type.endswith("Basin") else "on"
            same_parent = [o for o in in_room if o.parent and self.world.objects[o.parent].type == parent.type]
            if len(same_parent) == 1:
                return f"the {word} {prep} the {_words(parent.type)} in the {self.room(obj)}"
        return None

    def receptacles(self, rtype: str, room: str | None, item: Obj) -> list[str]:
        """Receptacles of a type (in a room type) that accept the item and have room for it."""
        return [r.id for r in self.of_any(rtype, room)
                if can_hold(r.type, item.type) and find_spot(self.world, r, item.size, ignore=item.id)]

    def of_any(self, otype: str, room: str | None) -> list[Obj]:
        """Objects of a type, used or not."""
        return [o for o in self.world.objects.values() if o.type == otype
                and (room is None or self.rooms.get(o.room) == room)]


def _words(otype: str) -> str:
    out = ""
    for ch in otype:
        out += (" " + ch.lower()) if ch.isupper() and out else ch.lower()
    return {"desk lamp": "desk lamp", "remote control": "TV remote", "cell phone": "phone"}.get(out, out)


def _pos(obj: Obj, targets: list[str]) -> dict[str, Any]:
    return {"object_id": obj.id, "object_type": obj.type, "attr": "position", "target": targets}


def _state(obj: Obj, attr: str, value: Any) -> dict[str, Any]:
    return {"object_id": obj.id, "object_type": obj.type, "attr": attr, "target": value}


# -- goal templates: each returns a Goal or None when the house cannot host it ----------------------------------
def move_goal(otype: str, rtype: str, room: str | None, verb: str, concise: str) -> Callable[[Scene], Goal | None]:
    """Bring an object of `otype` to a receptacle type (in a room type)."""

    def make(s: Scene) -> Goal | None:
        cands = [o for o in s.of(otype) if (room is None or s.rooms[o.room] != room or rtype == "GarbageCan")
                 and s.ref(o) is not None]
        if not cands:
            return None
        obj = s.rng.choice(cands)
        targets = s.receptacles(rtype, room, obj)
        targets = [t for t in targets if t not in s.world.ancestors(obj.id)]
        if not targets:
            return None
        where = f"the {_words(rtype)}" + (f" in the {ROOM_WORDS[room]}" if room else "")
        setup = []
        ref = s.ref(obj)
        # a detail found only by interaction: the object starts shut in a container the instruction never names
        if s.rng.random() < 0.35 and s.ref(obj, where=False):
            shut = [c for c in s.of_any("Cabinet", None) + s.of_any("Drawer", None)
                    if s.rooms[c.room] == s.rooms[obj.room] and can_hold(c.type, obj.type) and not c.is_open
                    and find_spot(s.world, c, obj.size, ignore=obj.id)]
            if shut:
                ref = s.ref(obj, where=False)
                setup.append({"op": "move", "object": obj.id, "into": s.rng.choice(shut).id})
                apply_setup(s.world, setup)
        return Goal(f"{verb} {ref} to {where}", concise.format(obj=_words(otype), where=where),
                    [_pos(obj, targets)], setup, (obj.id,))

    return make


def switch_goal(otype: str, room: str | None, on: bool, concise: str) -> Callable[[Scene], Goal | None]:
    """Switch an object on or off (set up in the opposite state)."""

    def make(s: Scene) -> Goal | None:
        obj = s.pick(otype, room)
        if obj is None:
            return None
        setup = [{"op": "state", "object": obj.id, "attr": "isToggled", "value": not on}]
        apply_setup(s.world, setup)
        ref = s.ref(s.world.objects[obj.id])
        if ref is None:
            apply_setup(s.world, [{**setup[0], "value": on}])
            return None
        verb = "turn on" if on else "turn off"
        return Goal(f"{verb} {ref}", concise, [_state(obj, "isToggled", on)], setup, (obj.id,))

    return make


def openable_goal(otype: str, room: str | None, open_: bool, concise: str) -> Callable[[Scene], Goal | None]:
    """Open or close an object (set up in the opposite state)."""

    def make(s: Scene) -> Goal | None:
        obj = s.pick(otype, room)
        if obj is None or (otype == "Doorway" and any(d.startswith("door") for d in s.used)):
            return None
        setup = [{"op": "state", "object": obj.id, "attr": "isOpen", "value": not open_}]
        if otype != "Doorway":
            apply_setup(s.world, setup)
            if s.ref(s.world.objects[obj.id]) is None:
                apply_setup(s.world, [{**setup[0], "value": open_}])
                return None
        if otype == "Doorway":
            a, b = obj.id.split("|")[1:]
            names = [ROOM_WORDS[s.rooms[f"room{a}"]], ROOM_WORDS[s.rooms[f"room{b}"]]]
            return Goal(f"close the door between the {names[0]} and the {names[1]}", concise.format(*names),
                        [_state(obj, "isOpen", False)], [], (obj.id,))
        verb = "open" if open_ else "close"
        ref = s.ref(s.world.objects[obj.id])
        return Goal(f"{verb} {ref}", concise, [_state(obj, "isOpen", open_)], setup, (obj.id,))

    return make


def slice_goal(otype: str) -> Callable[[Scene], Goal | None]:
    """Slice a food item; it is set on a counter first when it does not rest on a flat surface."""

    def make(s: Scene) -> Goal | None:
        obj = s.pick(otype, "Kitchen")
        if obj is None or not s.of_any("Knife", None) or s.ref(obj, where=False) is None:
            return None
        setup = []
        parent = s.world.objects.get(obj.parent) if obj.parent else None
        if parent is None or parent.type not in FLAT_SURFACES:
            counters = [c.id for c in s.of_any("CounterTop", "Kitchen") if find_spot(s.world, c, obj.size)]
            if not counters:
                return None
            setup.append({"op": "move", "object": obj.id, "into": s.rng.choice(counters)})
            apply_setup(s.world, setup)
        word = _words(otype)
        return Goal(f"slice {s.ref(obj, where=False)}", f"{word} cut up", [_state(obj, "isSliced", True)], setup,
                    (obj.id,))

    return make


def cook_goal(s: Scene) -> Goal | None:
    """Microwave a potato and serve it on the dining table."""
    obj = s.pick("Potato", "Kitchen")
    if obj is None or not s.of_any("Microwave", None) or s.ref(obj) is None:
        return None
    table = s.receptacles("DiningTable", None, obj)
    if not table:
        return None
    return Goal(f"cook {s.ref(obj)} in the microwave and serve it on the dining table", "a hot potato on the table",
                [_state(obj, "isCooked", True), _pos(obj, table)], [], (obj.id,))


def drink_goal(liquid: str, vessel: str, rtype: str, room: str | None, concise: str) -> Callable[[Scene], Goal | None]:
    """Fill a vessel (coffee machine or sink) and bring it to a receptacle."""

    def make(s: Scene) -> Goal | None:
        obj = s.pick(vessel)
        source = "CoffeeMachine" if liquid == "coffee" else "Faucet"
        if obj is None or not s.of_any(source, "Kitchen") or s.ref(obj) is None:
            return None
        targets = s.receptacles(rtype, room, obj)
        if not targets:
            return None
        where = f"the {_words(rtype)}" + (f" in the {ROOM_WORDS[room]}" if room else "")
        how = "make coffee in" if liquid == "coffee" else "fill with water"
        return Goal(f"{how} {s.ref(obj)} and put it on {where}", concise,
                    [_state(obj, "isFilledWithLiquid", liquid), _pos(obj, targets)], [], (obj.id,))

    return make


POOLS: dict[str, list[Callable[[Scene], Goal | None]]] = {
    "cleaning": [
        move_goal("Book", "Shelf", "LivingRoom", "put", "books back on the living-room shelves"),
        move_goal("Newspaper", "GarbageCan", None, "throw", "old newspaper in the bin"),
        move_goal("Mug", "SinkBasin", "Kitchen", "take", "dirty mugs to the kitchen sink"),
        move_goal("Plate", "SinkBasin", "Kitchen", "take", "plates in the kitchen sink"),
        move_goal("Pillow", "Sofa", "LivingRoom", "put", "cushions back on the sofa"),
        move_goal("RemoteControl", "CoffeeTable", "LivingRoom", "put", "the remote on the coffee table"),
        move_goal("Cloth", "Bathtub", "Bathroom", "put", "cloths in the tub"),
        move_goal("KeyChain", "Dresser", "Bedroom", "put", "keys on the dresser"),
        openable_goal("Cabinet", "Kitchen", False, "kitchen cupboards shut"),
        openable_goal("Drawer", "Bedroom", False, "bedroom drawers shut"),
        switch_goal("LightSwitch", "Bathroom", False, "bathroom light off"),
        switch_goal("LightSwitch", "Kitchen", False, "kitchen light off"),
    ],
    "work_study": [
        move_goal("Laptop", "Desk", "Bedroom", "bring", "my laptop on the bedroom desk"),
        switch_goal("DeskLamp", "Bedroom", True, "desk lamp on"),
        drink_goal("coffee", "Mug", "Desk", "Bedroom", "a coffee at my desk"),
        move_goal("Pen", "Desk", "Bedroom", "put", "a pen on the desk"),
        move_goal("Pencil", "Desk", "Bedroom", "put", "a pencil on the desk"),
        move_goal("Book", "Desk", "Bedroom", "put", "a book to read on the desk"),
        move_goal("CellPhone", "Desk", "Bedroom", "put", "my phone by the desk"),
        move_goal("AlarmClock", "Desk", "Bedroom", "put", "the clock on the desk"),
        openable_goal("Blinds", "Bedroom", True, "daylight in the bedroom"),
        switch_goal("LightSwitch", "Bedroom", True, "bedroom light on"),
    ],
    "rest_entertainment": [
        switch_goal("Television", "LivingRoom", True, "the TV on"),
        move_goal("RemoteControl", "Sofa", "LivingRoom", "bring", "the remote within reach on the sofa"),
        switch_goal("FloorLamp", "LivingRoom", True, "soft light from the floor lamp"),
        move_goal("TeddyBear", "Bed", "Bedroom", "put", "the teddy on the bed"),
        move_goal("Pillow", "Bed", "Bedroom", "put", "a pillow on the bed"),
        openable_goal("Curtains", "LivingRoom", False, "living-room curtains drawn"),
        openable_goal("Blinds", "Bedroom", False, "bedroom blinds down"),
        drink_goal("water", "Cup", "SideTable", None, "a glass of water by my chair"),
        openable_goal("Doorway", None, False, "the {} / {} door shut"),
        switch_goal("LightSwitch", "Kitchen", False, "kitchen light off"),
    ],
    "dining_kitchen": [
        slice_goal("Bread"),
        slice_goal("Tomato"),
        slice_goal("Apple"),
        slice_goal("Lettuce"),
        cook_goal,
        drink_goal("coffee", "Mug", "DiningTable", "Kitchen", "coffee at the dining table"),
        drink_goal("water", "Cup", "DiningTable", "Kitchen", "water on the table"),
        move_goal("Fork", "DiningTable", "Kitchen", "lay", "a fork laid on the table"),
        move_goal("Spoon", "DiningTable", "Kitchen", "lay", "a spoon laid on the table"),
        move_goal("Bowl", "DiningTable", "Kitchen", "set", "a bowl on the table"),
        move_goal("Apple", "Fridge", "Kitchen", "put", "fruit in the fridge"),
        openable_goal("Fridge", "Kitchen", False, "the fridge shut"),
    ],
}
INTROS = {
    "cleaning": ("Tidy the house.", "The place is a mess."),
    "work_study": ("Prepare the study corner for a working session.", "I have to work tonight."),
    "rest_entertainment": ("Get the house ready for a relaxing evening.", "Time to unwind."),
    "dining_kitchen": ("Get the kitchen and the meal ready.", "Dinner soon."),
}


def compose(s: Scene, scenario: str) -> list[Goal]:
    """About nine goals: most from the scenario's pool, a few from the others (a compound routine)."""
    own = list(POOLS[scenario])
    other = [g for sc, pool in POOLS.items() if sc != scenario for g in pool]
    s.rng.shuffle(own)
    s.rng.shuffle(other)
    goals: list[Goal] = []
    want = GOALS + s.rng.choice((-1, 0, 0, 1))
    for make in own[:8] + other:
        if len(goals) >= want:
            break
        goal = make(s)
        if goal is None:
            continue
        goals.append(goal)
        s.used.update(goal.objects)
    return goals


def instructions(scenario: str, goals: list[Goal]) -> tuple[str, str]:
    """The detailed split (every goal spelled out) and the concise one (the intent, to be inferred)."""
    detailed_intro, concise_intro = INTROS[scenario]
    steps = "; ".join(g.detailed for g in goals)
    detailed = f"{detailed_intro} Please {steps}."
    concise = f"{concise_intro} I'd like " + ", ".join(g.concise for g in goals) + "."
    return detailed, concise


def episode(index: int, house: dict[str, Any], scene_world: World, scenario: str, seed: int) -> dict[str, Any]:
    """One episode spec (before validation)."""
    rng = random.Random(f"{seed}:{index}")
    s = Scene(scene_world, rng)
    goals = compose(s, scenario)
    detailed, concise = instructions(scenario, goals)
    return {
        "id": f"longact_{index:03d}",
        "scenario": scenario,
        "house": house["id"],
        "instructions": {"detailed": detailed, "concise": concise},
        "setup": [op for g in goals for op in g.setup],
        "goals": [{"detailed": g.detailed, "concise": g.concise, "items": len(g.items)} for g in goals],
        "checklist": [it for g in goals for it in g.items],
    }


def house_spec(h: int, seed: int) -> dict[str, Any]:
    """The h-th house: a seed, its four rooms in a shuffled grid order and its extra objects."""
    rng = random.Random(f"{seed}:house:{h}")
    rooms = list(ROOM_TYPES)
    rng.shuffle(rooms)
    extras = {rt: rng.sample(EXTRAS[rt], 2) for rt in rooms}
    return {"id": f"house_{h:03d}", "seed": seed * 1000 + h, "rooms": rooms, "extras": extras}


def validate(entry: dict[str, Any], houses: dict[str, dict[str, Any]]) -> tuple[bool, int, str]:
    """Run the oracle on the episode: (solved, raw steps, reason)."""
    from suite_longact.env import make_env_from_data
    from suite_longact.oracle import OracleAgent

    task = Task("longact", entry["id"], {"episode": entry, "house": houses[entry["house"]],
                                         "checklist": entry["checklist"], "split": "detailed"}, max_steps=16000)
    env = make_env_from_data(task, None)

    class _Host:
        def call(self, hook: str, bench: str, **kw: Any) -> Any:
            if hook == "make_env":
                return env
            from suite_longact.scoring import settle
            return settle(kw["task"], kw["trajectory"], kw["env"], {})

    result = asyncio.run(run_episode(_Host(), task, OracleAgent(), {}, TraceSink()))
    return (result.settlement.outcome == "success", len(result.trajectory.steps),
            result.settlement.failure_reason or "")


def main(argv: list[str] | None = None) -> None:
    """Generate, validate with the oracle, write episodes.json and PACK.json."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--episodes", type=int, default=300)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    started = time.time()
    houses: dict[str, dict[str, Any]] = {}
    episodes: list[dict[str, Any]] = []
    dropped = 0
    h = 0
    while len(episodes) < args.episodes:
        house = house_spec(h, args.seed)
        h += 1
        try:
            base = house_scene(house)
        except RuntimeError:
            continue
        house["fingerprint"] = fingerprint(base)
        houses[house["id"]] = house
        for _ in range(EPISODES_PER_HOUSE):
            if len(episodes) >= args.episodes:
                break
            index = len(episodes)
            scenario = SCENARIOS[index % len(SCENARIOS)]
            for attempt in range(4):
                entry = episode(index * 10 + attempt, house, World(base), scenario, args.seed)
                entry["id"] = f"longact_{index:03d}"
                ok, steps, reason = validate(entry, houses)
                if ok:
                    entry["oracle_steps"] = steps
                    episodes.append(entry)
                    break
                dropped += 1
                print(f"  dropped {entry['id']} attempt {attempt}: {reason}")
        print(f"{len(episodes)} episodes, {h} houses, {time.time() - started:.0f} s", flush=True)
    used = {e["house"] for e in episodes}
    args.out.mkdir(parents=True, exist_ok=True)
    data = {"format": "longact-pack/1", "houses": [houses[k] for k in sorted(used)], "episodes": episodes}
    (args.out / PACK_FILE).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    steps = sorted(e["oracle_steps"] for e in episodes)
    manifest = {"generator": "python -m suite_longact.pack.generate", "seed": args.seed, "episodes": len(episodes),
                "houses": len(used), "dropped_attempts": dropped,
                "scenarios": {SCENARIO_TITLES[s]: sum(e["scenario"] == s for e in episodes) for s in SCENARIOS},
                "oracle_steps": {"min": steps[0], "median": steps[len(steps) // 2], "max": steps[-1],
                                 "mean": round(sum(steps) / len(steps), 1)}}
    (args.out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
