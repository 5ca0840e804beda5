"""Box geometry of objects in their current state: what the renderer draws and what occludes a view."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from suite_household.catalog import TYPES, is_enclosing
from suite_household.world import CROUCHING_CAMERA_Y, STANDING_CAMERA_Y, Agent, Box, Obj, World

Part = tuple[Box, tuple[int, int, int]]
LIQUID = {"water": (110, 170, 255), "coffee": (95, 55, 25), "wine": (125, 20, 50)}
_COOKED = np.array([110, 60, 20])
_GLOW = {
    "StoveBurner": (255, 70, 20),
    "Toaster": (255, 140, 30),
    "Microwave": (255, 225, 120),
    "Television": (90, 170, 255),
    "Laptop": (120, 200, 255),
    "CellPhone": (140, 210, 255),
    "DeskLamp": (255, 240, 150),
    "FloorLamp": (255, 240, 150),
    "Candle": (255, 190, 60),
    "CoffeeMachine": (255, 40, 40),
    "StoveKnob": (255, 90, 30),
    "LightSwitch": (80, 220, 80),
    "ShowerHead": (150, 200, 255),
    "Faucet": (150, 200, 255),
}
_OPEN_TOP = frozenset(
    {
        "Mug",
        "Cup",
        "Bowl",
        "Pot",
        "Pan",
        "GarbageCan",
        "Bathtub",
        "LaundryHamper",
        "Kettle",
        "WateringCan",
        "Bottle",
        "WineBottle",
        "HousePlant",
    }
)
_LEGGED = frozenset({"DiningTable", "CoffeeTable", "SideTable", "Desk", "Chair", "Stool"})
HAND_OFFSET = (0.0, -0.2, 0.5)


def shade(color: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    """A colour scaled by `factor` and clipped to 0-255."""
    return tuple(int(max(0, min(255, round(c * factor)))) for c in color)  # type: ignore[return-value]


def base_color(obj: Obj) -> tuple[int, int, int]:
    """The colour of an object's body in its current state (cooked food browns)."""
    color = TYPES[obj.type].color
    if obj.is_cooked:
        mix = 0.35 * np.array(color) + 0.65 * _COOKED
        return tuple(int(v) for v in mix)  # type: ignore[return-value]
    return color


def hand_position(agent: Agent) -> tuple[float, float, float]:
    """World position of the held object's centre: in front of and below the camera."""
    cx, cy, cz = agent.camera
    yaw, pitch = math.radians(agent.yaw), math.radians(agent.horizon)
    ox, oy, oz = HAND_OFFSET
    # pitch about the camera's x axis (positive looks down), then yaw about y
    y2 = oy * math.cos(pitch) - oz * math.sin(pitch)
    z2 = oy * math.sin(pitch) + oz * math.cos(pitch)
    return (
        cx + z2 * math.sin(yaw) + ox * math.cos(yaw),
        cy + y2,
        cz + z2 * math.cos(yaw) - ox * math.sin(yaw),
    )


def object_parts(obj: Obj) -> list[Part]:
    """The boxes that draw an object in its current state (cached per immutable record)."""
    return list(_parts(obj))


@lru_cache(maxsize=8192)
def _parts(obj: Obj) -> tuple[Part, ...]:
    t = obj.type
    color = base_color(obj)
    box = obj.box
    if TYPES[t].openable and is_enclosing(t) and obj.is_open:
        parts = _hollow(obj, color)
    elif t in _LEGGED:
        parts = _legged(obj, color)
    elif t in _SHAPED:
        parts = _SHAPED[t](obj, color)
    elif t == "CoffeeMachine":
        parts = [
            (_rel(obj, 0, 1, 0, 0.08, 0, 1), shade(color, 1.3)),
            (_rel(obj, 0, 1, 0, 1, 0, 0.5), color),
            (_rel(obj, 0.1, 0.9, 0.78, 1, 0.5, 0.9), color),
        ]
    else:
        parts = [(box, color)] + _details(obj, color)
    parts += _state_cues(obj)
    return tuple(parts)


