"""Object type catalog: AI2-THOR's actionable properties, sizes, colours and receptacle compatibility."""

from __future__ import annotations

import colorsys
import zlib
from dataclasses import dataclass
from functools import cache

# Flag letters: P pickupable, R receptacle, O openable, T toggleable, S sliceable, C cookable, D dirtyable,
# F canFillWithLiquid, B breakable, M moveable, H heat source, K cold source.
# Placement: small (sits in a receptacle), base (kitchen counter unit), wall (mounted on a wall),
# edge (floor-standing against a wall), free (floor-standing in the open), top (appliance on a counter),
# part (attached to another object), room (structure owned by a room).
_TABLE = """
AlarmClock       P      0.14 0.10 0.08 small
AluminumFoil     P      0.30 0.06 0.06 small
Apple            PS     0.08 0.08 0.08 small
AppleSliced      P      0.07 0.03 0.07 small
ArmChair         RM     0.85 0.85 0.85 free
BaseballBat      P      0.07 0.07 0.80 small
BasketBall       P      0.24 0.24 0.24 small
Bathtub          R      1.60 0.55 0.80 edge
BathtubBasin     R      1.40 0.05 0.60 part
Bed              RDM    1.50 0.60 2.00 edge
Blinds           O      1.00 1.10 0.04 part
Book             PO     0.20 0.04 0.26 small
Boots            P      0.28 0.30 0.28 small
Bottle           PFB    0.08 0.28 0.08 small
Bowl             PRDFB  0.18 0.08 0.18 small
Box              PRO    0.36 0.26 0.30 small
Bread            PS     0.26 0.12 0.13 small
BreadSliced      PC     0.11 0.10 0.02 small
ButterKnife      P      0.20 0.02 0.03 small
Cabinet          RO     0.60 0.70 0.55 base
Candle           PT     0.08 0.14 0.08 small
CD               P      0.12 0.01 0.12 small
CellPhone        PTB    0.07 0.01 0.14 small
Chair            RM     0.45 0.90 0.45 free
Cloth            PD     0.26 0.02 0.22 small
CoffeeMachine    RTM    0.26 0.38 0.30 top
CoffeeTable      RM     1.10 0.45 0.60 free
CounterTop       R      0.60 0.05 0.62 base
CreditCard       P      0.09 0.01 0.05 small
Cup              PRDFB  0.08 0.11 0.08 small
Curtains         O      0.50 2.10 0.06 part
Desk             RM     1.30 0.76 0.65 edge
DeskLamp         TM     0.22 0.48 0.22 small
Desktop          M      0.50 0.42 0.20 small
DiningTable      RM     1.40 0.76 0.90 free
DishSponge       P      0.11 0.04 0.07 small
DogBed           RM     0.80 0.22 0.60 free
Doorway          O      0.90 2.10 0.05 room
Drawer           RO     0.60 0.24 0.55 base
Dresser          RM     1.20 0.90 0.50 edge
Dumbbell         P      0.30 0.12 0.12 small
Egg              PSB    0.05 0.07 0.05 small
EggCracked       PC     0.10 0.02 0.10 small
Faucet           T      0.08 0.28 0.18 part
Floor            R      1.00 0.01 1.00 room
FloorLamp        TM     0.40 1.70 0.40 edge
Footstool        RM     0.45 0.40 0.45 free
Fork             P      0.19 0.02 0.03 small
Fridge           ROK    0.80 1.90 0.75 edge
GarbageBag       P      0.40 0.55 0.40 small
GarbageCan       RM     0.36 0.50 0.36 edge
HandTowel        P      0.30 0.40 0.04 part
HandTowelHolder  R      0.34 0.06 0.10 wall
HousePlant       F      0.30 0.50 0.30 small
Kettle           PF     0.22 0.24 0.18 small
KeyChain         P      0.06 0.02 0.08 small
Knife            P      0.31 0.02 0.04 small
Ladle            P      0.30 0.06 0.08 small
Laptop           POTB   0.34 0.03 0.24 small
LaundryHamper    RM     0.50 0.65 0.40 edge
Lettuce          PS     0.18 0.16 0.18 small
LettuceSliced    P      0.16 0.04 0.16 small
LightSwitch      T      0.10 0.14 0.03 wall
Microwave        ROTHM  0.50 0.30 0.38 top
Mirror           DB     0.80 0.90 0.03 wall
Mug              PRDFB  0.10 0.11 0.10 small
Newspaper        P      0.30 0.02 0.40 small
Ottoman          RM     0.70 0.42 0.70 free
Painting         M      0.80 0.60 0.04 wall
Pan              PRD    0.28 0.05 0.28 small
PaperTowelRoll   P      0.12 0.28 0.12 small
Pen              P      0.14 0.01 0.02 small
Pencil           P      0.18 0.01 0.02 small
PepperShaker     P      0.05 0.10 0.05 small
Pillow           P      0.50 0.14 0.35 small
Plate            PRDB   0.26 0.02 0.26 small
Plunger          P      0.15 0.50 0.15 small
Poster           M      0.50 0.70 0.02 wall
Pot              PRDF   0.26 0.16 0.26 small
Potato           PSC    0.10 0.07 0.08 small
PotatoSliced     PC     0.09 0.02 0.08 small
RemoteControl    P      0.05 0.02 0.17 small
RoomDecor        M      0.40 0.90 0.40 edge
Safe             ROM    0.45 0.50 0.45 edge
SaltShaker       P      0.05 0.10 0.05 small
ScrubBrush       P      0.10 0.40 0.10 small
Shelf            R      0.80 0.04 0.28 wall
ShelvingUnit     RM     0.90 1.60 0.40 edge
ShowerCurtain    O      1.40 1.80 0.04 part
ShowerDoor       OB     0.80 1.80 0.04 part
ShowerGlass      B      0.80 1.80 0.03 part
ShowerHead       T      0.14 0.10 0.20 wall
SideTable        RM     0.50 0.60 0.45 edge
Sink             R      0.60 0.90 0.60 base
SinkBasin        R      0.50 0.02 0.42 part
SoapBar          P      0.09 0.03 0.06 small
SoapBottle       P      0.08 0.20 0.08 small
Sofa             RM     2.00 0.80 0.90 edge
Spatula          P      0.30 0.02 0.08 small
Spoon            P      0.17 0.02 0.04 small
SprayBottle      P      0.10 0.26 0.08 small
Statue           PB     0.12 0.28 0.12 small
Stool            RM     0.40 0.65 0.40 free
StoveBurner      RTH    0.26 0.02 0.26 part
StoveKnob        T      0.05 0.05 0.03 part
TableTopDecor    P      0.16 0.20 0.16 small
TeddyBear        P      0.30 0.35 0.25 small
Television       TBM    1.10 0.65 0.08 top
TennisRacket     P      0.30 0.03 0.68 small
TissueBox        P      0.24 0.12 0.12 small
Toaster          RTHM   0.28 0.20 0.18 top
Toilet           RO     0.40 0.75 0.65 edge
ToiletPaper      P      0.11 0.11 0.11 small
ToiletPaperHanger R     0.16 0.06 0.12 wall
Tomato           PS     0.09 0.08 0.09 small
TomatoSliced     P      0.08 0.02 0.08 small
Towel            P      0.50 0.60 0.05 part
TowelHolder      R      0.60 0.06 0.10 wall
TVStand          RM     1.40 0.55 0.45 edge
VacuumCleaner    M      0.30 1.00 0.30 edge
Vase             PB     0.14 0.30 0.14 small
Watch            P      0.04 0.01 0.04 small
WateringCan      PF     0.30 0.26 0.14 small
Window           B      1.20 1.10 0.06 wall
WineBottle       PFB    0.08 0.32 0.08 small
"""

