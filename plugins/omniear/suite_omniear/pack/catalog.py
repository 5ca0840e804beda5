"""Our own content for generated OmniEAR-format data: verbs, themes, furniture, items and tools.

Everything here is written for this project (names, verbs, descriptions); nothing is copied from the
upstream data set. Verb rows follow the attribute-action CSV format: the verb applies when `attribute`
equals `value` and flips it.
"""

from __future__ import annotations

from typing import NamedTuple


class Verb(NamedTuple):
    """One row of our attribute-action table."""

    name: str
    attribute: str
    value: bool
    requires_tool: bool
    description: str


VERBS: tuple[Verb, ...] = (
    Verb("open", "is_open", False, False, "Swing or slide it open so what is inside can be reached."),
    Verb("close", "is_open", True, False, "Shut it again."),
    Verb("power_on", "is_on", False, False, "Switch the device on."),
    Verb("power_off", "is_on", True, False, "Switch the device off."),
    Verb("plug_in", "is_plugged_in", False, False, "Push its power cord into a socket."),
    Verb("unplug", "is_plugged_in", True, False, "Pull its power cord out of the socket."),
    Verb("fold", "is_folded", False, False, "Fold it flat for storage."),
    Verb("unfold", "is_folded", True, False, "Spread it back out."),
    Verb("mute", "is_muted", False, False, "Silence its speaker."),
    Verb("repair", "is_broken", True, True, "Fix something broken; needs a repair tool."),
    Verb("clean", "is_dirty", True, True, "Wipe the grime off; needs something to clean with."),
    Verb(
        "calibrate",
        "is_calibrated",
        False,
        True,
        "Tune an instrument against a reference; needs a calibration set.",
    ),
    Verb("tighten", "is_loose", True, True, "Snug up loose fittings; needs a wrench or a screwdriver."),
    Verb("charge", "is_charged", False, True, "Fill its battery; needs a charger."),
    Verb("label", "is_labeled", False, True, "Stick a printed label on it; needs a label maker."),
    Verb("seal", "is_sealed", False, True, "Close it airtight; needs sealing tape."),
    Verb("water", "is_watered", False, True, "Give a plant a drink; needs a watering can."),
    Verb("polish", "is_polished", False, True, "Buff the surface until it shines; needs a polishing cloth."),
    Verb("sharpen", "is_sharp", False, True, "Put an edge back on a blade; needs a sharpener."),
    Verb("unlock", "is_locked", True, True, "Turn the lock open; needs a key."),
    Verb("sterilize", "is_sterile", False, True, "Kill the germs on it; needs a steriliser."),
    Verb("inflate", "is_inflated", False, True, "Pump air into it; needs a pump."),
)


class Thing(NamedTuple):
    """An object template: weight range (kg), materials, states it starts with, container flag, tools."""

    name: str
    weight: tuple[float, float]
    materials: tuple[str, ...]
    states: tuple[tuple[str, bool], ...] = ()
    container: bool = False
    provides: tuple[str, ...] = ()


FURNITURE: tuple[Thing, ...] = (
    Thing("Workbench", (45, 90), ("wood", "steel")),
    Thing("Steel Cabinet", (35, 70), ("steel",), container=True),
    Thing("Wooden Wardrobe", (50, 95), ("wood",), container=True),
    Thing("Open Shelf", (20, 45), ("wood", "metal")),
    Thing("Dining Table", (30, 60), ("oak", "glass")),
    Thing("Storage Crate", (40, 110), ("wood", "plastic"), (("is_sealed", False),), container=True),
    Thing("Server Rack", (80, 140), ("steel",), (("is_on", False), ("is_loose", True)), container=True),
    Thing("Upright Piano", (120, 180), ("wood",), (("is_dirty", True), ("is_polished", False))),
    Thing("Display Fridge", (60, 100), ("steel", "glass"), (("is_on", False),), container=True),
    Thing("Filing Cabinet", (30, 55), ("steel",), (("is_locked", True),), container=True),
    Thing("Treadmill", (70, 120), ("steel", "rubber"), (("is_broken", True), ("is_plugged_in", False))),
    Thing("Sofa", (45, 85), ("fabric", "leather"), (("is_dirty", True),)),
    Thing("Projector Stand", (20, 40), ("aluminium",), (("is_on", False), ("is_calibrated", False))),
    Thing("Folding Table", (12, 25), ("plastic", "aluminium"), (("is_folded", False),)),
)

