"""Write the generated AsgardBench pack: plans in the benchmark's format, our own scenes, oracle-validated.

    python -m suite_asgard.pack.generate [--seed 0] [--out plugins/asgard/suite_asgard/pack/data]

As the paper's generator did (A.3): for every task type and every variation of it, pick a compatible scene
and a seed, set the variation up, run the oracle, and keep the plan only when the oracle solves it; the
oracle's solution length is the plan's `step_count` N. The FloorPlan inventories are our own (the household
simulator's default rooms, varied per scene with the seed) and are written to `inventories.json` beside
the plans, so the pack needs no upstream file. The mix of task types follows the paper's Table 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suite.contract.records import Task
from suite.engine.loop import TraceSink, run_episode
from suite_household.generator import default_inventory

from suite_asgard.conditions import Condition
from suite_asgard.inventory import scene_inventory
from suite_asgard.oracle import OracleAgent
from suite_asgard.plans import PACK_MANIFEST, plan_from_dict
from suite_asgard.vocabulary import DISHES, SILVERWARE, SLICED_FORM, step_limits, task_type

OUT = Path(__file__).parent / "data"
KITCHENS = [f"FloorPlan{n}" for n in range(1, 31) if n not in (8, 9, 17)]
LIVING_ROOMS = [f"FloorPlan{n}" for n in range(201, 231)]
BATHROOMS = [f"FloorPlan{n}" for n in range(401, 431)]
CLEANUP = [("CoffeeMachine", "isToggled"), ("Toaster", "isToggled"), ("StoveKnob", "isToggled"),
           ("Microwave", "isOpen"), ("Fridge", "isOpen"), ("Faucet", "isToggled")]
KITCHEN_EXTRAS = ["Vase", "Statue", "SprayBottle", "Bottle", "AluminumFoil", "CreditCard", "Book", "CellPhone",
                  "Pen", "Pencil", "HousePlant"]
FOODS = ["Apple", "Bread", "Egg", "Lettuce", "Potato", "Tomato"]
ATTEMPTS = 12
UNLIMITED = 500


@dataclass
class Spec:
    """A plan to be: its name parts, description, scene kind, targets, setup and goals."""

    family: str
    variation: str
    description: str
    rooms: list[str]
    targets: list[str]
    distractors: dict[str, Any]
    setup: list[tuple[str, str, str | None]] = field(default_factory=list)
    state: list[tuple[str, str, bool]] = field(default_factory=list)
    location: list[tuple[str, str]] = field(default_factory=list)
    put_away: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    contents: list[tuple[str, list[str]]] = field(default_factory=list)
    suffix: str = ""
    containers: list[str] | None = None


def _kitchen_distractors(*classes: str) -> dict[str, Any]:
    return {"object_specifier": _specifier(classes=list(classes)), "container_specifier": None}


def _specifier(types: list[str] | None = None, classes: list[str] | None = None) -> dict[str, Any]:
    return {"names": None, "types": types, "classes": classes, "secondary_names": None, "secondary_types": None,
            "preferred_name": None, "all": False}


def _dirty(spec: Spec, otype: str) -> None:
    spec.setup.append(("dirty", otype, None))
    spec.state.append((otype, "isDirty", False))


def _variant(parts: list[str]) -> str:
    return "_".join(p for p in parts if p)


def specs(rng: random.Random) -> list[Spec]:
    """Every plan to try, in the paper's mix: 9, 6, 12, 6, 12, 3, 15, 3, 27, 9, 3, 3 per task type."""
    out: list[Spec] = []
    kitchen = _kitchen_distractors("Kitchen", "Silverware", "Food")
    for variation in ["Mug(d)", "empty", "has_coffee"] * 3:
        spec = Spec("coffee", variation, "Prepare a mug of coffee, drink it, then wash and store the mug.",
                    KITCHENS, ["Mug", "DishSponge"], kitchen, state=[("Mug", "isDirty", False),
                                                                      ("Mug", "isFilledWithLiquid", False)],
                    put_away=["Mug"], actions=["Drink Coffee"])
        spec.setup.append({"Mug(d)": ("dirty", "Mug", None), "empty": ("empty", "Mug", None),
                           "has_coffee": ("fill", "Mug", "coffee")}[variation])
        out.append(spec)
    cook = {"Potato": ("Microwave a potato and serve it in a bowl", "Potato", "Bowl", ["Bowl"]),
            "Egg": ("Cook an egg in a pan and serve it on a plate.", "EggCracked", "Plate", ["Pan", "Plate"]),
            "Bread": ("Make a slice of toast and serve it on a plate", "BreadSliced", "Plate", ["Plate"]),
            "PotatoSliced": ("Fry a potato slice and serve it on a plate", "PotatoSliced", "Plate",
                             ["Pan", "Plate"])}
    counts = {"Potato": 6, "Egg": 12, "Bread": 6, "PotatoSliced": 12}
    for food, (text, served, dish, dirtyable) in cook.items():
        options: list[list[str]] = [[]] + [[d] for d in dirtyable] + ([dirtyable] if len(dirtyable) > 1 else [])
        for k in range(counts[food]):
            dirty = options[k % len(options)]
            raw = "Potato" if food == "PotatoSliced" else food
            spec = Spec("cook", _variant([food, *(f"{d}(d)" for d in dirty)]), text, KITCHENS,
                        [raw, "DishSponge", "Pan", "Plate", "Bowl", "Knife"], kitchen,
                        state=[(food, "isCooked", True)], location=[(served, dish)])
            for d in dirty:
                _dirty(spec, d)
            out.append(spec)
    groups = {"Food": (FOODS, 3, "Fridge"), "Dishes": (sorted(DISHES | {"Pot"}), 15, "Cabinet"),
              "Silverware": (sorted(SILVERWARE), 3, "Drawer")}
    for group, (members, count, _) in groups.items():
        others = [c for g, (m, _, _) in groups.items() if g != group for c in m]
        for _ in range(count):
            items = rng.sample(members, rng.randint(2, min(4, len(members))))
            dirty = [rng.choice(items)] if group == "Dishes" and rng.random() < 0.6 else []
            spec = Spec("putaway", _variant([group, *(f"{d}(d)" for d in dirty)]),
                        f"Put away the {_listing(items)}", KITCHENS, ["DishSponge", *members],
                        {"object_specifier": _specifier(classes=["Kitchen", *others]), "container_specifier": None},
                        put_away=items, suffix="-" + " ".join(items))
            for d in dirty:
                _dirty(spec, d)
            out.append(spec)
    for k in range(27):
        food = ["Apple", "Lettuce", "Tomato"][k % 3]
        chosen = rng.sample(["Plate", "Bowl", "Pan", "Pot"], rng.randint(1, 3))
        dirty = [rng.choice([c for c in chosen if c != "Pan"] or chosen)] if rng.random() < 0.5 else []
        spec = Spec("distribute", _variant([food, *(f"{c}(d)" if c in dirty else c for c in chosen)]),
                    f"Slice the {food} and put a piece in the {_listing(chosen)}", KITCHENS,
                    [food, "DishSponge", "Knife", "Pan", "Plate", "Bowl", "Pot"],
                    _kitchen_distractors("Kitchen", "Silverware"),
                    location=[(SLICED_FORM[food], c) for c in chosen])
        for d in dirty:
            _dirty(spec, d)
        out.append(spec)
    for variation in ["Mug(d)", "empty", "has_coffee"] * 3:
        spec = Spec("settable", variation,
                    "Clear the dining table and set it with a mug of coffee and slice of toast", KITCHENS,
                    ["DishSponge", "Mug", "Plate", "Bread", "Knife"], kitchen,
                    state=[("Mug", "isFilledWithLiquid", True)], location=[("BreadSliced", "Plate")],
                    contents=[("DiningTable", ["Mug", "Plate", "BreadSliced"])])
        if variation == "Mug(d)":
            _dirty(spec, "Mug")
        else:
            spec.setup.append(("empty", "Mug", None) if variation == "empty" else ("fill", "Mug", "coffee"))
        out.append(spec)
    for _ in range(3):
        spec = Spec("clean_mirror", "", "Clean the mirror", BATHROOMS, ["Cloth", "SprayBottle"],
                    {"object_specifier": _specifier(types=["Candle", "DishSponge", "HousePlant", "PaperTowelRoll",
                                                           "Plunger", "ScrubBrush", "SoapBar", "SoapBottle"]),
                     "container_specifier": _specifier(types=["CounterTop", "Floor", "Shelf"])},
                    actions=["Spray Mirror"])
        _dirty(spec, "Mirror")
        out.append(spec)
    for _ in range(3):
        out.append(Spec("turn_on_tv", "", "Turn on the television", LIVING_ROOMS, ["RemoteControl"],
                        {"object_specifier": _specifier(types=["Book", "CellPhone", "CreditCard", "KeyChain",
                                                               "Pillow", "TissueBox", "Watch"]),
                         "container_specifier": _specifier(types=["Shelf", "Sofa", "SideTable"])},
                        state=[("Television", "isToggled", True)],
                        containers=["CoffeeTable", "Shelf", "SideTable", "TVStand"]))
    return out