# Hand-picked colours (0-255 RGB) for the types a vision model must tell apart most often; the rest get a
# hue spread by a stable hash of their name.
_COLORS: dict[str, tuple[int, int, int]] = {
    "Apple": (200, 25, 35),
    "AppleSliced": (235, 225, 170),
    "Bread": (190, 130, 60),
    "BreadSliced": (230, 200, 140),
    "Egg": (245, 240, 225),
    "EggCracked": (250, 210, 40),
    "Lettuce": (90, 190, 60),
    "LettuceSliced": (150, 225, 110),
    "Potato": (160, 120, 70),
    "PotatoSliced": (230, 215, 160),
    "Tomato": (235, 60, 40),
    "TomatoSliced": (245, 110, 90),
    "Mug": (40, 110, 200),
    "Cup": (120, 200, 230),
    "Bowl": (235, 150, 40),
    "Plate": (235, 235, 240),
    "Pan": (45, 45, 50),
    "Pot": (150, 155, 165),
    "Kettle": (180, 40, 60),
    "Knife": (200, 200, 215),
    "ButterKnife": (170, 175, 190),
    "Fork": (140, 150, 175),
    "Spoon": (120, 140, 150),
    "Spatula": (210, 80, 20),
    "Ladle": (100, 90, 160),
    "DishSponge": (250, 230, 60),
    "SoapBottle": (90, 200, 170),
    "SaltShaker": (250, 250, 250),
    "PepperShaker": (60, 40, 30),
    "CoffeeMachine": (30, 30, 30),
    "Toaster": (200, 200, 190),
    "Microwave": (90, 90, 95),
    "Fridge": (225, 230, 235),
    "StoveBurner": (25, 25, 28),
    "StoveKnob": (60, 60, 60),
    "Sink": (175, 180, 185),
    "SinkBasin": (130, 145, 160),
    "Faucet": (200, 205, 210),
    "CounterTop": (150, 140, 125),
    "Cabinet": (150, 105, 65),
    "Drawer": (175, 125, 80),
    "DiningTable": (120, 80, 45),
    "Chair": (95, 65, 40),
    "Stool": (110, 90, 70),
    "GarbageCan": (70, 110, 70),
    "Floor": (165, 150, 130),
    "Window": (170, 210, 240),
    "LightSwitch": (240, 240, 230),
    "Television": (20, 20, 25),
    "RemoteControl": (35, 35, 45),
    "Mirror": (205, 225, 235),
    "SprayBottle": (40, 170, 220),
    "Cloth": (220, 100, 170),
    "Sofa": (70, 80, 140),
    "Bed": (200, 190, 220),
    "Doorway": (140, 95, 55),
}


