"""The counter runs of a room's layout: sinks, the stove, base cabinets and drawers along the walls with their
countertops, kitchen islands, and upper cabinets (`counters`, one step of `RoomLayout.build`)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from suite_household.world import Fixture, Obj

if TYPE_CHECKING:
    from suite_household.layout import RoomLayout

COUNTER_H = 0.86
SLAB = 0.05
UNIT_D = 0.62
UPPER = (1.45, 2.15)
SIDES = ("N", "E", "S", "W")
FACING = {"N": 180, "S": 0, "E": 270, "W": 90}


def counters(layout: RoomLayout) -> bool:
    """Lay out the room's counter runs: sinks, the stove, base cabinets and drawers along the walls, their
    countertops, islands for countertops no run holds, and upper cabinets; False when they do not fit."""
    n_ct = len(layout.pool.get("CounterTop", []))
    n_cab = len(layout.pool.get("Cabinet", []))
    lower_cabs = n_cab if n_ct == 0 else (n_cab + 1) // 2
    units: list[tuple[str, float]] = [("Sink", 0.8)] * len(layout.pool.get("Sink", []))
    burners = len(layout.pool.get("StoveBurner", []))
    if burners:
        units.append(("Stove", 0.9 if burners > 4 else 0.76))
    units += [("Cabinet", 0.6)] * lower_cabs
    n_draw = len(layout.pool.get("Drawer", []))
    units += [("Drawers", 0.6)] * ((n_draw + 2) // 3)
    if not units and n_ct:
        units = [("Base", 0.6)] * n_ct
    layout.rng.shuffle(units)
    placed = []
    for kind, width in units:
        slot = layout.allocate(layout.low, width)
        if slot is None:
            return False
        placed.append((kind, width, *slot))
    spans = _spans(placed)
    while len(spans) < n_ct and any(len(sp) > 1 for sp in spans):
        longest = max(range(len(spans)), key=lambda i: (len(spans[i]), -i))
        sp = spans.pop(longest)
        spans[longest:longest] = [sp[: len(sp) // 2], sp[len(sp) // 2 :]]
    topped = spans[:n_ct]
    for sp in topped:
        _, _, side, s0 = sp[0]
        width = sp[-1][3] + sp[-1][1] - s0
        center, size = layout.on_wall(side, s0, width, UNIT_D + 0.03, COUNTER_H, SLAB)
        layout.add("CounterTop", layout.take_counted("CounterTop"), center, size, FACING[side])
    covered = {id(u) for sp in topped for u in sp}
    for unit in placed:
        _unit(layout, unit, id(unit) in covered)
    for _ in range(n_ct - len(topped)):
        if not _island(layout):
            return False
    return _upper_cabinets(layout, {u[2] for u in placed})

def _spans(placed: list[tuple]) -> list[list[tuple]]:
    by_side: dict[str, list[tuple]] = defaultdict(list)
    for u in placed:
        by_side[u[2]].append(u)
    spans = []
    for side in SIDES:
        run: list[tuple] = []
        for u in sorted(by_side[side], key=lambda u: u[3]):
            if run and u[3] - (run[-1][3] + run[-1][1]) > 0.06:
                spans.append(run)
                run = []
            run.append(u)
        if run:
            spans.append(run)
    return spans

def _unit(layout: RoomLayout, unit: tuple, covered: bool) -> None:
    kind, width, side, s = unit
    face = FACING[side]
    top = COUNTER_H + SLAB if covered else COUNTER_H
    center, size = layout.on_wall(side, s, width, UNIT_D, 0.0, COUNTER_H)
    if kind == "Sink":
        sink = layout.add("Sink", layout.take_counted("Sink"), center, size, face)
        _sink_parts(layout, sink, side, s, width, top)
    elif kind == "Stove":
        layout.fixtures.append(Fixture(box(center, size), (60, 60, 64)))
        _stove(layout, side, s, width, top)
    elif kind == "Cabinet":
        layout.add("Cabinet", layout.take_counted("Cabinet"), center, size, face)
    elif kind == "Drawers":
        low = COUNTER_H
        for k in range(3):
            name = layout.take("Drawer")
            if name is None:
                break
            y0 = COUNTER_H - (k + 1) * 0.27
            c, sz = layout.on_wall(side, s, width, UNIT_D, y0 + 0.01, 0.25)
            layout.add("Drawer", name, c, sz, face)
            low = y0 + 0.01
        # the carcass fills only what the drawers leave below them, so it never encloses (hides) a drawer
        c, sz = layout.on_wall(side, s, width, UNIT_D, 0.0, low)
        layout.fixtures.append(Fixture(box(c, sz), (120, 95, 70)))
    else:
        layout.fixtures.append(Fixture(box(center, size), (120, 95, 70)))

def _sink_parts(layout: RoomLayout, sink: Obj, side: str, s: float, width: float, top: float) -> None:
    basins = []
    while (name := layout.take("SinkBasin")) is not None:
        basins.append(name)
        if len(basins) == 2 or len(layout.pool["SinkBasin"]) <= len(layout.pool["Sink"]):
            break
    n = max(1, len(basins))
    for k, name in enumerate(basins):
        bw = (width - 0.1) / n
        c, sz = layout.on_wall(side, s + 0.05 + k * bw, bw - 0.02, 0.42, top, 0.01, out=0.12)
        layout.add("SinkBasin", name, c, sz, FACING[side], parent=sink.id)
    faucet = layout.take("Faucet")
    if faucet:
        c, sz = layout.on_wall(side, s + width / 2 - 0.04, 0.08, 0.1, top, 0.28, out=0.01)
        layout.add("Faucet", faucet, c, sz, FACING[side])

def _stove(layout: RoomLayout, side: str, s: float, width: float, top: float) -> None:
    names = list(layout.pool.pop("StoveBurner", []))
    per_row = (len(names) + 1) // 2
    burner_ids = []
    for k, name in enumerate(names):
        row, col = divmod(k, per_row)
        bw = width / per_row
        c, sz = layout.on_wall(
            side, s + col * bw + (bw - 0.24) / 2, 0.24, 0.24, top, 0.02, out=0.05 + (1 - row) * 0.28
        )
        layout.add("StoveBurner", name, c, sz, FACING[side])
        burner_ids.append(name)
    knobs = list(layout.pool.pop("StoveKnob", []))
    for k, name in enumerate(knobs):
        kw = width / max(1, len(knobs))
        c, sz = layout.on_wall(side, s + k * kw + kw / 2 - 0.025, 0.05, 0.03, top - 0.12, 0.05, out=UNIT_D)
        controls = (burner_ids[k],) if k < len(burner_ids) else ()
        layout.add("StoveKnob", name, c, sz, FACING[side], controls=controls)

def _island(layout: RoomLayout) -> bool:
    w, d = 1.2, 0.9
    spot = layout.free_spot(w, d, clearance=0.8)
    if spot is None:
        return False
    x, z = spot
    layout.fixtures.append(
        Fixture((x - w / 2, 0.0, z - d / 2, x + w / 2, COUNTER_H, z + d / 2), (120, 95, 70))
    )
    layout.add(
        "CounterTop", layout.take_counted("CounterTop"), (x, COUNTER_H + SLAB / 2, z), (w + 0.04, SLAB, d + 0.04), 0
    )
    return True

def _upper_cabinets(layout: RoomLayout, run_sides: set[str]) -> bool:
    sides = [s for s in layout.sides if s in run_sides] + [s for s in layout.sides if s not in run_sides]
    while (name := layout.take("Cabinet")) is not None:
        slot = layout.allocate(layout.high, 0.6, sides)
        if slot is None:
            return False
        center, size = layout.on_wall(slot[0], slot[1], 0.6, 0.35, UPPER[0], UPPER[1] - UPPER[0])
        layout.add("Cabinet", name, center, size, FACING[slot[0]])
    return True


def box(center: tuple, size: tuple) -> tuple[float, float, float, float, float, float]:
    (x, y, z), (sx, sy, sz) = center, size
    return (
        round(x - sx / 2, 4),
        round(y - sy / 2, 4),
        round(z - sz / 2, 4),
        round(x + sx / 2, 4),
        round(y + sy / 2, 4),
        round(z + sz / 2, 4),
    )