def _listing(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def scene_names(scene: str, rng: random.Random) -> list[str]:
    """Our own inventory of a FloorPlan: a default room of its type, varied with the seed, named Type_hash."""
    number = int(scene.removeprefix("FloorPlan"))
    room = {0: "Kitchen", 2: "LivingRoom", 4: "Bathroom"}[number // 100]
    types = default_inventory(room)
    if room == "Kitchen":
        types = [t for t in types if t != "Cabinet"] + ["Cabinet"] * rng.randint(5, 10)
        types = [t for t in types if t != "Drawer"] + ["Drawer"] * rng.choice([3, 6])
        types += rng.sample(KITCHEN_EXTRAS, rng.randint(1, 4))
    return [f"{t}_{rng.getrandbits(32):08x}" for t in types]


def plan_dict(spec: Spec, scene: str, names: list[str], seed: int, rng: random.Random) -> dict[str, Any]:
    """The plan.json content (step_count filled in once the oracle solved it)."""
    by_type = {n.rsplit("_", 1)[0]: n for n in names}
    kitchen = scene in KITCHENS
    state = ([(t, s, False) for t, s in CLEANUP] if kitchen else []) + spec.state
    outcome = {"outcome": "success"}
    return {
        "name": f"{spec.family}__{_variant([spec.variation, scene])}_V1{spec.suffix}",
        "task_description": spec.description,
        "scene": scene,
        "plan_type": "generated",
        "task_failed": False,
        "setup_actions": [{"action": a, "object_name": by_type.get(t, t), "argument": arg} for a, t, arg in spec.setup],
        "object_setup": {
            "target_setup": {"object_specifier": _specifier(types=spec.targets),
                             "container_specifier": _specifier(types=spec.containers) if spec.containers else None},
            "distractor_setups": [spec.distractors],
            "employed_types": list(spec.targets),
        },
        "goal": {
            "location_goals": [{"object_type": o, "destination_type": d, **outcome} for o, d in spec.location],
            "state_goals": [{"object_type": t, "state": s, "value": v, **outcome} for t, s, v in state],
            "put_away_goals": [{"object_type": t, **outcome} for t in spec.put_away],
            "action_goals": {a: True for a in spec.actions},
            "contents_goals": [{"container_type": c, "contents": items, **outcome} for c, items in spec.contents],
        },
        "randomization": {"seed": seed, "error_injection": None, "fail_action": None},
        "step_count": 1,
        "initial_pose": {"position": {"x": 0.0, "y": 0.901, "z": 0.0}, "rotation": float(rng.choice((0, 90, 180, 270))),
                         "isStanding": True, "horizon": 30.0},
    }


def oracle_steps(data: dict[str, Any], names: list[str]) -> int | None:
    """The oracle's solution length for a candidate plan, or None when it does not solve it."""
    plan = plan_from_dict({**data, "step_count": UNLIMITED}, data["name"], data["name"])
    inventory, _ = scene_inventory(plan, {plan.scene: names})
    condition = Condition("text_only", images="none", hand_opacity=0.0).to_dict()
    task = Task("asgard", plan.id, {"plan": plan, "inventory": inventory, "objects": [], "condition": condition,
                                    "prompt": {}, "generated": True, "repeat": 1},
                category=plan.task_type, max_steps=step_limits(UNLIMITED)[1])
    from suite_asgard.env import household_env

    class Host:
        """Just enough of a plugin host for one oracle episode."""

        def call(self, hook: str, benchmark: str, **kwargs: Any) -> Any:
            if hook == "make_env":
                return household_env(kwargs["task"], {"image_size": 64})
            from suite_asgard import scoring

            return scoring.settle(kwargs["task"], kwargs["trajectory"], kwargs["env"])

    try:
        result = asyncio.run(run_episode(Host(), task, OracleAgent(), {}, TraceSink()))
    except Exception:  # noqa: BLE001 - a scene the generator cannot lay out is simply discarded
        return None
    return len(result.trajectory.steps) if result.settlement.outcome == "success" else None


def generate(out: Path, seed: int) -> dict[str, int]:
    """Write the pack; returns plans kept per task type."""
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    inventories: dict[str, list[str]] = {}
    kept: dict[str, int] = {}
    used: set[str] = set()
    for spec in specs(rng):
        for _ in range(ATTEMPTS):
            scene = rng.choice(spec.rooms)
            names = inventories.get(scene) or scene_names(scene, random.Random(f"{seed}:{scene}"))
            data = plan_dict(spec, scene, names, rng.randrange(1000, 10000), rng)
            if data["name"] in used:
                continue
            steps = oracle_steps(data, names)
            if steps is None:
                continue
            data["step_count"] = steps
            folder = out / f"{data['name']} [{steps}]"
            folder.mkdir()
            (folder / "plan.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
            inventories[scene] = names
            used.add(data["name"])
            kind = task_type(data["name"]) or spec.family
            kept[kind] = kept.get(kind, 0) + 1
            break
    (out / "inventories.json").write_text(json.dumps({"names": dict(sorted(inventories.items()))}, indent=1) + "\n",
                                          encoding="utf-8")
    manifest = {"benchmark": "asgard", "kind": "generated", "generator": "python -m suite_asgard.pack.generate",
                "seed": seed, "plans": sum(kept.values()), "per_task_type": kept,
                "note": "our own plans and FloorPlan inventories in the AsgardBench format; not the paper's 108 plans"}
    (out / PACK_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return kept


def main(argv: list[str] | None = None) -> int:
    """Command line: write the pack and print what was kept."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    kept = generate(args.out, args.seed)
    print(json.dumps(kept, indent=1), f"\n{sum(kept.values())} plans written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