@dataclass(frozen=True)
class TypeSpec:
    """One AI2-THOR object type: its actionable properties, default size, colour and placement."""

    name: str
    pickupable: bool
    receptacle: bool
    openable: bool
    toggleable: bool
    sliceable: bool
    cookable: bool
    dirtyable: bool
    can_fill: bool
    breakable: bool
    moveable: bool
    heat_source: bool
    cold_source: bool
    size: tuple[float, float, float]
    color: tuple[int, int, int]
    placement: str


# What slicing (or cracking) a type produces, and how many pieces.
SLICED_INTO: dict[str, tuple[str, int]] = {
    "Apple": ("AppleSliced", 4),
    "Bread": ("BreadSliced", 6),
    "Lettuce": ("LettuceSliced", 5),
    "Potato": ("PotatoSliced", 5),
    "Tomato": ("TomatoSliced", 5),
    "Egg": ("EggCracked", 1),
}

# Receptacles whose contents are inside a closable body (hidden when closed); the others hold things on top.
ENCLOSING = frozenset({"Fridge", "Cabinet", "Drawer", "Microwave", "Safe", "Box"})

_TABLES = (
    "CounterTop",
    "DiningTable",
    "CoffeeTable",
    "SideTable",
    "Desk",
    "Dresser",
    "TVStand",
    "Shelf",
    "ShelvingUnit",
)
_KITCHEN_FOOD = ("Pot", "Pan", "Bowl", "Plate", "Microwave", "Fridge", "Sink", "SinkBasin", "GarbageCan")
_SEATS = ("Sofa", "ArmChair", "Bed", "Ottoman", "Chair", "Stool")
_SMALL_BOX = ("Box", "Drawer", "Cabinet", "Safe")
_UTENSIL = ("Pot", "Pan", "Bowl", "Mug", "Cup", "Plate", "Drawer", "Sink", "SinkBasin") + _TABLES
_WASH = ("Sink", "SinkBasin", "Cabinet") + _TABLES