def _above(obj: Obj, metres: float) -> float:
    """A height `metres` above the object's top as a fraction of its height (for `_rel` past the box)."""
    return 1.0 + metres / max(obj.size[1], 1e-6)


def _laptop(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    """A laptop: closed, a flat lid with a hinge line (and a power light on its front edge when on); open, the
    base with a dark keyboard and the screen standing at the back, lit when on."""
    lid = shade(color, 1.15)
    if not obj.is_open:
        parts = [(obj.box, color), (_rel(obj, 0.0, 1.0, 0.55, 1.0, 0.0, 1.0), lid),
                 (_out(obj, 0.0, 1.0, 0.0, 0.5, 0.0, 0.004), shade(color, 0.5))]
        if obj.is_toggled:
            parts.append((_out(obj, 0.35, 0.65, 0.1, 0.9, 0.0, 0.006), _GLOW["Laptop"]))
        return parts
    screen = (120, 200, 255) if obj.is_toggled else (25, 25, 30)
    return [
        (obj.box, color),
        (_rel(obj, 0.08, 0.92, 1.0, _above(obj, 0.003), 0.4, 0.9), (35, 35, 40)),
        (_rel(obj, 0.0, 1.0, 1.0, _above(obj, 0.23), 0.24, 0.3), lid),  # hinged in from the back edge, which
        (_rel(obj, 0.06, 0.94, _above(obj, 0.02), _above(obj, 0.21), 0.3, 0.32), screen),  # may touch a wall
    ]


def _lamp(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    """A lamp: a base, a stem and a shade that is bright when the lamp is on and grey when it is off."""
    shade_at = 0.55 if obj.type == "DeskLamp" else 0.72
    lit = (255, 236, 140) if obj.is_toggled else (128, 124, 118)
    return [
        (_rel(obj, 0.1, 0.9, 0.0, 0.06, 0.1, 0.9), shade(color, 0.6)),
        (_rel(obj, 0.44, 0.56, 0.06, shade_at, 0.44, 0.56), shade(color, 0.8)),
        (_rel(obj, 0.0, 1.0, shade_at, 1.0, 0.0, 1.0), lit),
    ]


def _bread(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    """A loaf: a pale body, a domed dark crust and three score marks across the top."""
    crust = shade(color, 0.72)
    parts = [(_rel(obj, 0.0, 1.0, 0.0, 0.7, 0.0, 1.0), shade(color, 1.2)),
             (_rel(obj, 0.04, 0.96, 0.7, 1.0, 0.08, 0.92), crust)]
    for u in (0.25, 0.48, 0.71):
        parts.append((_rel(obj, u, u + 0.05, 0.98, 1.03, 0.15, 0.85), shade(color, 0.4)))
    return parts


def _shaker(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    """A salt or pepper shaker: a body and a metal cap with dark holes."""
    return [(_rel(obj, 0.0, 1.0, 0.0, 0.72, 0.0, 1.0), color),
            (_rel(obj, 0.05, 0.95, 0.72, 1.0, 0.05, 0.95), (205, 205, 212)),
            (_rel(obj, 0.3, 0.7, 1.0, 1.04, 0.3, 0.7), (30, 30, 30))]


def _alarm_clock(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    """An alarm clock: a body, a white dial with two hands on its front and two bells on top."""
    bell = (200, 170, 60)
    return [
        (obj.box, color),
        (_out(obj, 0.12, 0.88, 0.1, 0.9, 0.0, 0.004), (245, 245, 240)),
        (_out(obj, 0.48, 0.53, 0.5, 0.85, 0.004, 0.007), (20, 20, 20)),
        (_out(obj, 0.5, 0.78, 0.47, 0.53, 0.004, 0.007), (20, 20, 20)),
        (_rel(obj, 0.02, 0.32, 1.0, 1.35, 0.25, 0.75), bell),
        (_rel(obj, 0.68, 0.98, 1.0, 1.35, 0.25, 0.75), bell),
    ]


def _towel(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    """A hanging towel: the cloth with two white bands across its lower part and a fringe (both faces)."""
    band = (245, 245, 245)
    return [
        (obj.box, color),
        (_rel(obj, 0.0, 1.0, 0.12, 0.2, -0.3, 1.3), band),
        (_rel(obj, 0.0, 1.0, 0.26, 0.31, -0.3, 1.3), band),
        (_rel(obj, 0.0, 1.0, 0.0, 0.04, -0.3, 1.3), shade(color, 0.6)),
    ]


_SHAPED = {"Laptop": _laptop, "DeskLamp": _lamp, "FloorLamp": _lamp, "Bread": _bread, "PepperShaker": _shaker,
           "SaltShaker": _shaker, "AlarmClock": _alarm_clock, "Towel": _towel, "HandTowel": _towel}


def _rel(obj: Obj, u0: float, u1: float, y0: float, y1: float, f0: float, f1: float) -> Box:
    """A sub-box given as fractions: u across the front, y up, f from the back (0) to the front (1)."""
    x0, by0, z0, x1, by1, z1 = obj.box
    h = by1 - by0
    fx, fz = obj.front
    ya, yb = by0 + y0 * h, by0 + y1 * h
    if fz:  # front faces +z or -z
        a, b = (x0 + u0 * (x1 - x0), x0 + u1 * (x1 - x0))
        c, d = (
            (z0 + f0 * (z1 - z0), z0 + f1 * (z1 - z0))
            if fz > 0
            else (z1 - f1 * (z1 - z0), z1 - f0 * (z1 - z0))
        )
        return (a, ya, c, b, yb, d)
    a, b = (z0 + u0 * (z1 - z0), z0 + u1 * (z1 - z0))
    c, d = (
        (x0 + f0 * (x1 - x0), x0 + f1 * (x1 - x0)) if fx > 0 else (x1 - f1 * (x1 - x0), x1 - f0 * (x1 - x0))
    )
    return (c, ya, a, d, yb, b)


def _out(obj: Obj, u0: float, u1: float, y0: float, y1: float, d0: float, d1: float) -> Box:
    """A sub-box in front of the object's front face, `d0`..`d1` metres out."""
    x0, by0, z0, x1, by1, z1 = obj.box
    h = by1 - by0
    fx, fz = obj.front
    ya, yb = by0 + y0 * h, by0 + y1 * h
    if fz:
        a, b = x0 + u0 * (x1 - x0), x0 + u1 * (x1 - x0)
        face = z1 if fz > 0 else z0
        c, d = sorted((face + fz * d0, face + fz * d1))
        return (a, ya, c, b, yb, d)
    a, b = z0 + u0 * (z1 - z0), z0 + u1 * (z1 - z0)
    face = x1 if fx > 0 else x0
    c, d = sorted((face + fx * d0, face + fx * d1))
    return (c, ya, a, d, yb, b)


def _hollow(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    inner = shade(color, 0.55)
    x0, y0, z0, x1, y1, z1 = obj.box
    w = 0.03
    parts = [
        ((x0, y0, z0, x1, y0 + w, z1), inner),
        (_rel(obj, 0, 1, 0, 1, 0, 0.06), inner),
        (_rel(obj, 0, 0.05, 0, 1, 0, 1), color),
        (_rel(obj, 0.95, 1, 0, 1, 0, 1), color),
    ]
    if obj.type == "Drawer":
        return parts + [(_rel(obj, 0, 1, 0, 1, 0.94, 1), color)]
    parts.append(((x0, y1 - w, z0, x1, y1, z1), color))
    if obj.type == "Box":
        return parts
    width = obj.size[0] if obj.front[1] else obj.size[2]
    return parts + [(_out(obj, 0.96, 1.0, 0.02, 0.98, 0.0, width * 0.9), shade(color, 0.85))]


def _legged(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    x0, y0, z0, x1, y1, z1 = obj.box
    seat = 0.55 if obj.type == "Chair" else 0.93
    parts = [((x0, y0 + (y1 - y0) * (seat - 0.07), z0, x1, y0 + (y1 - y0) * seat, z1), color)]
    leg = shade(color, 0.7)
    for lx0, lx1 in ((x0 + 0.02, x0 + 0.07), (x1 - 0.07, x1 - 0.02)):
        for lz0, lz1 in ((z0 + 0.02, z0 + 0.07), (z1 - 0.07, z1 - 0.02)):
            parts.append(((lx0, y0, lz0, lx1, y0 + (y1 - y0) * seat, lz1), leg))
    if obj.type == "Chair":
        parts.append(((x0, y0 + (y1 - y0) * seat, z0, x1, y1, z0 + 0.05), color))
    return parts


def _details(obj: Obj, color: tuple[int, int, int]) -> list[Part]:
    t = obj.type
    dark = shade(color, 0.45)
    x0, y0, z0, x1, y1, z1 = obj.box
    if t in _OPEN_TOP and not obj.fill:
        ix, iz = (x1 - x0) * 0.15, (z1 - z0) * 0.15
        return [((x0 + ix, y1 - 0.01, z0 + iz, x1 - ix, y1 + 0.002, z1 - iz), dark)]
    if t in ("Cabinet", "Fridge", "Microwave", "Safe", "Drawer"):
        parts = [(_out(obj, 0.82, 0.9, 0.3, 0.7, 0.0, 0.02), (40, 40, 40))]
        if t == "Fridge":
            parts.append((_out(obj, 0.0, 1.0, 0.64, 0.66, 0.0, 0.005), dark))
        if t == "Microwave":
            parts.append((_out(obj, 0.08, 0.7, 0.15, 0.85, 0.0, 0.004), (30, 30, 35)))
        return parts
    if t == "Sink":
        return [(_out(obj, 0.05, 0.95, 0.05, 0.9, 0.0, 0.004), shade(color, 0.8))]
    if t in ("Television", "CellPhone") and not obj.is_toggled:
        return [] if t != "Television" else [(_out(obj, 0.05, 0.95, 0.08, 0.92, 0.0, 0.004), (45, 45, 50))]
    if t == "Toaster":
        return [((x0 + 0.05, y1 - 0.005, z0 + 0.05, x1 - 0.05, y1 + 0.002, z1 - 0.05), (30, 30, 30))]
    if t == "Doorway":
        return []
    if t == "Window" and not obj.is_broken:
        return [(_out(obj, 0.05, 0.95, 0.05, 0.95, 0.0, 0.004), (200, 230, 255))]
    return []


def _state_cues(obj: Obj) -> list[Part]:
    x0, y0, z0, x1, y1, z1 = obj.box
    cues: list[Part] = []
    if obj.fill and TYPES[obj.type].can_fill:
        ix, iz = (x1 - x0) * 0.15, (z1 - z0) * 0.15
        cues.append(((x0 + ix, y1 - 0.01, z0 + iz, x1 - ix, y1 + 0.003, z1 - iz), LIQUID[obj.fill]))
    if obj.is_toggled and obj.type in _GLOW and obj.type != "Laptop":  # a laptop's screen shows its state
        cues.append((_glow_box(obj), _GLOW[obj.type]))
    if obj.type == "EggCracked":
        cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
        cues.append(
            (
                (cx - 0.025, y1 - 0.004, cz - 0.025, cx + 0.025, y1 + 0.006, cz + 0.025),
                (255, 170, 0) if not obj.is_cooked else (230, 140, 20),
            )
        )
    return cues


def _glow_box(obj: Obj) -> Box:
    x0, y0, z0, x1, y1, z1 = obj.box
    t = obj.type
    if t in ("StoveBurner",):
        ix, iz = (x1 - x0) * 0.2, (z1 - z0) * 0.2
        return (x0 + ix, y1, z0 + iz, x1 - ix, y1 + 0.004, z1 - iz)
    if t == "Toaster":
        return (x0 + 0.05, y1 - 0.004, z0 + 0.05, x1 - 0.05, y1 + 0.004, z1 - 0.05)
    if t in ("Microwave", "Television"):
        return (
            _out(obj, 0.08, 0.7, 0.15, 0.85, 0.004, 0.008)
            if t == "Microwave"
            else _out(obj, 0.05, 0.95, 0.08, 0.92, 0.004, 0.008)
        )
    if t in ("DeskLamp", "FloorLamp", "Candle"):
        cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
        return (cx - 0.06, y1, cz - 0.06, cx + 0.06, y1 + 0.08, cz + 0.06)
    if t in ("Faucet", "ShowerHead"):
        cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
        fx, fz = obj.front
        cx, cz = cx + fx * 0.08, cz + fz * 0.08
        return (
            cx - 0.015,
            y0 - (0.3 if t == "Faucet" else 1.3),
            cz - 0.015,
            cx + 0.015,
            y1 - 0.05,
            cz + 0.015,
        )
    if t == "CellPhone":
        return (x0 + 0.01, y1, z0 + 0.01, x1 - 0.01, y1 + 0.002, z1 - 0.01)
    return _out(obj, 0.3, 0.7, 0.6, 0.8, 0.0, 0.01)


def door_parts(obj: Obj) -> list[Part]:
    """A room door: a panel across the gap when closed, swung against the jamb when open."""
    x0, y0, z0, x1, y1, z1 = obj.box
    color = TYPES["Doorway"].color
    if not obj.is_open:
        return [(obj.box, color)]
    if x1 - x0 > z1 - z0:  # gap along x: swing into -z side
        return [((x0, y0, z0 - 0.85, x0 + 0.05, y1, z0), color)]
    return [((x0 - 0.85, y0, z0, x0, y1, z0 + 0.05), color)]


def scene_parts(world: World) -> tuple[list[Box], list[tuple[int, int, int]], list[str]]:
    """Every drawable box of the world now: boxes, colours and owner object ids (fixtures own '')."""
    boxes: list[Box] = [f.box for f in world.scene.fixtures]
    colors: list[tuple[int, int, int]] = [f.color for f in world.scene.fixtures]
    owners: list[str] = [""] * len(boxes)
    held = set([world.held, *world.descendants(world.held)]) if world.held else set()
    shift = (0.0, 0.0, 0.0)
    if world.held:
        hx, hy, hz = hand_position(world.agent)
        cx, cy, cz = world.objects[world.held].center
        shift = (hx - cx, hy - cy, hz - cz)
    for oid, obj in world.objects.items():
        if obj.type == "Floor":
            continue
        parts = door_parts(obj) if obj.type == "Doorway" else _parts(obj)
        for box, color in parts:
            if oid in held:
                box = (
                    box[0] + shift[0],
                    box[1] + shift[1],
                    box[2] + shift[2],
                    box[3] + shift[0],
                    box[4] + shift[1],
                    box[5] + shift[2],
                )
            boxes.append(box)
            colors.append(color)
            owners.append(oid)
    return boxes, colors, owners


def facing_pose(x: float, z: float, target: tuple[float, float, float], standing: bool) -> Agent:
    """The agent at (x, z) in a stance, turned and pitched (within -30..60 degrees) towards a point."""
    cx, cy, cz = target
    yaw = round(math.degrees(math.atan2(cx - x, cz - z)) % 360, 1)
    eye = STANDING_CAMERA_Y if standing else CROUCHING_CAMERA_Y
    pitch = math.degrees(math.atan2(eye - cy, math.hypot(cx - x, cz - z)))
    return Agent(x, z, yaw, round(max(-30.0, min(60.0, pitch)), 1), standing)
