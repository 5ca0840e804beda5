"""Write the generated LongAct pack: 300 long-horizon episodes over the four scenarios, oracle-validated.

    python -m suite_longact.pack.generate [--seed 14] [--episodes 300] [--out plugins/longact/suite_longact/pack/data]
        [--workers 2] [--audit-every 10]

Following the paper's pipeline (a house and a scenario; the objects and their desired states; a multi-goal
workflow with its final-state checklist; verification), with the model and the annotators replaced by seeded
templates and the verification by the privileged oracle: an episode is kept only when no shortcut baseline
scores on it (nothing holds at step 0; flipping every switch and openable stays under the flipper's ceiling)
and the oracle solves it without side effects, and the oracle's raw step count is recorded with it. Houses are
independent (worked on in parallel) and regenerated from their seed by the household generator at run time;
the pack records each house's fingerprint so a changed generator is caught. PACK.json records the pack's
figures and a rendered audit of every n-th episode by the wandering baselines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suite.contract.records import Task
from suite.run.loop import TraceSink, run_episode
from suite_household.catalog import TYPES, can_hold
from suite_household.placement import find_spot
from suite_household.rules import FLAT_SURFACES
from suite_household.world import Obj, World

from suite_longact.baselines import BASELINE_STEPS, CEILINGS, flip_everything
from suite_longact.checklist import Checklist, Item, holds
from suite_longact.houses import apply_setup, fingerprint, house_scene
from suite_longact.vocabulary import SCENARIO_TITLES, SCENARIOS

OUT = Path(__file__).parent / "data"
PACK_FILE = "episodes.json"
MANIFEST = "PACK.json"
EPISODES_PER_HOUSE = 3
#: houses drawn per round (fixed, so the pack and its dropped-draw counts do not depend on --workers)
HOUSE_BATCH = 12
GOALS = 9
ROOM_WORDS = {"Kitchen": "kitchen", "LivingRoom": "living room", "Bedroom": "bedroom", "Bathroom": "bathroom"}
#: extra objects per room type, so that same-type objects need a referring expression to tell them apart
#: and switches and openables of the goal types, so that a goal's object has same-type neighbours in both states
EXTRAS = {"Kitchen": ["Mug", "Book", "Cup", "Plate", "Laptop", "Candle"],
          "LivingRoom": ["Mug", "Book", "Pillow", "Newspaper", "FloorLamp", "DeskLamp", "Laptop", "Candle"],
          "Bedroom": ["Book", "Pen", "Mug", "RemoteControl", "DeskLamp", "Laptop", "Candle"],
          "Bathroom": ["Cloth", "Book", "Candle"]}


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
        """A referring expression that singles the object out (type, then room type, then its open/on state,
        then what it rests on or in when `where`), or None when none does. Rooms are named by type, so two
        bedrooms count as one place."""
        word = _words(obj.type)
        same = [o for o in self.world.objects.values() if o.type == obj.type]
        if len(same) == 1:
            return f"the {word}"
        in_room = [o for o in same if self.rooms.get(o.room) == self.rooms.get(obj.room)]
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

    def distract(self, obj: Obj, attr: str, mixed: bool = True) -> list[dict[str, Any]]:
        """Set the other objects of the goal object's type in its room type: `mixed`, in both states (the first
        like the goal object, the next unlike it, the rest at random); else all in the goal's target state (the
        goal object is then the one to change, named by its state). Either way changing every one of them is
        wrong; they are reserved (never a later goal's object). Applied to the world; returns the setup ops."""
        field = {"isOpen": "is_open", "isToggled": "is_toggled"}[attr]
        others = [o for o in self.of(obj.type, self.rooms[obj.room]) if o.id != obj.id]
        start = getattr(self.world.objects[obj.id], field)
        ops = []
        for i, o in enumerate(others):
            value = (start if i == 0 else (not start if i == 1 else self.rng.random() < 0.5)) if mixed else not start
            ops.append({"op": "state", "object": o.id, "attr": attr, "value": value})
        apply_setup(self.world, ops)
        self.used.update(o.id for o in others)
        return ops

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
Template = Callable[[Scene], "Goal | None"]


def _named(label: str, make: Template) -> Template:
    make.__name__ = label
    return make


def _plural(word: str) -> str:
    return word if word.endswith("s") else word + ("es" if word.endswith(("sh", "ch", "x")) else "s")


def _targets(s: Scene, obj: Obj, rtype: str, room: str | None) -> list[str]:
    """Receptacles of the type (in the room type) with room for the object; none when it already rests in or on
    one (a position item must not hold at step 0)."""
    anc = set(s.world.ancestors(obj.id))
    if anc & {r.id for r in s.of_any(rtype, room)}:
        return []
    return s.receptacles(rtype, room, obj)


def _keep(s: Scene, obj: Obj, distractors: list[dict[str, Any]]) -> str:
    """The preserve-as-is clause for the goal object's same-type neighbours."""
    if not distractors:
        return ""
    return f" (leave the other {_plural(_words(obj.type))} in the {s.room(obj)} as they are)"


def move_goal(otype: str, rtype: str, room: str | None, verb: str, concise: str) -> Template:
    """Bring an object of `otype` to a receptacle type (in a room type), from wherever it is not already."""

    def make(s: Scene) -> Goal | None:
        cands = [(o, t) for o in s.of(otype) if s.ref(o) is not None for t in [_targets(s, o, rtype, room)] if t]
        if not cands:
            return None
        obj, targets = s.rng.choice(cands)
        where = f"the {_words(rtype)}" + (f" in the {ROOM_WORDS[room]}" if room else "")
        setup = []
        ref = s.ref(obj)
        # a detail found only by interaction: the object starts shut in a container the instruction never names
        if s.rng.random() < 0.35 and s.ref(obj, where=False):
            shut = [c for c in s.of_any("Cabinet", None) + s.of_any("Drawer", None)
                    if s.rooms[c.room] == s.rooms[obj.room] and can_hold(c.type, obj.type) and not c.is_open
                    and c.id not in targets and find_spot(s.world, c, obj.size, ignore=obj.id)]
            if shut:
                ref = s.ref(obj, where=False)
                setup.append({"op": "move", "object": obj.id, "into": s.rng.choice(shut).id})
                apply_setup(s.world, setup)
        return Goal(f"{verb} {ref} to {where}", concise.format(obj=_words(otype), where=where),
                    [_pos(obj, targets)], setup, (obj.id,))

    return _named(f"move {otype} to {rtype}" + (f" ({room})" if room else ""), make)


def state_goal(otype: str, room: str | None, attr: str, concise_yes: str, concise_no: str) -> Template:
    """Open or close (isOpen), switch on or off (isToggled) an object: the goal asks for either state at random,
    the object starts in the other, and its same-type neighbours in the room type start in both states."""
    verbs = {"isOpen": ("open", "close"), "isToggled": ("turn on", "turn off")}[attr]

    def make(s: Scene) -> Goal | None:
        obj = s.pick(otype, room)
        if obj is None:
            return None
        want = s.rng.random() < 0.5
        setup = [{"op": "state", "object": obj.id, "attr": attr, "value": not want}]
        apply_setup(s.world, setup)
        s.used.add(obj.id)
        snap, used = s.world.snapshot(), set(s.used)
        distractors = s.distract(obj, attr)
        ref = s.ref(s.world.objects[obj.id])
        if ref is None:  # the neighbours' states hide it: they all take the target state instead
            s.world, s.used = snap, used
            distractors = s.distract(obj, attr, mixed=False)
            ref = s.ref(s.world.objects[obj.id])
        if ref is None:
            return None
        verb = verbs[0] if want else verbs[1]
        return Goal(f"{verb} {ref}{_keep(s, obj, distractors)}", concise_yes if want else concise_no,
                    [_state(obj, attr, want)], setup + distractors, (obj.id,))

    return _named(f"{'open/close' if attr == 'isOpen' else 'switch'} {otype}" + (f" ({room})" if room else ""),
                  make)


def door_goal(s: Scene) -> Goal | None:
    """Shut the door between two rooms (doors start open; the flipper only ever opens doors)."""
    doors = [o for o in s.of("Doorway") if o.is_open]
    s.rng.shuffle(doors)
    for door in doors:
        a, b = door.id.split("|")[1:]
        pair = sorted((s.rooms[f"room{a}"], s.rooms[f"room{b}"]))
        same = [d for d in s.of_any("Doorway", None)
                if sorted(s.rooms[f"room{x}"] for x in d.id.split("|")[1:]) == pair]
        if len(same) == 1:
            names = [ROOM_WORDS[r] for r in pair]
            return Goal(f"close the door between the {names[0]} and the {names[1]}",
                        f"the {names[0]} / {names[1]} door shut", [_state(door, "isOpen", False)], [], (door.id,))
    return None


def slice_goal(otype: str) -> Template:
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

    return _named(f"slice {otype}", make)


def cook_goal(s: Scene) -> Goal | None:
    """Microwave a potato and serve it on the dining table."""
    obj = s.pick("Potato", "Kitchen")
    if obj is None or not s.of_any("Microwave", None) or s.ref(obj) is None:
        return None
    table = _targets(s, obj, "DiningTable", None)
    if not table:
        return None
    return Goal(f"cook {s.ref(obj)} in the microwave and serve it on the dining table", "a hot potato on the table",
                [_state(obj, "isCooked", True), _pos(obj, table)], [], (obj.id,))


def drink_goal(liquid: str, vessel: str, rtype: str, room: str | None, concise: str) -> Template:
    """Fill a vessel (coffee machine or sink) and bring it to a receptacle."""

    def make(s: Scene) -> Goal | None:
        obj = s.pick(vessel)
        source = "CoffeeMachine" if liquid == "coffee" else "Faucet"
        if obj is None or not s.of_any(source, "Kitchen") or s.ref(obj) is None:
            return None
        targets = _targets(s, obj, rtype, room)
        if not targets:
            return None
        where = f"the {_words(rtype)}" + (f" in the {ROOM_WORDS[room]}" if room else "")
        how = "make coffee in" if liquid == "coffee" else "fill with water"
        return Goal(f"{how} {s.ref(obj)} and put it on {where}", concise,
                    [_state(obj, "isFilledWithLiquid", liquid), _pos(obj, targets)], [], (obj.id,))

    return _named(f"{liquid} in {vessel} to {rtype}", make)


def _switch(otype: str, room: str | None, on: str, off: str) -> Template:
    return state_goal(otype, room, "isToggled", on, off)


def _openable(otype: str, room: str | None, opened: str, closed: str) -> Template:
    return state_goal(otype, room, "isOpen", opened, closed)


POOLS: dict[str, list[Template]] = {
    "cleaning": [
        move_goal("Book", "Shelf", "LivingRoom", "put", "books back on the living-room shelves"),
        move_goal("Newspaper", "GarbageCan", None, "throw", "old newspaper in the bin"),
        move_goal("Mug", "SinkBasin", "Kitchen", "take", "dirty mugs to the kitchen sink"),
        move_goal("Plate", "SinkBasin", "Kitchen", "take", "plates in the kitchen sink"),
        move_goal("Pillow", "Sofa", "LivingRoom", "put", "cushions back on the sofa"),
        move_goal("RemoteControl", "CoffeeTable", "LivingRoom", "put", "the remote on the coffee table"),
        move_goal("Cloth", "LaundryHamper", "Bedroom", "put", "dirty cloths in the hamper"),
        move_goal("KeyChain", "Dresser", "Bedroom", "put", "keys on the dresser"),
        move_goal("DishSponge", "SinkBasin", "Kitchen", "put", "the sponge in the sink"),
        move_goal("SprayBottle", "Cabinet", "Bathroom", "put away", "the spray put away"),
        move_goal("CD", "Shelf", "Bedroom", "put", "CDs on the bedroom shelf"),
        move_goal("Vase", "Shelf", "LivingRoom", "put", "the vase up on a shelf"),
        _openable("Cabinet", "Kitchen", "a kitchen cupboard aired", "kitchen cupboards shut"),
        _openable("Drawer", "Bedroom", "a bedroom drawer left open to air", "bedroom drawers shut"),
        _switch("LightSwitch", "Bathroom", "the bathroom light on", "bathroom light off"),
        _switch("LightSwitch", "Kitchen", "the kitchen light on", "kitchen light off"),
        _openable("Toilet", "Bathroom", "the toilet lid up", "the toilet lid down"),
        _openable("ShowerCurtain", "Bathroom", "the shower curtain open", "the shower curtain drawn"),
    ],
    "work_study": [
        move_goal("Laptop", "Desk", "Bedroom", "bring", "my laptop on the bedroom desk"),
        _switch("DeskLamp", "Bedroom", "desk lamp on", "the desk lamp off"),
        drink_goal("coffee", "Mug", "Desk", "Bedroom", "a coffee at my desk"),
        move_goal("Pen", "Desk", "Bedroom", "put", "a pen on the desk"),
        move_goal("Pencil", "Desk", "Bedroom", "put", "a pencil on the desk"),
        move_goal("Book", "Desk", "Bedroom", "put", "a book to read on the desk"),
        move_goal("CellPhone", "Desk", "Bedroom", "put", "my phone by the desk"),
        move_goal("AlarmClock", "Desk", "Bedroom", "put", "the clock on the desk"),
        move_goal("CreditCard", "Desk", "Bedroom", "put", "my card on the desk"),
        move_goal("Watch", "Desk", "Bedroom", "put", "my watch on the desk"),
        _openable("Laptop", None, "the laptop opened", "the laptop shut"),
        _openable("Book", None, "a book opened", "the open book closed"),
        _openable("Blinds", "Bedroom", "daylight in the bedroom", "the bedroom blinds down"),
        _switch("LightSwitch", "Bedroom", "bedroom light on", "the bedroom light off"),
    ],
    "rest_entertainment": [
        _switch("Television", "LivingRoom", "the TV on", "the TV off"),
        move_goal("RemoteControl", "Sofa", "LivingRoom", "bring", "the remote within reach on the sofa"),
        _switch("FloorLamp", "LivingRoom", "soft light from the floor lamp", "the floor lamp off"),
        move_goal("TeddyBear", "Bed", "Bedroom", "put", "the teddy on the bed"),
        move_goal("Pillow", "Bed", "Bedroom", "put", "a pillow on the bed"),
        move_goal("BasketBall", "Bed", "Bedroom", "put", "the ball on the bed"),
        move_goal("TissueBox", "CoffeeTable", "LivingRoom", "put", "tissues on the coffee table"),
        move_goal("Statue", "SideTable", "LivingRoom", "put", "the statue on a side table"),
        _openable("Curtains", "LivingRoom", "the living-room curtains open", "living-room curtains drawn"),
        _openable("Blinds", "Bedroom", "the bedroom blinds up", "bedroom blinds down"),
        _switch("Candle", None, "a candle lit", "the candle out"),
        drink_goal("water", "Cup", "SideTable", None, "a glass of water by my chair"),
        _named("close a door", door_goal),
        _switch("LightSwitch", "LivingRoom", "the living-room light on", "the living-room light off"),
    ],
    "dining_kitchen": [
        slice_goal("Bread"),
        slice_goal("Tomato"),
        slice_goal("Apple"),
        slice_goal("Lettuce"),
        _named("cook Potato", cook_goal),
        drink_goal("coffee", "Mug", "DiningTable", "Kitchen", "coffee at the dining table"),
        drink_goal("water", "Cup", "DiningTable", "Kitchen", "water on the table"),
        move_goal("Fork", "DiningTable", "Kitchen", "lay", "a fork laid on the table"),
        move_goal("Spoon", "DiningTable", "Kitchen", "lay", "a spoon laid on the table"),
        move_goal("Bowl", "DiningTable", "Kitchen", "set", "a bowl on the table"),
        move_goal("Plate", "DiningTable", "Kitchen", "set", "a plate on the table"),
        move_goal("SaltShaker", "DiningTable", "Kitchen", "put", "salt on the table"),
        move_goal("PepperShaker", "DiningTable", "Kitchen", "put", "pepper on the table"),
        move_goal("Apple", "Fridge", "Kitchen", "put", "fruit in the fridge"),
        move_goal("Egg", "Fridge", "Kitchen", "put", "the eggs in the fridge"),
        move_goal("WineBottle", "Fridge", "Kitchen", "put", "the wine chilling in the fridge"),
        move_goal("Kettle", "StoveBurner", "Kitchen", "put", "the kettle on the stove"),
        move_goal("Pan", "StoveBurner", "Kitchen", "put", "a pan on the stove"),
        _openable("Fridge", "Kitchen", "the fridge left open for the delivery", "the fridge shut"),
        _openable("Microwave", "Kitchen", "the microwave door open", "the microwave shut"),
        _switch("Toaster", "Kitchen", "the toaster on", "the toaster off"),
        _switch("CoffeeMachine", "Kitchen", "the coffee machine on", "the coffee machine off"),
    ],
}
#: every template by its label (the pack's manifest counts how often each fired)
TEMPLATES = {make.__name__: make for pool in POOLS.values() for make in pool}
INTROS = {
    "cleaning": ("Tidy the house.", "The place is a mess."),
    "work_study": ("Prepare the study corner for a working session.", "I have to work tonight."),
    "rest_entertainment": ("Get the house ready for a relaxing evening.", "Time to unwind."),
    "dining_kitchen": ("Get the kitchen and the meal ready.", "Dinner soon."),
}
#: the rule every instruction ends with: what no goal names stays as it is (side effects count against GC-SE)
KEEP_REST = ("Leave everything else as you find it.", "Don't change anything else.")


def compose(s: Scene, scenario: str) -> tuple[list[Goal], list[str]]:
    """About nine goals: most from the scenario's pool, a few from the others (a compound routine); a goal
    whose item already holds is skipped. Returns the goals and their template labels."""
    own = list(POOLS[scenario])
    other = [g for sc, pool in POOLS.items() if sc != scenario for g in pool]
    s.rng.shuffle(own)
    s.rng.shuffle(other)
    goals: list[Goal] = []
    labels: list[str] = []
    want = GOALS + s.rng.choice((-1, 0, 0, 1))
    for make in own[:8] + other:
        if len(goals) >= want:
            break
        snap, used = s.world.snapshot(), set(s.used)
        goal = make(s)
        if goal is None or any(holds(s.world, Item.from_dict(it)) for it in goal.items):
            s.world, s.used = snap, used
            continue
        goals.append(goal)
        labels.append(make.__name__)
        s.used.update(goal.objects)
    return goals, labels


def instructions(scenario: str, goals: list[Goal]) -> tuple[str, str]:
    """The detailed split (every goal spelled out) and the concise one (the intent, to be inferred)."""
    detailed_intro, concise_intro = INTROS[scenario]
    steps = "; ".join(g.detailed for g in goals)
    detailed = f"{detailed_intro} Please {steps}. {KEEP_REST[0]}"
    concise = f"{concise_intro} I'd like " + ", ".join(g.concise for g in goals) + f". {KEEP_REST[1]}"
    return detailed, concise


#: room types besides the kitchen a house draws from (at most two of each), and how many rooms a house has
OTHER_ROOMS = ("LivingRoom", "Bedroom", "Bathroom") * 2
ROOM_COUNTS = (3, 4, 4, 5, 5, 6)


def house_spec(h: int, seed: int) -> dict[str, Any]:
    """The h-th house: a seed, 3 to 6 rooms (a kitchen and a draw of living rooms, bedrooms and bathrooms, at
    most two of each) in a shuffled grid order, and its extra objects."""
    rng = random.Random(f"{seed}:house:{h}")
    rooms = ["Kitchen", *rng.sample(OTHER_ROOMS, rng.choice(ROOM_COUNTS) - 1)]
    rng.shuffle(rooms)
    extras = {rt: rng.sample(EXTRAS[rt], 3) for rt in sorted(set(rooms))}
    return {"id": f"house_{h:03d}", "seed": seed * 1000 + h, "rooms": rooms, "extras": extras}


class _Host:
    """The few hooks an episode run needs, without the plugin manager (the generator runs thousands)."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def call(self, hook: str, bench: str, **kw: Any) -> Any:
        from suite_longact import prompting, scoring

        if hook == "make_env":
            return self.env
        if hook == "build_prompt":
            return prompting.build_messages(kw["task"], kw["observation"], kw["history"])
        return scoring.settle(kw["task"], kw["trajectory"], kw["env"], {})


def _task(entry: dict[str, Any], houses: dict[str, dict[str, Any]]) -> Task:
    prompt = {"prompt_dir": None, "history": 20, "max_instances": 40}
    return Task("longact", entry["id"], {"episode": entry, "house": houses[entry["house"]], "prompt": prompt,
                                         "checklist": entry["checklist"], "split": "detailed",
                                         "instruction": entry["instructions"]["detailed"]}, max_steps=16000)


def _kind(note: str) -> str:
    """An oracle's note with instance ids replaced by their types (the dropped-draw reason's kind)."""
    return re.sub(r"\b([A-Z][A-Za-z]+)\|[^\s,:)\]']+", r"\1", note).strip() or "unknown"


def validate(entry: dict[str, Any], houses: dict[str, dict[str, Any]]) -> tuple[bool, int, str]:
    """Run the oracle on the episode: (solved without side effects, raw steps, reason kind when not)."""
    from suite_longact.env import make_env_from_data
    from suite_longact.oracle import OracleAgent

    task = _task(entry, houses)
    env = make_env_from_data(task, None)
    result = asyncio.run(run_episode(_Host(env), task, OracleAgent(), {}, TraceSink()))
    if result.settlement.outcome != "success":
        notes = [s.note for s in result.trajectory.steps if s.note]
        return False, len(result.trajectory.steps), "oracle: " + (_kind(notes[-1]) if notes else "unsolved")
    changed = env.checklist.side_effects(env.world)
    if changed:
        types = sorted({env.world.objects[o].type if o in env.world.objects else o.split("|")[0] for o in changed})
        return False, len(result.trajectory.steps), "oracle changed what no goal names: " + ", ".join(types)
    return True, len(result.trajectory.steps), ""


def baseline_scores(entry: dict[str, Any], houses: dict[str, dict[str, Any]],
                    names: tuple[str, ...] = ("flipper", "random-walker")) -> dict[str, dict[str, float]]:
    """GC-SE and GC of the wandering shortcut baselines on the episode: the agents `suite audit` runs, on the
    prompt text, with the same settings."""
    from suite_longact.baselines import BASELINE_CONFIG, POLICIES, BaselineAgent
    from suite_longact.env import make_env_from_data

    cfg = {k.split(".", 1)[1]: v for k, v in BASELINE_CONFIG.items()}
    out = {}
    for name in names:
        task = _task(entry, houses)
        env = make_env_from_data(task, cfg)
        host = _Host(env)
        agent = BaselineAgent(type("Ctx", (), {"host": host, "benchmark": "longact"})(), POLICIES[name])
        m = asyncio.run(run_episode(host, task, agent, {}, TraceSink())).settlement.metrics
        out[name] = {"gc_se": m["gc_se"], "gc": m["gc"], "side_effects": m["side_effects"]}
    return out


def shortcut_reason(entry: dict[str, Any], world: World) -> str:
    """Why a baseline scores on the draw ('' when none does): stop-at-once earns any item that holds at step 0;
    a flipper that met every openable and switch ends above its ceiling."""
    items = [Item.from_dict(it) for it in entry["checklist"]]
    if any(holds(world, it) for it in items):
        return "stop-at-once: an item holds at step 0"
    cl = Checklist(items)
    cl.start(world)
    flipped = flip_everything(world)
    cl.evaluate(flipped)
    if cl.gc_side_effects(flipped) > CEILINGS["flipper"]:
        return "flipper (every switch and openable flipped) above its ceiling"
    return ""


def _in_closed(world: World, oid: str, types: tuple[str, ...] | None = None) -> bool:
    for aid in world.ancestors(oid):
        a = world.objects[aid]
        if TYPES[a.type].openable and not a.is_open and (types is None or a.type in types):
            return True
    return False


def figures(entry: dict[str, Any], world: World) -> dict[str, Any]:
    """Per-episode facts for the manifest, read on the starting world."""
    ids = {it["object_id"] for it in entry["checklist"]}
    moved = {it["object_id"] for it in entry["checklist"] if it["attr"] == "position"}
    cl = Checklist([Item.from_dict(it) for it in entry["checklist"]])
    cl.start(world)
    flipped = flip_everything(world)
    cl.evaluate(flipped)
    return {"goal_in_closed_drawer_or_cabinet": any(_in_closed(world, o, ("Drawer", "Cabinet")) for o in moved),
            "any_in_closed_container": any(o in world.objects and _in_closed(world, o) for o in ids),
            "flip_all": {"gc_se": cl.gc_side_effects(flipped), "gc": cl.gc}}


def draw(house: dict[str, Any], base: Any, slot: int, seed: int,
         dropped: Counter) -> tuple[dict[str, Any], list[str], dict[str, Any]] | None:
    """Up to six draws for a house's episode slot: the first that no shortcut baseline scores on and that the
    oracle solves without side effects."""
    scenario = SCENARIOS[(int(house["seed"]) + slot) % len(SCENARIOS)]
    houses = {house["id"]: house}
    for attempt in range(6):
        entry, labels, world = _draw(f"{seed}:{house['id']}:{slot}:{attempt}", house, base, scenario)
        entry["id"] = f"{house['id']}_{slot}"
        reason = "too few goals fit the house" if len(entry["goals"]) < GOALS - 1 else ""
        reason = reason or shortcut_reason(entry, world)
        steps = 0
        if not reason:
            _, steps, reason = validate(entry, houses)
        if not reason:
            entry["oracle_steps"] = steps
            return entry, labels, figures(entry, world)
        dropped[reason] += 1
    return None


def _draw(key: str, house: dict[str, Any], base: Any, scenario: str) -> tuple[dict[str, Any], list[str], World]:
    s = Scene(World(base), random.Random(key))
    goals, labels = compose(s, scenario)
    detailed, concise = instructions(scenario, goals)
    entry = {"id": "", "scenario": scenario, "house": house["id"],
             "instructions": {"detailed": detailed, "concise": concise},
             "setup": [op for g in goals for op in g.setup],
             "goals": [{"detailed": g.detailed, "concise": g.concise, "items": len(g.items)} for g in goals],
             "checklist": [it for g in goals for it in g.items]}
    return entry, labels, s.world


def build_house(args: tuple[int, int]) -> dict[str, Any]:
    """One house and its episode slots (a worker's unit): the house spec, the kept draws, the dropped reasons."""
    h, seed = args
    house = house_spec(h, seed)
    dropped: Counter = Counter()
    try:
        base = house_scene(house)
    except RuntimeError:
        dropped["household generator could not lay the house out"] += 1
        return {"house": None, "kept": [], "dropped": dropped}
    house["fingerprint"] = fingerprint(base)
    kept = [got for slot in range(EPISODES_PER_HOUSE) if (got := draw(house, base, slot, seed, dropped))]
    print(f"  {house['id']}: {len(kept)} kept, {sum(dropped.values())} dropped", flush=True)
    return {"house": house, "kept": kept, "dropped": dropped}


def audit_sample(data: dict[str, Any], every: int) -> dict[str, dict[str, dict[str, float]]]:
    """Run the wandering baselines on every `every`-th episode (rendered runs are the slow part)."""
    houses = {h["id"]: h for h in data["houses"]}
    return {e["id"]: baseline_scores(e, houses) for e in data["episodes"][::every]}


def main(argv: list[str] | None = None) -> None:
    """Generate, reject shortcut-prone draws, validate with the oracle, audit a sample, write the pack."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--episodes", type=int, default=300)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--workers", type=int, default=2, help="processes (houses are independent)")
    ap.add_argument("--audit-every", type=int, default=10, help="audit every n-th episode with the rendered baselines")
    args = ap.parse_args(argv)
    started = time.time()
    per_scenario = args.episodes // len(SCENARIOS)
    picked: dict[str, list[tuple[dict[str, Any], list[str], dict[str, Any]]]] = {sc: [] for sc in SCENARIOS}
    houses: dict[str, dict[str, Any]] = {}
    dropped: Counter = Counter()
    h = 0
    with multiprocessing.Pool(args.workers) as pool:
        while any(len(v) < per_scenario for v in picked.values()):
            batch = [(h + i, args.seed) for i in range(HOUSE_BATCH)]
            h += len(batch)
            for result in pool.imap(build_house, batch):
                dropped.update(result["dropped"])
                for entry, labels, fact in result["kept"]:
                    if len(picked[entry["scenario"]]) < per_scenario:
                        picked[entry["scenario"]].append((entry, labels, fact))
                        houses[entry["house"]] = result["house"]
            print(f"{sum(map(len, picked.values()))} episodes, {h} houses, {time.time() - started:.0f} s", flush=True)
        chosen = sorted((x for v in picked.values() for x in v), key=lambda x: x[0]["id"])
        episodes: list[dict[str, Any]] = []
        facts: list[dict[str, Any]] = []
        fired: Counter[str] = Counter()
        for i, (entry, labels, fact) in enumerate(chosen):
            entry["id"] = f"longact_{i:03d}"
            episodes.append(entry)
            facts.append(fact)
            fired.update(labels)
        data = {"format": "longact-pack/1", "houses": [houses[k] for k in sorted({e["house"] for e in episodes})],
                "episodes": episodes}
        sample = list(range(0, len(episodes), args.audit_every))
        scores = pool.starmap(baseline_scores, [(episodes[i], houses) for i in sample])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / PACK_FILE).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    manifest = {"generator": "python -m suite_longact.pack.generate", "seed": args.seed,
                **pack_figures(data, facts, fired, dropped, scores), "build_s": round(time.time() - started)}
    (args.out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(manifest))


def reason_kind(reason: str) -> str:
    """The kind of a dropped draw's reason (the manifest's summary of `dropped_draws_by_reason`)."""
    found = re.search(r"from which (\w+) (\w+)", reason)
    if found:
        action, otype = found.groups()
        if otype == "Knife" or action == "Slice":
            return "oracle: slicing (the knife or the food out of reach)"
        if otype in ("LightSwitch", "Faucet"):
            return f"oracle: {'wall switch' if otype == 'LightSwitch' else 'faucet'} out of reach"
        return {"Pick": "oracle: an object out of reach to pick up", "Place": "oracle: a receptacle out of reach",
                "Open": "oracle: open or close out of reach", "Close": "oracle: open or close out of reach"}.get(
            action, "oracle: another switch out of reach")
    for key, kind in (("no room", "oracle: no room on the target"), ("failed:", "oracle: its walk was blocked"),
                      ("changed what", "oracle: changed an object no goal names")):
        if key in reason:
            return kind
    return reason


def _kinds(dropped: Counter) -> Counter:
    out: Counter = Counter()
    for reason, n in dropped.items():
        out[reason_kind(reason)] += n
    return out


def _pct(values: list[float]) -> float:
    return round(100 * sum(values) / len(values), 2) if values else 0.0


def pack_figures(data: dict[str, Any], facts: list[dict[str, Any]], fired: Counter, dropped: Counter,
                 scores: list[dict[str, dict[str, float]]]) -> dict[str, Any]:
    """The manifest's figures: shape, houses, checklist contents, hidden objects, dropped draws, the audit."""
    episodes, houses = data["episodes"], data["houses"]
    steps = sorted(e["oracle_steps"] for e in episodes)
    items = [it for e in episodes for it in e["checklist"]]
    per_house = Counter(Counter(e["house"] for e in episodes).values())
    targets = Counter(f"{it['attr']}={it['target']}" for it in items if it["attr"] in ("isOpen", "isToggled"))
    audit: dict[str, Any] = {"episodes": len(scores), "steps": BASELINE_STEPS}
    for name in ("flipper", "random-walker"):
        audit[name] = {"gc_se": _pct([x[name]["gc_se"] for x in scores]), "gc": _pct([x[name]["gc"] for x in scores]),
                       "side_effects": round(sum(x[name]["side_effects"] for x in scores) / max(len(scores), 1), 2),
                       "ceiling_gc_se": 100 * CEILINGS[name]}
    audit["stop-at-once"] = {"gc_se": 0.0, "gc": 0.0, "ceiling_gc_se": 100 * CEILINGS["stop-at-once"],
                             "episodes": len(episodes), "items_holding_at_step_0": 0}
    audit["flip-everything bound"] = {"gc_se": _pct([f["flip_all"]["gc_se"] for f in facts]),
                                      "gc": _pct([f["flip_all"]["gc"] for f in facts]), "episodes": len(episodes)}
    return {
        "episodes": len(episodes), "houses": len(houses),
        "scenarios": {SCENARIO_TITLES[s]: sum(e["scenario"] == s for e in episodes) for s in SCENARIOS},
        "houses_by_episode_count": {str(k): per_house[k] for k in sorted(per_house)},
        "houses_by_room_count": dict(sorted(Counter(str(len(h["rooms"])) for h in houses).items())),
        "houses_by_rooms": dict(Counter("+".join(sorted(h["rooms"])) for h in houses).most_common()),
        "goals_per_episode": round(sum(len(e["goals"]) for e in episodes) / len(episodes), 2),
        "items_per_episode": round(len(items) / len(episodes), 2),
        "items_by_attr": dict(Counter(it["attr"] for it in items).most_common()),
        "state_items_by_target": dict(sorted(targets.items())),
        "object_types_in_checklists": len({it["object_type"] for it in items}),
        "episodes_with_a_goal_object_in_a_closed_drawer_or_cabinet":
            sum(f["goal_in_closed_drawer_or_cabinet"] for f in facts),
        "episodes_with_a_checklist_object_in_a_closed_container": sum(f["any_in_closed_container"] for f in facts),
        "templates_fired": {name: fired[name] for name in TEMPLATES},
        "templates_never_fired": [name for name in TEMPLATES if not fired[name]],
        "dropped_draws": sum(dropped.values()),
        "dropped_draws_by_kind": dict(_kinds(dropped).most_common()),
        "dropped_draws_by_reason": dict(dropped.most_common()),
        "oracle_steps": {"min": steps[0], "p10": steps[len(steps) // 10], "q1": steps[len(steps) // 4],
                         "median": steps[len(steps) // 2], "q3": steps[3 * len(steps) // 4],
                         "p90": steps[9 * len(steps) // 10], "max": steps[-1],
                         "mean": round(sum(steps) / len(steps), 1)},
        "audit": audit,
    }


if __name__ == "__main__":
    main()