# Default compatible receptacles per pickupable type, after AI2-THOR's object-type table.
_COMPAT: dict[str, tuple[str, ...]] = {
    "Apple": _KITCHEN_FOOD + _TABLES,
    "AppleSliced": _KITCHEN_FOOD + _TABLES,
    "Tomato": _KITCHEN_FOOD + _TABLES,
    "TomatoSliced": _KITCHEN_FOOD + _TABLES,
    "Lettuce": _KITCHEN_FOOD + _TABLES,
    "LettuceSliced": _KITCHEN_FOOD + _TABLES,
    "Potato": _KITCHEN_FOOD + _TABLES,
    "PotatoSliced": _KITCHEN_FOOD + _TABLES,
    "Egg": _KITCHEN_FOOD + _TABLES,
    "EggCracked": _KITCHEN_FOOD + _TABLES,
    "Bread": _KITCHEN_FOOD + _TABLES,
    "BreadSliced": _KITCHEN_FOOD + ("Toaster",) + _TABLES,
    "Mug": ("CoffeeMachine", "Microwave", "Fridge") + _WASH,
    "Cup": ("Microwave", "Fridge") + _WASH,
    "Bowl": ("Microwave", "Fridge") + _WASH,
    "Plate": ("Microwave", "Fridge") + _WASH,
    "Pan": ("StoveBurner", "Fridge") + _WASH,
    "Pot": ("StoveBurner", "Fridge") + _WASH,
    "Kettle": ("StoveBurner",) + _WASH,
    "Fork": _UTENSIL,
    "Spoon": _UTENSIL,
    "Knife": _UTENSIL,
    "ButterKnife": _UTENSIL,
    "Spatula": _UTENSIL,
    "Ladle": _UTENSIL,
    "DishSponge": ("Sink", "SinkBasin", "BathtubBasin", "Bowl", "Plate", "Drawer", "Cabinet") + _TABLES,
    "SaltShaker": ("Cabinet", "Drawer") + _TABLES,
    "PepperShaker": ("Cabinet", "Drawer") + _TABLES,
    "SoapBottle": ("Cabinet", "Toilet", "Bathtub", "BathtubBasin", "Sink", "GarbageCan") + _TABLES,
    "SoapBar": ("Sink", "SinkBasin", "Bathtub", "BathtubBasin", "Toilet", "Cabinet", "Drawer") + _TABLES,
    "SprayBottle": ("Cabinet", "Toilet", "Bathtub", "GarbageCan") + _TABLES,
    "ScrubBrush": ("Toilet", "Bathtub", "Cabinet", "GarbageCan") + _TABLES,
    "Plunger": ("Cabinet", "Floor") + _TABLES,
    "PaperTowelRoll": ("Cabinet", "Drawer", "GarbageCan") + _TABLES,
    "ToiletPaper": ("ToiletPaperHanger", "Toilet", "Cabinet", "Drawer", "GarbageCan") + _TABLES,
    "Cloth": (
        "Sink",
        "SinkBasin",
        "Bathtub",
        "BathtubBasin",
        "Drawer",
        "Cabinet",
        "GarbageCan",
        "Toilet",
        "LaundryHamper",
    )
    + _TABLES,
    "Towel": ("TowelHolder",),
    "HandTowel": ("HandTowelHolder",),
    "Candle": ("Cabinet", "Drawer", "Toilet", "Bathtub") + _TABLES,
    "TissueBox": ("Cabinet", "Drawer", "Toilet") + _TABLES,
    "Bottle": ("Fridge", "Cabinet", "GarbageCan", "Sink", "SinkBasin") + _TABLES,
    "WineBottle": ("Fridge", "Cabinet", "GarbageCan") + _TABLES,
    "AluminumFoil": ("Cabinet", "Drawer") + _TABLES,
    "GarbageBag": ("Floor", "GarbageCan"),
    "WateringCan": ("Floor",) + _TABLES,
    "Pen": ("Mug", "Cup", "Box", "Drawer", "GarbageCan") + _TABLES,
    "Pencil": ("Mug", "Cup", "Box", "Drawer", "GarbageCan") + _TABLES,
    "CD": _SMALL_BOX + _TABLES,
    "CreditCard": _SMALL_BOX + _TABLES + ("Sofa", "ArmChair", "Bed"),
    "KeyChain": _SMALL_BOX + _TABLES + ("Sofa", "ArmChair"),
    "Watch": _SMALL_BOX + _TABLES,
    "CellPhone": _SMALL_BOX + _TABLES + _SEATS,
    "RemoteControl": ("Box", "Drawer") + _TABLES + _SEATS,
    "Book": ("Box", "Drawer", "Cabinet") + _TABLES + _SEATS,
    "Laptop": _TABLES + _SEATS,
    "Newspaper": ("Box", "GarbageCan") + _TABLES + _SEATS,
    "AlarmClock": ("Box",) + _TABLES,
    "Box": _TABLES + ("Floor",) + _SEATS,
    "Statue": ("Box", "Cabinet") + _TABLES,
    "Vase": ("Box", "Cabinet") + _TABLES,
    "TableTopDecor": _TABLES,
    "Pillow": _SEATS + ("Dresser",),
    "TeddyBear": _SEATS + ("Floor",) + _TABLES,
    "BaseballBat": ("Bed", "Floor") + _TABLES,
    "BasketBall": _SEATS + ("Floor",) + _TABLES,
    "TennisRacket": ("Bed", "Floor") + _TABLES,
    "Dumbbell": ("Floor", "Bed") + _TABLES,
    "Boots": ("Floor",),
}