ITEMS: tuple[Thing, ...] = (
    Thing("Desk Lamp", (0.8, 2.5), ("metal", "plastic"), (("is_on", False), ("is_plugged_in", False))),
    Thing("Portable Radio", (0.6, 2.0), ("plastic",), (("is_broken", True), ("is_on", False))),
    Thing("Tablet", (0.4, 0.9), ("glass", "aluminium"), (("is_charged", False), ("is_muted", False))),
    Thing("Microscope", (2.0, 6.0), ("metal",), (("is_calibrated", False), ("is_dirty", True))),
    Thing("Kitchen Scale", (0.5, 2.0), ("plastic", "steel"), (("is_calibrated", False),)),
    Thing("Parcel", (0.5, 8.0), ("cardboard",), (("is_labeled", False), ("is_sealed", False))),
    Thing("Potted Fern", (1.0, 4.0), ("ceramic", "clay"), (("is_watered", False),)),
    Thing("Chef Knife", (0.2, 0.5), ("steel",), (("is_sharp", False), ("is_dirty", True))),
    Thing("Beach Ball", (0.2, 0.4), ("vinyl",), (("is_inflated", False),)),
    Thing("Scalpel", (0.05, 0.2), ("steel",), (("is_sterile", False),)),
    Thing("Coffee Mug", (0.2, 0.5), ("ceramic", "glass"), (("is_dirty", True),)),
    Thing("Brass Vase", (0.8, 3.0), ("brass",), (("is_polished", False),)),
    Thing("Notebook", (0.2, 0.6), ("paper",)),
    Thing("Extension Cord", (0.5, 1.5), ("rubber",), (("is_plugged_in", False),)),
    Thing("Camping Chair", (2.0, 5.0), ("aluminium", "fabric"), (("is_folded", True),)),
    Thing("Drone", (0.8, 2.5), ("plastic", "carbon"), (("is_broken", True), ("is_charged", False))),
    Thing("Cash Box", (1.5, 5.0), ("steel",), (("is_locked", True),), container=True),
    Thing("Snack Tin", (0.3, 1.2), ("tin",), (("is_sealed", False),), container=True),
    Thing("Glass Jar", (0.3, 1.5), ("glass",), (("is_dirty", True),)),
    Thing("Wooden Crate", (3.0, 12.0), ("wood",), (("is_sealed", False),), container=True),
)

TOOLS: tuple[Thing, ...] = (
    Thing("Repair Kit", (1.0, 3.5), ("plastic",), provides=("repair", "tighten")),
    Thing("Screwdriver", (0.1, 0.4), ("steel",), provides=("tighten",)),
    Thing("Cleaning Cloth", (0.05, 0.2), ("microfibre",), provides=("clean", "polish")),
    Thing("Scrub Brush", (0.1, 0.4), ("plastic",), provides=("clean",)),
    Thing("Calibration Set", (0.5, 2.5), ("steel",), provides=("calibrate",)),
    Thing("Battery Charger", (0.3, 1.0), ("plastic",), provides=("charge",)),
    Thing("Label Maker", (0.3, 0.8), ("plastic",), provides=("label",)),
    Thing("Sealing Tape", (0.1, 0.3), ("plastic",), provides=("seal",)),
    Thing("Watering Can", (0.4, 1.5), ("zinc", "plastic"), provides=("water",)),
    Thing("Whetstone", (0.2, 0.8), ("stone",), provides=("sharpen",)),
    Thing("Key Ring", (0.05, 0.2), ("brass",), provides=("unlock",)),
    Thing("UV Steriliser", (1.5, 4.0), ("plastic",), provides=("sterilize",)),
    Thing("Hand Pump", (0.3, 1.0), ("plastic",), provides=("inflate",)),
)

#: Scene themes: a description and the rooms to draw from (name, properties).
THEMES: dict[str, tuple[str, tuple[tuple[str, dict[str, object]], ...]]] = {
    "maker space": (
        "A shared workshop where members build, fix and store their projects.",
        (
            ("Assembly Hall", {"type": "workshop", "floor": "concrete"}),
            ("Tool Library", {"type": "storage", "lighting": "bright"}),
            ("Paint Booth", {"type": "workshop", "ventilated": True}),
            ("Members Lounge", {"type": "lounge", "seats": 8}),
        ),
    ),
    "field clinic": (
        "A small clinic set up in a converted warehouse.",
        (
            ("Triage Area", {"type": "medical", "beds": 4}),
            ("Supply Room", {"type": "storage", "temperature_c": 18}),
            ("Staff Kitchen", {"type": "kitchen"}),
            ("Records Office", {"type": "office", "windows": 2}),
        ),
    ),
    "community centre": (
        "A neighbourhood centre with a hall, a kitchen and a garden shed.",
        (
            ("Main Hall", {"type": "hall", "stage": True}),
            ("Community Kitchen", {"type": "kitchen", "stoves": 2}),
            ("Garden Shed", {"type": "storage", "floor": "gravel"}),
            ("Craft Room", {"type": "classroom", "tables": 5}),
        ),
    ),
    "startup office": (
        "An office on two floors of an old mill.",
        (
            ("Open Plan Floor", {"type": "office", "desks": 24}),
            ("Server Closet", {"type": "technical", "cooling": "split unit"}),
            ("Break Room", {"type": "kitchen", "coffee_machine": True}),
            ("Meeting Loft", {"type": "meeting", "capacity": 12}),
        ),
    ),
}

COLORS = ("red", "blue", "green", "grey", "black", "white", "yellow", "orange")

#: How task texts describe an object whose attribute has the value a verb needs.
ADJECTIVES: dict[str, str] = {
    "is_dirty": "dirty",
    "is_broken": "broken",
    "is_calibrated": "uncalibrated",
    "is_loose": "wobbly",
    "is_charged": "flat",
    "is_labeled": "unlabelled",
    "is_sealed": "unsealed",
    "is_watered": "thirsty",
    "is_polished": "tarnished",
    "is_sharp": "blunt",
    "is_locked": "locked",
    "is_sterile": "unsterilised",
    "is_inflated": "deflated",
}
