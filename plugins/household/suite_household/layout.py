"""Furniture layout of one room: counter runs, wall-side and wall-mounted pieces, free-standing furniture."""

from __future__ import annotations

import random
from collections import defaultdict
from functools import partial
from typing import Any

from suite_household.catalog import TYPES, spec
from suite_household.counter_runs import FACING, SIDES, UNIT_D, counters
from suite_household.world import WALL_THICKNESS, Fixture, Obj, Room

_WALL_Y = {
    "Window": 1.55,
    "Painting": 1.6,
    "Poster": 1.55,
    "Mirror": 1.55,
    "LightSwitch": 1.25,
    "TowelHolder": 1.2,
    "HandTowelHolder": 1.05,
    "ShowerHead": 1.95,
    "Blinds": 1.55,
    "ToiletPaperHanger": 0.7,
    "Television": 1.45,
    "Curtains": 1.05,
    "Shelf": 1.2,
}
# Where a leftover part goes when its host is missing: it becomes a wall-side piece of its own.
_HOSTLESS_EDGE = (
    "SinkBasin",
    "BathtubBasin",
    "Faucet",
    "StoveKnob",
    "ShowerGlass",
    "ShowerDoor",
    "ShowerCurtain",
)


class RoomLayout:
    """Lays out the non-small objects of one room; `objects` use names as ids until the house renames them."""

    def __init__(self, room: Room, entries: list[tuple[str, str]], gaps: list, rng: random.Random) -> None:
        self.room = room
        self.rng = rng
        self.pool: dict[str, list[str]] = defaultdict(list)
        for otype, name in entries:
            if TYPES[otype].placement != "small":
                self.pool[otype].append(name)
        self.objects: list[Obj] = []
        self.fixtures: list[Fixture] = []
        self.sides = list(SIDES)
        rng.shuffle(self.sides)
        self.low: dict[str, list[tuple[float, float]]] = {s: [] for s in SIDES}
        self.high: dict[str, list[tuple[float, float]]] = {s: [] for s in SIDES}
        for s in ("E", "W"):
            length = self.length(s)
            self.low[s] += [(0.0, UNIT_D + 0.05), (length - UNIT_D - 0.05, length)]
        for door, side in gaps:
            c = self._along(side, door[2], door[3])
            for band in (self.low, self.high):
                band[side].append((c - 0.75, c + 0.75))
        self.door_sides = [side for _, side in gaps]

    @staticmethod
    def wall_need(otype: str) -> float:
        """Wall length (m) one instance needs in the floor band, used to size rooms."""
        t = TYPES[otype]
        if otype in ("Cabinet", "Drawer"):
            return 0.3
        if otype == "StoveBurner":
            return 0.2
        if t.placement in ("base", "edge"):
            return t.size[0] + 0.05
        if otype in ("Window", "Painting", "Mirror", "Shelf", "Blinds"):
            return 0.25
        return 0.0

    def length(self, side: str) -> float:
        """Inner length of a wall side."""
        r = self.room
        return (r.x1 - r.x0 if side in "NS" else r.z1 - r.z0) - WALL_THICKNESS

    def _along(self, side: str, x: float, z: float) -> float:
        r = self.room
        return (x - r.x0 if side in "NS" else z - r.z0) - WALL_THICKNESS / 2

    def take(self, otype: str) -> str | None:
        """Pop the next instance name of a type from the inventory."""
        names = self.pool.get(otype)
        return names.pop(0) if names else None

    def take_counted(self, otype: str) -> str:
        """Pop the next name of a type the caller counted in the inventory before laying it out."""
        name = self.take(otype)
        if name is None:
            raise RuntimeError(f"room layout: no {otype} left in the inventory of room {self.room.id}")
        return name

    def allocate(self, band: dict, width: float, sides: list[str] | None = None) -> tuple[str, float] | None:
        """First free interval of `width` on a wall band: (side, start along the wall)."""
        for side in sides or self.sides:
            length = self.length(side)
            taken = sorted(band[side])
            s = 0.0
            for a, b in taken + [(length + 1, length + 1)]:
                if s + width <= min(a, length) + 1e-9:
                    band[side].append((s, s + width))
                    return side, s
                s = max(s, b)
        return None

    def on_wall(
        self, side: str, s: float, width: float, depth: float, y0: float, height: float, out: float = 0.0
    ) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """Centre and world size of a box against a wall: `s` along it, `out` metres away from it."""
        r, t = self.room, WALL_THICKNESS / 2
        yc = round(y0 + height / 2, 4)
        if side in "NS":
            cx = r.x0 + t + s + width / 2
            cz = r.z1 - t - out - depth / 2 if side == "N" else r.z0 + t + out + depth / 2
            return (round(cx, 4), yc, round(cz, 4)), (width, height, depth)
        cz = r.z0 + t + s + width / 2
        cx = r.x1 - t - out - depth / 2 if side == "E" else r.x0 + t + out + depth / 2
        return (round(cx, 4), yc, round(cz, 4)), (depth, height, width)

    def add(
        self,
        otype: str,
        name: str,
        center: tuple,
        size: tuple,
        facing: int,
        parent: str | None = None,
        **state: Any,
    ) -> Obj:
        """Record a laid-out object; `state` holds further `Obj` fields (is_toggled, controls, ...)."""
        obj = Obj(
            id=name,
            type=otype,
            name=name,
            center=center,
            size=size,
            facing=facing,
            room=self.room.id,
            parent=parent,
            **state,
        )
        self.objects.append(obj)
        return obj

    def build(self) -> bool:
        """Lay out every non-small object; False when the room is too small for them."""
        r = self.room
        floor = self.take("Floor") or f"Floor_{self.room.id}"
        self.add(
            "Floor",
            floor,
            ((r.x0 + r.x1) / 2, -0.005, (r.z0 + r.z1) / 2),
            (r.x1 - r.x0, 0.01, r.z1 - r.z0),
            0,
        )
        steps = (partial(counters, self), self._edges, self._walls, self._free, self._leftovers)
        return all(step() for step in steps)

    # -- wall-side and wall-mounted pieces ----------------------------------------------------------------
    def _edges(self) -> bool:
        order = [
            "Fridge",
            "Bathtub",
            "Bed",
            "Sofa",
            "Dresser",
            "Desk",
            "TVStand",
            "Toilet",
            "ShelvingUnit",
            "SideTable",
            "LaundryHamper",
            "Safe",
            "GarbageCan",
            "FloorLamp",
            "RoomDecor",
            "VacuumCleaner",
        ]
        for otype in order + [
            t for t in sorted(self.pool) if TYPES[t].placement == "edge" and t not in order
        ]:
            while (name := self.take(otype)) is not None:
                w, h, d = spec(otype).size
                slot = self.allocate(self.low, w + 0.05)
                if slot is None:
                    return False
                side, s = slot
                center, size = self.on_wall(side, s, w, d, 0.0, h)
                obj = self.add(otype, name, center, size, FACING[side])
                if otype in ("Bed", "Bathtub"):
                    self.high[side].append((s, s + w + 0.05))
                if otype == "Bathtub":
                    self._bathtub_parts(obj, side, s, w, d)
        return True

    def _bathtub_parts(self, tub: Obj, side: str, s: float, w: float, d: float) -> None:
        basin = self.take("BathtubBasin")
        if basin:
            c, sz = self.on_wall(side, s + 0.1, w - 0.2, d - 0.2, tub.top - 0.3, 0.01, out=0.1)
            self.add("BathtubBasin", basin, c, sz, tub.facing, parent=tub.id)
        if len(self.pool.get("Faucet", [])) > 0:
            c, sz = self.on_wall(side, s + 0.05, 0.08, 0.12, tub.top, 0.2, out=0.0)
            self.add("Faucet", self.take_counted("Faucet"), c, sz, tub.facing)
        for k, panel in enumerate(("ShowerCurtain", "ShowerDoor", "ShowerGlass")):
            name = self.take(panel)
            if name:
                c, sz = self.on_wall(side, s + k * 0.05, w - 0.1, 0.03, tub.top, 1.5, out=d + 0.02 + 0.04 * k)
                self.add(panel, name, c, sz, tub.facing)
        head = self.take("ShowerHead")
        if head:
            c, sz = self.on_wall(side, s + w - 0.3, 0.14, 0.2, 1.9, 0.1)
            self.add("ShowerHead", head, c, sz, tub.facing)

    def _walls(self) -> bool:
        for otype in (
            "Window",
            "Mirror",
            "Painting",
            "Poster",
            "TowelHolder",
            "HandTowelHolder",
            "ShowerHead",
            "Blinds",
            "ToiletPaperHanger",
            "LightSwitch",
        ):
            while (name := self.take(otype)) is not None:
                if not self._mount(otype, name):
                    return False
        if (
            self.pool.get("Television")
            and not any(self.pool.get(t) for t in ("TVStand", "Dresser"))
            and not any(o.type in ("TVStand", "Dresser", "SideTable", "Desk") for o in self.objects)
        ):
            while (name := self.take("Television")) is not None:
                if not self._mount("Television", name):
                    return False
        return self._shelves()

    def _mount(self, otype: str, name: str) -> bool:
        w, h, d = spec(otype).size
        band = self.low if otype == "ToiletPaperHanger" else self.high
        sides = self.door_sides + self.sides if otype == "LightSwitch" else None
        slot = self.allocate(band, w + 0.1, sides)
        if slot is None:
            return False
        side, s = slot
        y = _WALL_Y[otype] - h / 2
        center, size = self.on_wall(side, s + 0.05, w, d, y, h)
        obj = self.add(otype, name, center, size, FACING[side], is_toggled=otype == "LightSwitch")
        if otype == "Window":
            blinds = self.take("Blinds")
            if blinds:
                c, sz = self.on_wall(side, s + 0.05, w, 0.04, y, h, out=d)
                self.add("Blinds", blinds, c, sz, FACING[side])
            for k in range(2):
                curtain = self.take("Curtains")
                if curtain:
                    cw = spec("Curtains").size[0]
                    c, sz = self.on_wall(side, s + 0.05 + k * (w - cw), cw, 0.06, 0.05, 2.1, out=d + 0.05)
                    self.add("Curtains", curtain, c, sz, FACING[side])
        hang = {"TowelHolder": "Towel", "HandTowelHolder": "HandTowel"}.get(otype)
        if hang and (item := self.take(hang)):
            iw, ih, idp = spec(hang).size
            c, sz = self.on_wall(side, s + 0.05 + (w - iw) / 2, iw, idp, obj.top - ih, ih, out=d / 2)
            self.add(hang, item, c, sz, FACING[side], parent=obj.id)
        return True

    def _shelves(self) -> bool:
        names = self.pool.pop("Shelf", [])
        for k in range(0, len(names), 3):
            slot = self.allocate(self.high, 0.9)
            if slot is None:
                return False
            side, s = slot
            for j, name in enumerate(names[k : k + 3]):
                center, size = self.on_wall(side, s + 0.05, 0.8, 0.28, 1.1 + 0.35 * j, 0.04)
                self.add("Shelf", name, center, size, FACING[side])
        return True

    # -- free-standing furniture ---------------------------------------------------------------------------
    def _free(self) -> bool:
        for otype in ("DiningTable", "CoffeeTable", "ArmChair", "Ottoman", "DogBed", "Footstool"):
            while (name := self.take(otype)) is not None:
                w, h, d = spec(otype).size
                spot = self.free_spot(w, d, clearance=0.6)
                if spot is None:
                    return False
                self.add(otype, name, (spot[0], h / 2, spot[1]), (w, h, d), 0)
        for otype in ("Chair", "Stool"):
            while (name := self.take(otype)) is not None:
                if not self._seat(otype, name):
                    return False
        return True

    def _seat(self, otype: str, name: str) -> bool:
        w, h, d = spec(otype).size
        hosts = [
            o for o in self.objects if o.type in ("DiningTable", "Desk", "CounterTop") and o.bottom < 1.0
        ]
        for host in hosts + [None]:
            if host is None:
                spot = self.free_spot(w, d, clearance=0.5)
            else:
                spot = self._beside(host, w, d)
            if spot is not None:
                self.add(otype, name, (spot[0], h / 2, spot[1]), (w, h, d), 0)
                return True
        return False

    def _beside(self, host: Obj, w: float, d: float) -> tuple[float, float] | None:
        x0, _, z0, x1, _, z1 = host.box
        cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
        options = [
            (cx - 0.3, z1 + d / 2 + 0.05),
            (cx + 0.3, z1 + d / 2 + 0.05),
            (cx - 0.3, z0 - d / 2 - 0.05),
            (cx + 0.3, z0 - d / 2 - 0.05),
            (x0 - w / 2 - 0.05, cz),
            (x1 + w / 2 + 0.05, cz),
        ]
        for x, z in options:
            if self._fits(x, z, w, d, clearance=0.05, inner=0.1):
                return round(x, 3), round(z, 3)
        return None

    def free_spot(self, w: float, d: float, clearance: float) -> tuple[float, float] | None:
        """A free floor spot for a w x d footprint with `clearance` around it, or None after 300 tries."""
        r = self.room
        for _ in range(300):
            x = round(self.rng.uniform(r.x0 + UNIT_D + 0.7 + w / 2, r.x1 - UNIT_D - 0.7 - w / 2), 2)
            z = round(self.rng.uniform(r.z0 + UNIT_D + 0.7 + d / 2, r.z1 - UNIT_D - 0.7 - d / 2), 2)
            if self._fits(x, z, w, d, clearance, inner=UNIT_D + 0.7):
                return x, z
        return None

    def _fits(self, x: float, z: float, w: float, d: float, clearance: float, inner: float) -> bool:
        r = self.room
        if not r.contains(x, z, margin=0) or x - w / 2 < r.x0 + inner or x + w / 2 > r.x1 - inner:
            return False
        if z - d / 2 < r.z0 + inner or z + d / 2 > r.z1 - inner:
            return False
        boxes = [o.box for o in self.objects if o.type != "Floor" and o.bottom < 1.0] + [
            f.box for f in self.fixtures
        ]
        for bx0, _, bz0, bx1, _, bz1 in boxes:
            if (
                x - w / 2 < bx1 + clearance
                and x + w / 2 > bx0 - clearance
                and z - d / 2 < bz1 + clearance
                and z + d / 2 > bz0 - clearance
            ):
                return False
        return True

    # -- anything left: parts without a host ---------------------------------------------------------------
    def _leftovers(self) -> bool:
        for otype in sorted(self.pool):
            names = self.pool[otype]
            while names:
                name = names.pop(0)
                t = TYPES[otype]
                if t.placement in ("small", "top") or t.pickupable:
                    continue
                if otype not in _HOSTLESS_EDGE and t.placement not in ("part", "wall", "base", "room"):
                    return False
                if t.placement == "wall" or otype in ("Blinds", "Curtains"):
                    if not self._mount(otype if otype in _WALL_Y else "Painting", name):
                        return False
                    self.objects[-1] = _retype(self.objects[-1], otype)
                    continue
                w, h, d = t.size
                slot = self.allocate(self.low, max(w, 0.3) + 0.05)
                if slot is None:
                    return False
                side, s = slot
                center, size = self.on_wall(side, s, max(w, 0.3), max(d, 0.3), 0.0, max(h, 0.3))
                self.add(otype, name, center, size, FACING[side])
        return True


def _retype(obj: Obj, otype: str) -> Obj:
    return Obj(**{**{f: getattr(obj, f) for f in Obj.__slots__}, "type": otype})