def _parse() -> dict[str, TypeSpec]:
    specs: dict[str, TypeSpec] = {}
    for line in _TABLE.strip().splitlines():
        name, *rest = line.split()
        flags = rest[0] if len(rest) == 5 else ""
        w, h, d = (float(v) for v in rest[-4:-1])
        specs[name] = TypeSpec(
            name=name,
            pickupable="P" in flags,
            receptacle="R" in flags,
            openable="O" in flags,
            toggleable="T" in flags,
            sliceable="S" in flags,
            cookable="C" in flags,
            dirtyable="D" in flags,
            can_fill="F" in flags,
            breakable="B" in flags,
            moveable="M" in flags,
            heat_source="H" in flags,
            cold_source="K" in flags,
            size=(w, h, d),
            color=_COLORS.get(name) or _hashed_color(name),
            placement=rest[-1],
        )
    return specs


def _hashed_color(name: str) -> tuple[int, int, int]:
    h = zlib.crc32(name.encode()) / 2**32
    r, g, b = colorsys.hsv_to_rgb(h, 0.55, 0.78)
    return (round(r * 255), round(g * 255), round(b * 255))


TYPES: dict[str, TypeSpec] = _parse()


def spec(object_type: str) -> TypeSpec:
    """The catalog entry of an object type; KeyError names the unknown type."""
    try:
        return TYPES[object_type]
    except KeyError:
        raise KeyError(f"unknown object type {object_type!r}") from None


@cache
def compatible_receptacles(object_type: str) -> frozenset[str]:
    """Receptacle types that accept `object_type` (AI2-THOR's default compatible receptacles)."""
    return frozenset(_COMPAT.get(object_type, _TABLES))


def can_hold(receptacle_type: str, object_type: str) -> bool:
    """Whether a receptacle of this type accepts an object of that type."""
    return TYPES[receptacle_type].receptacle and receptacle_type in compatible_receptacles(object_type)


def is_enclosing(receptacle_type: str) -> bool:
    """Whether the receptacle holds its contents inside a body (rather than on top)."""
    return receptacle_type in ENCLOSING
