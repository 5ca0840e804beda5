"""The goal templates of the generated LongAct pack: each goal's two phrasings, its checklist items and the setup
it needs, composed into a routine's instructions (used by `generate`)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from suite_household.catalog import TYPES, can_hold
from suite_household.placement import find_spot
from suite_household.rules import FLAT_SURFACES
from suite_household.world import Obj, World

from suite_longact.checklist import Item, holds
from suite_longact.houses import apply_setup
from suite_longact.pack.ambiguity import MAX_CHANCE, MAX_CHANCE_MOST, chance

GOALS = 9


ROOM_WORDS = {"Kitchen": "kitchen", "LivingRoom": "living room", "Bedroom": "bedroom", "Bathroom": "bathroom"}


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
        word = type_words(obj.type)
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
                return f"the {word} {prep} the {type_words(parent.type)} in the {self.room(obj)}"
        return None

    def distract(self, obj: Obj, attr: str, mixed: bool = True) -> list[dict[str, Any]]:
        """Set the other objects of the goal object's type: in its room type `mixed`, in both states (the first
        like the goal object, the next unlike it, the rest at random), else all in the goal's target state (the
        goal object is then the one to change, named by its state); in the other rooms all as the goal object
        starts, so that its action would change every one of them. Changing any of them is wrong; they are
        reserved (never a later goal's object). Applied to the world; returns the setup ops."""
        field = {"isOpen": "is_open", "isToggled": "is_toggled"}[attr]
        room = self.rooms[obj.room]
        others = [o for o in self.of(obj.type, room) if o.id != obj.id]
        start = getattr(self.world.objects[obj.id], field)
        ops = []
        for i, o in enumerate(others):
            value = (start if i == 0 else (not start if i == 1 else self.rng.random() < 0.5)) if mixed else not start
            ops.append({"op": "state", "object": o.id, "attr": attr, "value": value})
        away = [o for o in self.of(obj.type) if self.rooms.get(o.room) != room]
        ops += [{"op": "state", "object": o.id, "attr": attr, "value": start} for o in away
                if getattr(o, field) != start]
        apply_setup(self.world, ops)
        self.used.update(o.id for o in others + away)
        return ops

    def receptacles(self, rtype: str, room: str | None, item: Obj) -> list[str]:
        """Receptacles of a type (in a room type) that accept the item and have room for it."""
        return [r.id for r in self.of_any(rtype, room)
                if can_hold(r.type, item.type) and find_spot(self.world, r, item.size, ignore=item.id)]

    def of_any(self, otype: str, room: str | None) -> list[Obj]:
        """Objects of a type, used or not."""
        return [o for o in self.world.objects.values() if o.type == otype
                and (room is None or self.rooms.get(o.room) == room)]


def type_words(otype: str) -> str:
    """An object type as the instructions name it: DeskLamp -> desk lamp, RemoteControl -> TV remote."""
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


def move_goal(otype: str, rtype: str, room: str | None, verb: str, concise: str) -> Template:
    """Bring an object of `otype` to a receptacle type (in a room type), from wherever it is not already."""

    def make(s: Scene) -> Goal | None:
        cands = [(o, t) for o in s.of(otype) if s.ref(o) is not None for t in [_targets(s, o, rtype, room)] if t]
        if not cands:
            return None
        obj, targets = s.rng.choice(cands)
        where = f"the {type_words(rtype)}" + (f" in the {ROOM_WORDS[room]}" if room else "")
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
        return Goal(f"{verb} {ref} to {where}", concise.format(obj=type_words(otype), where=where),
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
        return Goal(f"{verb} {ref}", concise_yes if want else concise_no,
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
        if obj is None or not s.of_any("Knife", None):
            return None
        setup = []
        parent = s.world.objects.get(obj.parent) if obj.parent else None
        if parent is None or parent.type not in FLAT_SURFACES:
            counters = [c.id for c in s.of_any("CounterTop", "Kitchen") if find_spot(s.world, c, obj.size)]
            if not counters:
                return None
            setup.append({"op": "move", "object": obj.id, "into": s.rng.choice(counters)})
            apply_setup(s.world, setup)
        ref = s.ref(s.world.objects[obj.id])  # where it rests once set out
        if ref is None:
            return None
        return Goal(f"slice {ref}", f"{type_words(otype)} cut up", [_state(obj, "isSliced", True)], setup, (obj.id,))

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
        where = f"the {type_words(rtype)}" + (f" in the {ROOM_WORDS[room]}" if room else "")
        how = "make coffee in" if liquid == "coffee" else "fill with water"
        return Goal(f"{how} {s.ref(obj)} and put it on {where}", concise,
                    [_state(obj, "isFilledWithLiquid", liquid), _pos(obj, targets)], [], (obj.id,))

    return _named(f"{liquid} in {vessel} to {rtype}", make)


def _switch(otype: str, room: str | None, on: str, off: str) -> Template:
    return state_goal(otype, room, "isToggled", on, off)


def _openable(otype: str, room: str | None, opened: str, closed: str) -> Template:
    return state_goal(otype, room, "isOpen", opened, closed)


#: the goal pools per scenario. A state goal on a fixture a house holds once or twice (fridge, microwave, toaster,
#: coffee machine, toilet, shower curtain) is not among them: its type alone names it (issue 34, `pack.ambiguity`)
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
    whose item already holds, or that a reader of its types alone would get right too often (`pack.ambiguity`:
    above MAX_CHANCE, or above MAX_CHANCE_MOST for a second goal), is skipped. Every item then keeps its
    look-alikes. Returns the goals and their template labels."""
    own = list(POOLS[scenario])
    other = [g for sc, pool in POOLS.items() if sc != scenario for g in pool]
    s.rng.shuffle(own)
    s.rng.shuffle(other)
    goals: list[Goal] = []
    labels: list[str] = []
    want = GOALS + s.rng.choice((-1, 0, 0, 1))
    loose = True  # one goal may be given away more often than the rest
    for make in own[:8] + other:
        if len(goals) >= want:
            break
        best = _least_given_away(s, make, MAX_CHANCE if loose else MAX_CHANCE_MOST)
        if best is None:
            continue
        odds, goal, s.world, s.used = best
        loose = loose and odds <= MAX_CHANCE_MOST
        goals.append(goal)
        labels.append(make.__name__)
        s.used.update(goal.objects)
    keep_look_alikes(s.world, goals)
    return goals, labels


#: drafts of a template per goal: the one a reader of types alone is least likely to get right is kept
TRIES = 3


def _least_given_away(s: Scene, make: Template, limit: float) -> tuple[float, Goal, World, set[str]] | None:
    """Up to TRIES drafts of the template (each on the scene as it stands): the one whose items a reader of types
    alone gets right least often, as (that chance, the goal, the world and reserved objects it leaves), or None
    when no draft fits (none drawn, an item holding already, or a chance above `limit`). The scene is left as
    it was."""
    snap, used = s.world.snapshot(), set(s.used)
    best: tuple[float, Goal, World, set[str]] | None = None
    for _ in range(TRIES):
        s.world, s.used = snap.snapshot(), set(used)
        goal = make(s)
        if goal is None or any(holds(s.world, Item.from_dict(it)) for it in goal.items):
            continue
        odds = max(chance(s.world, it) for it in goal.items)
        if odds <= limit and (best is None or odds < best[0]):
            best = (odds, goal, s.world, s.used)
    s.world, s.used = snap, used
    return best


def keep_look_alikes(world: World, goals: list[Goal]) -> None:
    """Give every item its look-alikes to keep (the other objects of its type that no goal names) and say so in
    the goal's detailed phrasing."""
    named = {it["object_id"] for g in goals for it in g.items}
    for g in goals:
        otype = g.items[0]["object_type"]
        keep = sorted(o.id for o in world.objects.values() if o.type == otype and o.id not in named)
        if not keep:
            continue
        for it in g.items:
            it["keep"] = keep
        noun = "doors" if otype == "Doorway" else _plural(type_words(otype))
        g.detailed += f" (leave the other {noun} as they are)"


def instructions(scenario: str, goals: list[Goal]) -> tuple[str, str]:
    """The detailed split (every goal spelled out) and the concise one (the intent, to be inferred)."""
    detailed_intro, concise_intro = INTROS[scenario]
    steps = "; ".join(g.detailed for g in goals)
    detailed = f"{detailed_intro} Please {steps}. {KEEP_REST[0]}"
    concise = f"{concise_intro} I'd like " + ", ".join(g.concise for g in goals) + f". {KEEP_REST[1]}"
    return detailed, concise
