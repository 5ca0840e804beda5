"""Write the generated LongAct pack: 300 long-horizon episodes over the four scenarios, oracle-validated.

    python -m suite_longact.pack.generate [--seed 14] [--episodes 300] [--out plugins/longact/suite_longact/pack/data]
        [--workers 2] [--audit-every 10]

Following the paper's pipeline (a house and a scenario; the objects and their desired states; a multi-goal
workflow with its final-state checklist; verification), with the model and the annotators replaced by seeded
templates and the verification by the privileged oracle: an episode is kept only when no shortcut baseline
scores on it (nothing holds at step 0; flipping every switch and openable stays under the flipper's ceiling; a
reader of the goals' object types alone stays under its bound, `pack.ambiguity`) and the oracle solves it
without side effects, and the oracle's raw step count is recorded with it. Houses are independent (worked on in
parallel) and regenerated from their seed by the household generator at run time; the pack records each house's
fingerprint so a changed generator is caught. PACK.json records the pack's figures and a rendered audit of every
n-th episode by the wandering baselines.
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
from pathlib import Path
from typing import Any

from suite.contract.records import Task
from suite.engine.loop import TraceSink, run_episode
from suite_household.catalog import TYPES
from suite_household.world import World

from suite_longact.baselines import BASELINE_STEPS, CEILINGS, flip_everything
from suite_longact.checklist import Checklist, Item, holds
from suite_longact.houses import fingerprint, house_scene
from suite_longact.pack.ambiguity import MAX_BOUND, reader_bound
from suite_longact.pack.goals import GOALS, TEMPLATES, Scene, compose, instructions
from suite_longact.vocabulary import SCENARIO_TITLES, SCENARIOS

OUT = Path(__file__).parent / "data"
GENERATOR_VERSION = "3"
#: the figures of earlier generator versions, kept in the manifest for the record
PREVIOUS = {
    "2": {"built": "2026-11-25",
          "episodes.json sha256": "cbe25fe3e2170205f7473180d11e787a5c8b97a8aee4b95d42cc044b46cd96e2",
          "keyword": "a reader of each clause's verb and object types alone (suite_longact.keywords, blind wandering, "
                     "no image) scored GC-SE 17.8 % over 10 episodes at the full 16,000 steps and 20.0 [12.0, 28.1] "
                     "over 8 in the audit; the issue's reader 13.9 [4.8, 23.0] at 3,000 steps (issue 34). Goal "
                     "objects were often the only one of their type, and look-alikes were set in both states, so "
                     "acting on every instance of a type cost little",
          "reader bound": "a reader of types alone that reaches everything: GC-SE 57.3 % (pack.ambiguity)"},
}
PACK_FILE = "episodes.json"
MANIFEST = "PACK.json"
EPISODES_PER_HOUSE = 3
#: houses drawn per round (fixed, so the pack and its dropped-draw counts do not depend on --workers)
HOUSE_BATCH = 12
#: extra objects per room type, drawn per house (EXTRA_COUNTS of them): look-alikes of the goal types, so that a
#: goal's object has same-type objects elsewhere that only its referring expression tells apart, and receptacles
#: of the goal's destination types in other rooms (issue 34: what the instruction's types alone give away)
EXTRAS = {"Kitchen": ["Mug", "Book", "Cup", "Plate", "Laptop", "Candle", "Apple", "Tomato", "Bread", "Potato",
                      "Lettuce", "Egg", "Kettle", "Pan", "DishSponge", "WineBottle", "SaltShaker", "PepperShaker",
                      "Bowl", "Spoon", "Fork", "Cup", "Plate", "Bowl", "Tomato", "Apple"],
          "LivingRoom": ["Mug", "Book", "Pillow", "Newspaper", "FloorLamp", "DeskLamp", "Laptop", "Candle",
                         "RemoteControl", "TissueBox", "Vase", "Statue", "Watch", "CellPhone", "CD", "Desk",
                         "DiningTable", "Dresser", "Television", "Cup", "Plate", "BasketBall", "TeddyBear", "FloorLamp",
                         "Television", "Curtains"],
          "Bedroom": ["Book", "Pen", "Mug", "RemoteControl", "DeskLamp", "Laptop", "Candle", "Pencil",
                      "AlarmClock", "CD", "CellPhone", "Watch", "CreditCard", "TeddyBear", "BasketBall", "KeyChain",
                      "Statue", "Vase", "TissueBox", "CoffeeTable", "Curtains", "Newspaper", "Pillow", "Cloth",
                      "FloorLamp", "Television", "BasketBall"],
          "Bathroom": ["Cloth", "Book", "Candle", "SprayBottle", "TissueBox", "DishSponge", "Blinds"]}
EXTRA_COUNTS = {"Kitchen": 12, "LivingRoom": 12, "Bedroom": 12, "Bathroom": 4}
#: groceries and cookware a kitchen holds three of: PANTRY_TYPES of them drawn per house, two more of each
PANTRY = ("Apple", "Tomato", "Bread", "Potato", "Lettuce", "Egg", "WineBottle", "Kettle", "Pan", "SaltShaker",
          "PepperShaker", "Spoon", "Fork", "Bowl")
PANTRY_TYPES = 5


#: room types besides the kitchen a house draws from (at most two of each), and how many rooms a house has
OTHER_ROOMS = ("LivingRoom", "Bedroom", "Bathroom") * 2
ROOM_COUNTS = (3, 4, 4, 5, 5, 6)


def house_spec(h: int, seed: int) -> dict[str, Any]:
    """The h-th house: a seed, 3 to 6 rooms (a kitchen and a draw of living rooms, bedrooms and bathrooms, at
    most two of each) in a shuffled grid order, and its extra objects (look-alikes, receptacles, a pantry)."""
    rng = random.Random(f"{seed}:house:{h}")
    rooms = ["Kitchen", *rng.sample(OTHER_ROOMS, rng.choice(ROOM_COUNTS) - 1)]
    rng.shuffle(rooms)
    extras = {rt: rng.sample(EXTRAS[rt], EXTRA_COUNTS[rt]) for rt in sorted(set(rooms))}
    extras["Kitchen"] += [t for t in rng.sample(PANTRY, PANTRY_TYPES) for _ in range(2)]
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
    if reader_bound(world, entry["checklist"]) > MAX_BOUND:
        return "a reader of the goals' types alone above its bound"
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
            "flip_all": {"gc_se": cl.gc_side_effects(flipped), "gc": cl.gc},
            "reader_bound": reader_bound(world, entry["checklist"])}


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
    manifest = {"generator": "python -m suite_longact.pack.generate", "generator_version": GENERATOR_VERSION,
                "seed": args.seed, "previous_versions": PREVIOUS,
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
    audit["type-reader bound"] = {"gc_se": _pct([f["reader_bound"] for f in facts]), "episodes": len(episodes),
                                  "max_per_episode": round(100 * MAX_BOUND, 2)}
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
