"""Seeded house generation: rooms with AI2-THOR-like furniture, and rooms holding a FloorPlan's inventory."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
from suite.contract.schemas import read_json

from suite_household.catalog import TYPES, compatible_receptacles, is_enclosing, spec
from suite_household.layout import RoomLayout
from suite_household.navigation import NavGrid
from suite_household.placement import find_spot
from suite_household.world import WALL_THICKNESS, Agent, Obj, Room, Scene, Wall, World

ROOM_TYPES = ("Kitchen", "LivingRoom", "Bedroom", "Bathroom")

_DEFAULTS: dict[str, str] = {
    "Kitchen": "Floor CounterTop*3 Cabinet*8 Drawer*6 Sink SinkBasin Faucet StoveBurner*4 StoveKnob*4 Fridge "
    "Microwave CoffeeMachine Toaster DiningTable Chair*2 GarbageCan Window LightSwitch Shelf "
    "Apple Bread Egg Lettuce Potato Tomato Mug Cup Bowl Plate Pan Pot Kettle Knife ButterKnife Fork "
    "Spoon Spatula Ladle DishSponge SoapBottle SaltShaker PepperShaker WineBottle PaperTowelRoll",
    "LivingRoom": "Floor Sofa ArmChair CoffeeTable TVStand Television SideTable*2 FloorLamp DeskLamp "
    "Painting "
    "Window Curtains LightSwitch GarbageCan HousePlant Drawer*2 Shelf*2 RemoteControl Book Laptop "
    "Pillow Vase Statue Box KeyChain CreditCard Newspaper Watch TissueBox",
    "Bedroom": "Floor Bed Desk Chair Dresser SideTable DeskLamp Shelf*2 Drawer*4 Mirror Window Blinds "
    "LightSwitch "
    "GarbageCan LaundryHamper AlarmClock Book CellPhone Laptop Pillow Pen Pencil CD KeyChain "
    "CreditCard Mug BaseballBat BasketBall TeddyBear",
    "Bathroom": "Floor Toilet ToiletPaperHanger Sink SinkBasin Faucet*2 CounterTop Cabinet*2 Mirror Bathtub "
    "BathtubBasin ShowerHead ShowerCurtain TowelHolder Towel HandTowelHolder HandTowel GarbageCan "
    "LightSwitch Window Shelf SoapBar SoapBottle SprayBottle Cloth ToiletPaper ScrubBrush Plunger "
    "Candle",
}
_SLICED = frozenset(
    {"AppleSliced", "BreadSliced", "EggCracked", "LettuceSliced", "PotatoSliced", "TomatoSliced"}
)


def default_inventory(room_type: str) -> list[str]:
    """The object types of a default room of `room_type`, one entry per instance."""
    out: list[str] = []
    for token in _DEFAULTS[room_type].split():
        name, _, count = token.partition("*")
        out += [name] * int(count or 1)
    return out


def floorplan_room_type(floorplan: str) -> str:
    """AI2-THOR's room type of an iTHOR FloorPlan number (1-30 kitchens, 2xx living, 3xx bed, 4xx bath)."""
    number = int(floorplan.removeprefix("FloorPlan"))
    return {0: "Kitchen", 2: "LivingRoom", 3: "Bedroom", 4: "Bathroom"}[number // 100]


def floorplan_inventory(item_cache: str | Path | Mapping, floorplan: str) -> list[str]:
    """Object names (`Type_hash`) of a FloorPlan from AsgardBench's item_cache.json (path or loaded dict)."""
    data = read_json(item_cache) if isinstance(item_cache, str | Path) else item_cache
    try:
        return list(data["names"][floorplan])
    except KeyError:
        raise KeyError(f"{floorplan} is not in the item cache") from None


def generate_floorplan(floorplan: str, item_cache: str | Path | Mapping, seed: int = 0) -> Scene:
    """A room of the FloorPlan's type holding exactly its object inventory, names kept."""
    names = floorplan_inventory(item_cache, floorplan)
    return generate_room(floorplan_room_type(floorplan), seed, names, name=floorplan)


def generate_room(
    room_type: str, seed: int, inventory: Iterable[str] | None = None, name: str | None = None
) -> Scene:
    """A single room; `inventory` lists types or `Type_hash` names (default: a typical room of that type)."""
    return generate_house(seed, [room_type], [list(inventory)] if inventory is not None else None, name=name)


def generate_house(
    seed: int,
    room_types: Sequence[str] = ROOM_TYPES,
    inventories: Sequence[Iterable[str]] | None = None,
    name: str | None = None,
) -> Scene:
    """A house of rooms in a row-major grid joined by doors; one inventory per room (default per type)."""
    for rt in room_types:
        if rt not in ROOM_TYPES:
            raise ValueError(f"unknown room type {rt!r}; expected one of {', '.join(ROOM_TYPES)}")
    rng = random.Random(seed)
    invs = (
        [list(i) for i in inventories]
        if inventories is not None
        else [default_inventory(t) for t in room_types]
    )
    entries = [_named(inv, rng) for inv in invs]
    for attempt in range(12):
        scene = _try_house(seed, attempt, room_types, entries, name or f"house_{seed}")
        if scene is not None:
            return scene
    raise RuntimeError(f"could not lay out a navigable house for seed {seed}")


def _named(inventory: list[str], rng: random.Random) -> list[tuple[str, str]]:
    out = []
    for item in inventory:
        otype, _, suffix = item.rpartition("_") if "_" in item else (item, "", "")
        spec(otype)
        out.append((otype, item if suffix else f"{otype}_{rng.getrandbits(32):08x}"))
    return [e for e in out if e[0] not in _SLICED]


def _try_house(
    seed: int, attempt: int, room_types: Sequence[str], entries: list[list[tuple[str, str]]], name: str
) -> Scene | None:
    rng = random.Random(f"{seed}:{attempt}")
    cols = 1 if len(room_types) == 1 else 2
    sizes = [_room_size(rt, ents, rng, attempt) for rt, ents in zip(room_types, entries, strict=True)]
    col_w = [max(s[0] for i, s in enumerate(sizes) if i % cols == c) for c in range(cols)]
    n_rows = (len(room_types) + cols - 1) // cols
    row_d = [max(s[1] for i, s in enumerate(sizes) if i // cols == r) for r in range(n_rows)]
    rooms = []
    for i, rt in enumerate(room_types):
        c, r = i % cols, i // cols
        x0, z0 = sum(col_w[:c]), sum(row_d[:r])
        rooms.append(
            Room(f"room{i}", rt, round(x0, 3), round(z0, 3), round(x0 + col_w[c], 3), round(z0 + row_d[r], 3))
        )
    doors = _doors(rooms, cols)
    walls = _walls(rooms, doors)
    objects: list[Obj] = []
    fixtures = []
    for room, ents in zip(rooms, entries, strict=True):
        gaps = [(d, side) for d in doors for side in _door_sides(room, d)]
        layout = RoomLayout(room, ents, gaps, rng)
        if not layout.build():
            return None
        objects += layout.objects
        fixtures += layout.fixtures
    objects += [_door_obj(i, d) for i, d in enumerate(doors)]
    world = World(Scene(name, seed, tuple(rooms), tuple(walls), tuple(fixtures), tuple(objects), Agent(0, 0)))
    if not _place_small(world, rooms, entries, rng):
        return None
    final = tuple(_unique_ids(list(world.objects.values())))
    world = World(Scene(name, seed, tuple(rooms), tuple(walls), tuple(fixtures), final, Agent(0, 0)))
    grid = NavGrid(world)
    start = _start_pose(world, grid, rooms[0], rng)
    if start is None or not _all_reachable(world, grid, start):
        return None
    return Scene(
        name,
        seed,
        tuple(rooms),
        tuple(walls),
        tuple(fixtures),
        final,
        start,
        meta={"room_types": list(room_types)},
    )


def _room_size(
    room_type: str, ents: list[tuple[str, str]], rng: random.Random, attempt: int
) -> tuple[float, float]:
    counts = Counter(t for t, _ in ents)
    wall_len = sum(RoomLayout.wall_need(t) * n for t, n in counts.items())
    base = {"Kitchen": 4.0, "LivingRoom": 4.5, "Bedroom": 4.0, "Bathroom": 3.0}[room_type]
    side = max(base, (wall_len / 2.6 + 1.4)) + 0.25 * attempt
    w = round(side + rng.uniform(0.0, 0.75), 2)
    d = round(side + rng.uniform(0.0, 0.75), 2)
    return w, d


def _doors(rooms: list[Room], cols: int) -> list[tuple[str, str, float, float, str]]:
    """(room a, room b, x, z, axis) per shared wall; axis is the wall's direction ('x' or 'z')."""
    out = []
    for i, a in enumerate(rooms):
        for j in range(i + 1, len(rooms)):
            b = rooms[j]
            if j == i + 1 and i % cols != cols - 1 and abs(a.x1 - b.x0) < 1e-6:
                z0, z1 = max(a.z0, b.z0), min(a.z1, b.z1)
                out.append((a.id, b.id, a.x1, round((z0 + z1) / 2, 3), "z"))
            elif j == i + cols and abs(a.z1 - b.z0) < 1e-6:
                x0, x1 = max(a.x0, b.x0), min(a.x1, b.x1)
                out.append((a.id, b.id, round((x0 + x1) / 2, 3), a.z1, "x"))
    return out


def _door_sides(room: Room, door: tuple[str, str, float, float, str]) -> list[str]:
    a, b, x, z, axis = door
    if room.id not in (a, b):
        return []
    if axis == "z":
        return ["E" if abs(x - room.x1) < 1e-6 else "W"]
    return ["N" if abs(z - room.z1) < 1e-6 else "S"]


DOOR_WIDTH = 0.9


def _walls(rooms: list[Room], doors: list[tuple[str, str, float, float, str]]) -> list[Wall]:
    segs: set[tuple[float, float, float, float]] = set()
    for r in rooms:
        segs |= {
            (r.x0, r.z0, r.x1, r.z0),
            (r.x0, r.z1, r.x1, r.z1),
            (r.x0, r.z0, r.x0, r.z1),
            (r.x1, r.z0, r.x1, r.z1),
        }
    walls = []
    for x0, z0, x1, z1 in sorted(segs):
        pieces = [(x0, z0, x1, z1)]
        for _, _, dx, dz, axis in doors:
            pieces = [p for seg in pieces for p in _cut(seg, dx, dz, axis)]
        walls += [Wall(*p) for p in pieces if abs(p[2] - p[0]) + abs(p[3] - p[1]) > 1e-6]
    return _dedupe(walls)


def _cut(seg: tuple[float, float, float, float], dx: float, dz: float, axis: str) -> list[tuple]:
    x0, z0, x1, z1 = seg
    h = DOOR_WIDTH / 2
    if axis == "x" and abs(z0 - dz) < 1e-6 and abs(z1 - dz) < 1e-6 and x0 < dx < x1:
        return [(x0, z0, dx - h, z1), (dx + h, z0, x1, z1)]
    if axis == "z" and abs(x0 - dx) < 1e-6 and abs(x1 - dx) < 1e-6 and z0 < dz < z1:
        return [(x0, z0, x1, dz - h), (x0, dz + h, x1, z1)]
    return [seg]


def _dedupe(walls: list[Wall]) -> list[Wall]:
    """Drop wall pieces covered by a longer collinear piece (shared walls of unequal rooms)."""
    out = []
    for w in walls:
        covered = any(
            o is not w and _covers(o, w) and (o.x0, o.z0, o.x1, o.z1) != (w.x0, w.z0, w.x1, w.z1)
            for o in walls
        )
        if not covered:
            out.append(w)
    return out


def _covers(o: Wall, w: Wall) -> bool:
    if o.z0 == o.z1 == w.z0 == w.z1:
        return o.x0 <= w.x0 and w.x1 <= o.x1
    if o.x0 == o.x1 == w.x0 == w.x1:
        return o.z0 <= w.z0 and w.z1 <= o.z1
    return False


def _door_obj(i: int, door: tuple[str, str, float, float, str]) -> Obj:
    a, b, x, z, axis = door
    w, h, d = spec("Doorway").size
    size = (w, h, WALL_THICKNESS) if axis == "x" else (WALL_THICKNESS, h, w)
    return Obj(
        id=f"door|{a.removeprefix('room')}|{b.removeprefix('room')}",
        type="Doorway",
        name=f"Doorway_{i}",
        center=(x, h / 2, z),
        size=size,
        facing=0 if axis == "x" else 90,
        room=a,
        is_open=True,
    )


def thor_id(object_type: str, center: tuple[float, float, float]) -> str:
    """An AI2-THOR style objectId: `Type|+x.xx|+y.yy|+z.zz` from the object's initial centre."""
    x, y, z = center
    return f"{object_type}|{x:+06.2f}|{y:+06.2f}|{z:+06.2f}"


def _unique_ids(objects: list[Obj]) -> list[Obj]:
    """Give every object a THOR-style id (doors keep theirs) and rewrite parents and controls."""
    ids: dict[str, str] = {}
    seen: set[str] = set()
    for o in objects:
        new = o.id if o.type == "Doorway" else thor_id(o.type, o.center)
        k = 1
        base = new
        while new in seen:
            new, k = f"{base}|{k}", k + 1
        seen.add(new)
        ids[o.id] = new
    return [
        Obj(
            **{
                **_fields(o),
                "id": ids[o.id],
                "parent": ids.get(o.parent) if o.parent else None,
                "controls": tuple(ids[c] for c in o.controls),
            }
        )
        for o in objects
    ]


def _fields(o: Obj) -> dict:
    return {f: getattr(o, f) for f in Obj.__slots__}


_HOSTS = {
    "Microwave": ("CounterTop", "DiningTable", "Floor"),
    "CoffeeMachine": ("CounterTop", "DiningTable", "Floor"),
    "Toaster": ("CounterTop", "DiningTable", "Floor"),
    "Television": ("TVStand", "Dresser", "SideTable", "Desk", "CoffeeTable", "Floor"),
}


def _place_small(
    world: World, rooms: list[Room], entries: list[list[tuple[str, str]]], rng: random.Random
) -> bool:
    """Put every object the layout left (appliances, small things) on a compatible receptacle."""
    for room, ents in zip(rooms, entries, strict=True):
        recs = [o for o in world.objects.values() if o.room == room.id and TYPES[o.type].receptacle]
        todo = [(t, n) for t, n in ents if n not in world.objects]
        todo.sort(key=lambda e: (TYPES[e[0]].placement != "top", -TYPES[e[0]].size[0] * TYPES[e[0]].size[2]))
        for otype, name in todo:
            if not _put_one(world, room, recs, otype, name, rng):
                return False
    return True


_NO_START = frozenset(
    {
        "Floor",
        "Toaster",
        "CoffeeMachine",
        "StoveBurner",
        "Sink",
        "Bathtub",
        "GarbageCan",
        "Toilet",
        "TowelHolder",
        "HandTowelHolder",
        "ToiletPaperHanger",
        "Chair",
        "Stool",
        "Footstool",
        "DogBed",
        "LaundryHamper",
    }
)


def _put_one(world: World, room: Room, recs: list[Obj], otype: str, name: str, rng: random.Random) -> bool:
    hosts = _HOSTS.get(otype)
    compat = frozenset(hosts) if hosts else compatible_receptacles(otype)
    ranked = []
    for r in recs:
        if r.type in _NO_START or r.type not in compat or TYPES[r.type].pickupable:
            continue
        if hosts:
            ranked.append((-hosts.index(r.type) - rng.random() * 0.5, r))
        else:
            ranked.append((rng.random() ** (1 / (1.0 if is_enclosing(r.type) else 4.0)), r))
    ranked.sort(key=lambda p: -p[0])
    floor = next(o for o in recs if o.type == "Floor")
    size = spec(otype).size
    for _, rec in [*ranked, (0.0, floor)]:
        x0, _, z0, x1, _, z1 = rec.box
        spot = find_spot(world, rec, size, prefer=(rng.uniform(x0, x1), rng.uniform(z0, z1)))
        if spot is not None and (rec.type != "Floor" or _clear_of_walls(room, spot, size)):
            world.add(
                Obj(
                    id=name,
                    type=otype,
                    name=name,
                    center=spot,
                    size=size,
                    room=room.id,
                    parent=rec.id,
                    facing=rec.facing,
                )
            )
            return True
    return False


def _clear_of_walls(room: Room, spot: tuple[float, float, float], size: tuple[float, float, float]) -> bool:
    return room.contains(spot[0], spot[2], margin=max(size[0], size[2]) / 2 + 0.1)


def _start_pose(world: World, grid: NavGrid, room: Room, rng: random.Random) -> Agent | None:
    cx, cz = (room.x0 + room.x1) / 2, (room.z0 + room.z1) / 2
    cells = sorted(grid.free_cells(), key=lambda p: (round((p[0] - cx) ** 2 + (p[1] - cz) ** 2, 4), p))
    for x, z in cells[:200]:
        if room.contains(x, z, margin=0.3):
            return Agent(round(x, 2), round(z, 2), yaw=float(rng.choice((0, 90, 180, 270))))
    return None


def _all_reachable(world: World, grid: NavGrid, start: Agent) -> bool:
    """Whether every fixed object with an action is within 1.35 m (others 1.9 m) of a reachable spot."""
    reach = grid.reachable((start.x, start.z))
    if not reach:
        return False
    px = np.array([p[0] for p in reach])
    pz = np.array([p[1] for p in reach])
    for o in world.objects.values():
        if o.type in ("Floor", "Doorway") or o.parent is not None:
            continue
        x0, _, z0, x1, _, z1 = o.box
        dx = np.maximum(np.maximum(x0 - px, px - x1), 0)
        dz = np.maximum(np.maximum(z0 - pz, pz - z1), 0)
        t = TYPES[o.type]
        acts = t.openable or t.toggleable or t.receptacle or t.dirtyable
        if float(np.min(dx * dx + dz * dz)) > (1.35 if acts else 1.9) ** 2:
            return False
    return True
