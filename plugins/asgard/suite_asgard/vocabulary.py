"""AsgardBench's words: the 12 actions, object categories, storage homes and the 12 task types."""

from __future__ import annotations

from suite_household.catalog import SLICED_INTO

#: The high-level actions, in the order the prompt lists them.
ACTIONS = (
    "CLEAN", "CLOSE", "EMPTY", "DRINK", "FIND", "OPEN", "PICKUP", "PUT", "SLICE", "SPRAY", "TOGGLE_ON", "TOGGLE_OFF",
)

#: Types removed from the agent's object list: confusable with another type, or switched through another object.
HIDDEN_TYPES = frozenset({"PepperShaker", "StoveKnob"})
#: Types a sanitised scene never contains (the paper removes the PepperShaker, confusable with the SaltShaker).
REMOVED_TYPES = frozenset({"PepperShaker"})

#: What SLICE turns each sliceable type into (an Egg cracks into one EggCracked).
SLICED_FORM = {whole: piece for whole, (piece, _) in SLICED_INTO.items()}
SLICE_TARGETS = tuple(sorted(SLICED_FORM))

FOOD = frozenset({"Apple", "Bread", "Egg", "Lettuce", "Potato", "Tomato"} | set(SLICED_FORM.values()))
SILVERWARE = frozenset({"ButterKnife", "Fork", "Knife", "Ladle", "Spatula", "Spoon"})
DISHES = frozenset({"Bowl", "Cup", "Mug", "Plate"})
COOKWARE = frozenset({"Pan", "Pot", "Kettle"})
#: Containers a food item can be served or cooked in; a piece inside one of these is not "loose".
SERVING = frozenset({"Bowl", "Cup", "Mug", "Plate", "Pan", "Pot", "Toaster"})

#: Where a put-away goal accepts each type: the harness's preferred homes, then its secondary ones (a Cup
#: also on a SideTable, DiningTable or CounterTop; a Pot also on a DiningTable, SideTable or in a Cabinet; a
#: Pan also on a StoveBurner, DiningTable or SideTable; a Ladle also in a Cabinet). The first is where the
#: oracle puts things.
STORAGE: dict[str, tuple[str, ...]] = {
    **{t: ("Fridge",) for t in FOOD},
    **{t: ("Drawer",) for t in SILVERWARE},
    "Ladle": ("Drawer", "Cabinet"),
    **{t: ("Cabinet",) for t in DISHES},
    "Cup": ("Cabinet", "SideTable", "DiningTable", "CounterTop"),
    "Pot": ("CounterTop", "DiningTable", "SideTable", "Cabinet"),
    "Pan": ("CounterTop", "StoveBurner", "DiningTable", "SideTable"),
    "Kettle": ("CounterTop",),
}

#: The 12 task types (Table 1), keyed by our short names, with the plan-folder family they come from.
TASK_TYPES: dict[str, str] = {
    "coffee": "Consume coffee from a mug, then wash and store the mug",
    "microwave_potato": "Microwave a potato and serve it in a bowl",
    "cook_egg": "Cook an egg in a pan and serve it on a plate",
    "toast": "Make a slice of toast and serve it on a plate",
    "fry_potato_slice": "Fry a potato slice and serve it on a plate",
    "putaway_food": "Put away the {Food}",
    "putaway_dishes": "Put away the {Dishes}",
    "putaway_silverware": "Put away the {Silverware}",
    "slice_and_distribute": "Slice the {Lettuce/Apple/Tomato} and put a piece in the {Plate/Bowl/Pan/Pot}",
    "set_table": "Clear the dining table and set it with a mug of coffee and a slice of toast",
    "clean_mirror": "Clean the mirror",
    "turn_on_tv": "Turn on the television",
}
_COOK_TYPES = {"Potato": "microwave_potato", "Egg": "cook_egg", "Bread": "toast", "PotatoSliced": "fry_potato_slice"}
_FAMILY_TYPES = {"coffee": "coffee", "distribute": "slice_and_distribute", "settable": "set_table",
                 "clean_mirror": "clean_mirror", "turn_on_tv": "turn_on_tv"}


def task_type(name: str) -> str | None:
    """The task type of a plan from its name (`<family>__<variation>_<FloorPlan>_V1`), or None."""
    family, sep, rest = name.partition("__")
    if not sep:
        return None
    if family == "cook":
        return _COOK_TYPES.get(rest.split("_", 1)[0])
    if family == "putaway":
        kind = rest.split("_", 1)[0].split("-", 1)[0].lower()
        return f"putaway_{kind}" if f"putaway_{kind}" in TASK_TYPES else None
    return _FAMILY_TYPES.get(family)


def step_limits(n: int) -> tuple[int, int]:
    """(soft, hard) step limits from the reference solution length N: max(int(1.5N), 15), max(int(2N), 20)."""
    return max(int(n * 1.5), 15), max(int(n * 2.0), 20)
