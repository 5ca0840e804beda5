"""Probe the pack with blind policies beyond (and including) the declared baselines: B per family with 95 % intervals.

`python plugins/vigil/scripts/probe_blind.py [--families VS,DA] [--per-family 125] [--workers 2] [--json]`.

Every policy here is a fixed routine of the instruction's wording and the step budget (it never reads the image):
walk k metres then spin either way (k = 0-5), spin then walk, square and wall-following walks, seeded random walks
with periodic spins, turn-then-walk and zigzag approaches, a click at any point of a 7x7 grid, clicks chosen per
target word, SV labels guessed from the wording (fixed, or the leave-one-out majority label of the question's
words), and walk/turn/act routines for the families whose world must change. For every routine the probe also
reports its best cut: the same routine stopped after step k and reporting success, for the best k (one play gives
every k, as the goal is tracked after every step). It is the adversary the pack generator is measured against:
the strongest routines it finds are declared in `suite_vigil.baselines` and rejected against while generating.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from omegaconf import OmegaConf
from suite.engine.host import default_config
from suite_vigil import baselines
from suite_vigil.plugin import PACK_DIR, load_tasks
from suite_vigil.vocabulary import FAMILY_CODES

Action = dict[str, Any]
Policy = Callable[[str, int, int], Action]


def F(n: int = 4) -> Action:
    """Forward n grid steps (0.25 m each)."""
    return {"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": n}}


def T(deg: float) -> Action:
    """Turn right (deg > 0) or left (deg < 0)."""
    mode = "turn_right" if deg > 0 else "turn_left"
    return {"skill_name": "navigate", "arguments": {"mode": mode, "magnitude": abs(deg)}}


def LOOK(deg: float) -> Action:
    """Look down (deg > 0) or up (deg < 0)."""
    return {"skill_name": "look", "arguments": {"direction": "down" if deg > 0 else "up", "magnitude": abs(deg)}}


def C(intent: str, x: int = 320, y: int = 240) -> Action:
    """Act on the pixel (x, y)."""
    return {"skill_name": "interact_pixel", "arguments": {"intent": intent, "x": x, "y": y}}


def sequence(make: Callable[[str, int], list[Action]]) -> Policy:
    """A policy playing `make(instruction, budget)` step by step, reporting success at the last step or when done."""
    cache: dict[tuple[str, int], list[Action]] = {}

    def policy(instruction: str, max_steps: int, step: int) -> Action:
        key = (instruction, max_steps)
        if key not in cache:
            cache[key] = make(instruction, max_steps)
        acts = cache[key]
        if step >= max_steps - 1 or step >= len(acts):
            return {"skill_name": "report", "arguments": {"status": "success", "summary": "done"}}
        return acts[step]
    return policy


def walk_then_spin(metres: int, turn: float) -> Policy:
    """k one-metre moves straight on, then turns of `turn` degrees on the spot."""
    return sequence(lambda i, b: [F(4)] * metres + [T(turn)] * b)


def spin_then_walk(turn: float, metres: int) -> Policy:
    """A full circle on the spot, then `metres` one-metre moves, then another circle, and so on."""
    n = round(360 / abs(turn))
    return sequence(lambda i, b: ([T(turn)] * n + [F(4)] * metres) * b)


def square(side: int, turn: float) -> Policy:
    """Walk `side` metres, turn 90 degrees, and again (with a quick look round after each side)."""
    return sequence(lambda i, b: ([F(4)] * side + [T(turn), T(turn), T(-turn)]) * b)


def wall_follow(turn: float) -> Policy:
    """Walk 2 m, turn 90 degrees, walk 2 m, turn ... (a blind sweep of a room's walls and doors)."""
    return sequence(lambda i, b: [F(8), T(turn)] * b)


def random_walk(seed: int, spin_every: int = 4) -> Policy:
    """A random walk seeded by the instruction: moves of 0.5-2 m and turns of 45-180 degrees either way, with a
    circle of 45 degree turns every `spin_every` moves."""
    def make(instruction: str, budget: int) -> list[Action]:
        rng = random.Random(zlib.crc32(instruction.encode()) + 7919 * seed)
        out: list[Action] = []
        while len(out) < budget:
            for _ in range(spin_every):
                out += [T(rng.choice((-1, 1)) * rng.choice((45, 90, 135, 180))), F(rng.choice((2, 4, 6, 8)))]
            out += [T(45)] * 8
        return out
    return sequence(make)


def turn_then_walk(deg: float, step: int = 1) -> Policy:
    """Turn `deg` degrees once, then walk straight on `step` grid steps at a time."""
    return sequence(lambda i, b: [T(deg)] + [F(step)] * b if deg else [F(step)] * b)


def zigzag(deg: float) -> Policy:
    """Walk 0.5 m, turn `deg`, walk 0.5 m, turn back twice as far, ... (a blind weave toward what is ahead)."""
    return sequence(lambda i, b: [F(2), T(deg), F(2), T(-2 * deg), F(2), T(deg)] * b)


def click(x: int, y: int, look: float = 0.0) -> Policy:
    """PG: (look first, then) ground pixel (x, y), then report success."""
    return sequence(lambda i, b: ([LOOK(look)] if look else []) + [C("ground", x, y)])


def walk_act(metres: int, points: tuple[tuple[int, int], ...] = ((320, 240),)) -> Policy:
    """Walk `metres` one-metre moves, then act with the instruction's intent at each point, step 0.25 m, again."""
    def make(instruction: str, budget: int) -> list[Action]:
        intent = baselines.intent_of(instruction)
        return [F(4)] * metres + ([C(intent, x, y) for x, y in points] + [F(1)]) * budget
    return sequence(make)


def spin_act(turn: float, walk: int) -> Policy:
    """Act at the centre, turn, act, ... a full circle, then walk `walk` metres, and again."""
    def make(instruction: str, budget: int) -> list[Action]:
        intent = baselines.intent_of(instruction)
        n = round(360 / abs(turn))
        return ([C(intent), T(turn)] * n + [F(4)] * walk) * budget
    return sequence(make)


def random_act(seed: int) -> Policy:
    """A random walk seeded by the instruction that acts with its intent at the centre (or a third) between moves."""
    def make(instruction: str, budget: int) -> list[Action]:
        rng = random.Random(zlib.crc32(instruction.encode()) + 104729 * seed)
        intent = baselines.intent_of(instruction)
        out: list[Action] = []
        while len(out) < budget:
            out += [rng.choice((F(2), F(4), T(45), T(-45), T(90))),
                    C(intent, rng.choice((213, 320, 427)), rng.choice((240, 320, 400)))]
        return out
    return sequence(make)


def pick_place_routine(metres: int) -> Policy:
    """SM: open and pick at the centre, walk, place at the centre and the lower third, turn, and again."""
    return sequence(lambda i, b: ([C("open_access"), C("pick")] + [F(4)] * metres
                                  + [C("place"), C("place", 320, 360), T(90)]) * b)


def label(first: bool) -> Policy:
    """SV: report the first (on/open) or the second (off/closed) label of the question at once."""
    def policy(instruction: str, max_steps: int, step: int) -> Action:
        on = " on or off" in instruction.lower()
        status = ("on" if first else "off") if on else ("open" if first else "closed")
        return {"skill_name": "report", "arguments": {"status": status, "summary": "guess"}}
    return policy


GRID = tuple((x, y) for y in (60, 120, 180, 240, 300, 360, 420) for x in (80, 160, 240, 320, 400, 480, 560))


def probes() -> dict[str, tuple[str, Policy]]:
    """Every probe by name: (family, policy). PG's grid clicks are scored apart (`grid_clicks`)."""
    out: dict[str, tuple[str, Policy]] = {}
    for f, b in baselines.BY_NAME.items():
        for fam in (b.families or ()):
            out[f"declared:{f}"] = (fam, b.policy)
    for k in range(6):
        out[f"VS walk{k}m-spin+45"] = ("VS", walk_then_spin(k, 45))
    out["VS walk2m-spin-45"] = ("VS", walk_then_spin(2, -45))
    out["VS walk2m-spin+90"] = ("VS", walk_then_spin(2, 90))
    out["VS spin+45-walk2m"] = ("VS", spin_then_walk(45, 2))
    out["VS square2m"] = ("VS", square(2, 90))
    out["VS wall-follow+90"] = ("VS", wall_follow(90))
    for seed in range(2):
        out[f"VS random-walk-spin s{seed}"] = ("VS", random_walk(seed))
    out["VS look-up-spin"] = ("VS", sequence(lambda i, b: [LOOK(-30)] + [T(45)] * b))
    out["VS about-face-walk2m-spin"] = ("VS", sequence(lambda i, b: [T(180), F(4), F(4)] + [T(45)] * b))
    for deg in (10, -10, 20, -20, 30, -30):
        out[f"DA turn{deg:+d}-walk"] = ("DA", turn_then_walk(deg, 1))
    for deg in (20, -20):
        out[f"DA zigzag{deg:+d}"] = ("DA", zigzag(deg))
    out["DA random-walk s0"] = ("DA", random_walk(0, spin_every=6))
    for look in (15, 30, -15):
        out[f"PG look{look:+d}-click320,240"] = ("PG", click(320, 240, look))
    out["SV label on/open"] = ("SV", label(True))
    out["SV label off/closed"] = ("SV", label(False))
    for fam in ("AI", "SI", "SM", "CR"):
        out[f"{fam} walk1m-act-thirds"] = (fam, walk_act(1, ((320, 240), (213, 320), (427, 320))))
        out[f"{fam} spin-act"] = (fam, spin_act(45, 1))
        out[f"{fam} random-act s0"] = (fam, random_act(0))
    out["SM pick-place1m"] = ("SM", pick_place_routine(1))
    return out


def grid_clicks(data_dir: str, n: int) -> dict[str, list[tuple[bool, list[bool]]]]:
    """PG: ground each point of GRID, then report: per point and episode, whether that solves it. One reset per
    episode answers every point, by the env's own rule for a grounding click (the instance under the pixel, within
    reach) and PG's goal (the last grounding click names the target)."""
    from suite_vigil import goals
    from suite_vigil.plugin import make_env

    out: dict[str, list] = {f"PG click{x},{y}": [] for x, y in GRID}
    for t in _load(data_dir)["PG"][:n]:
        env = make_env("vigil", t, None)
        env.skip_images()
        env.reset()
        target = t.data["episode"]["success_spec"]["target"]
        near = env.sim.distance(target) <= goals.NEAR
        for x, y in GRID:
            hit = near and env.sim.object_at(x, y) == target
            out[f"PG click{x},{y}"].append((hit, [hit]))
        env.close()
    return out


def wilson(wins: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson interval of a proportion, in percent."""
    if not n:
        return (0.0, 0.0)
    z, p = 1.96, wins / n
    mid, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    d = 1 + z * z / n
    return (max(0.0, round(100 * (mid - half) / d, 1)), min(100.0, round(100 * (mid + half) / d, 1)))


_TASKS: dict[str, list] = {}


def _load(data_dir: str) -> dict[str, list]:
    if not _TASKS:
        cfg = OmegaConf.merge(default_config(["vigil"]).vigil, {"data_dir": data_dir})
        for t in load_tasks("vigil", cfg):
            _TASKS.setdefault(t.category, []).append(t)
    return _TASKS


def _run(name: str, data_dir: str, n: int) -> tuple[str, list[tuple[bool, list[bool]]]]:
    family, policy = probes()[name]
    out = []
    for t in _load(data_dir)[family][:n]:
        settlement, goals = baselines.play(t, policy)
        out.append((bool(settlement.metrics["B"]), goals))
    return name, out


def summarise(family: str, results: list[tuple[bool, list[bool]]]) -> dict[str, Any]:
    """B with its interval, and the best cut (stopped after step k and reporting success)."""
    n = len(results)
    wins = sum(b for b, _ in results)
    out: dict[str, Any] = {"family": family, "n": n, "B": round(100 * wins / n, 1), "ci": wilson(wins, n)}
    if family != "SV":
        longest = max(len(g) for _, g in results)
        cuts = [sum(len(g) > k and g[k] for _, g in results) for k in range(longest)]
        k = max(range(longest), key=lambda j: cuts[j])
        out.update(best_cut_step=k + 1, best_cut_B=round(100 * cuts[k] / n, 1), best_cut_ci=wilson(cuts[k], n))
    return out


def word_priors(tasks: dict[str, list], n: int) -> dict[str, dict[str, Any]]:
    """SV labels guessed from the question's words, leave-one-out: the majority label among the other episodes
    with the same key (the target word with or without "in view", the property, the whole question)."""
    eps = [t.data["episode"] for t in tasks.get("SV", [])[:n]]
    truth = [e["meta"]["intent"].endswith("True") for e in eps]
    keys: dict[str, Callable[[dict], Any]] = {
        "SV prior: question text": lambda e: e["instruction"],
        "SV prior: target word": lambda e: re.sub(r" in view", "", e["instruction"]),
        "SV prior: 'in view' and property": lambda e: (" in view" in e["instruction"],
                                                       " on or off" in e["instruction"]),
        "SV prior: house-independent word count": lambda e: len(e["instruction"].split()),
    }
    out = {}
    for name, key in keys.items():
        groups: dict[Any, Counter] = defaultdict(Counter)
        for e, v in zip(eps, truth, strict=True):
            groups[key(e)][v] += 1
        # fitted on the same episodes (an upper bound for any prior on these words) and leave-one-out (which
        # balanced labels push below half: leaving an episode out tips its group's majority to the other label)
        fitted = sum(max(c.values()) for c in groups.values())
        loo = 0
        for e, v in zip(eps, truth, strict=True):
            c = groups[key(e)].copy()
            c[v] -= 1
            loo += (c[True] > c[False] if c[True] != c[False] else True) == v
        for kind, wins in (("fitted", fitted), ("leave-one-out", loo)):
            out[f"{name} ({kind})"] = {"family": "SV", "n": len(eps), "B": round(100 * wins / len(eps), 1),
                                       "ci": wilson(wins, len(eps))}
    return out


def pg_word_prior(results: dict[str, list[tuple[bool, list[bool]]]], tasks: dict[str, list], n: int) -> dict:
    """PG: per target type, the grid point that hits most of the *other* episodes of that type (leave-one-out)."""
    eps = [t.data["episode"] for t in tasks["PG"][:n]]
    names = [f"PG click{x},{y}" for x, y in GRID if f"PG click{x},{y}" in results]
    if not names:
        return {}
    hits = [[results[nm][i][0] for nm in names] for i in range(len(eps))]
    wins = 0
    for i, e in enumerate(eps):
        same = [j for j, o in enumerate(eps) if j != i and o["meta"]["target_type"] == e["meta"]["target_type"]]
        pool = same or [j for j in range(len(eps)) if j != i]
        best = max(range(len(names)), key=lambda p: sum(hits[j][p] for j in pool))
        wins += hits[i][best]
    return {"PG prior: best grid point per target word": {"family": "PG", "n": len(eps),
                                                           "B": round(100 * wins / len(eps), 1),
                                                           "ci": wilson(wins, len(eps))}}


def main(argv: list[str] | None = None) -> int:
    """Print B (percent, 95 % interval) and the best cut of every probe on its family's first N episodes."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-family", type=int, default=125)
    ap.add_argument("--families", default=",".join(FAMILY_CODES))
    ap.add_argument("--only", default="", help="probes whose name contains this text")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--data-dir", default=str(PACK_DIR))
    args = ap.parse_args(argv)
    fams = set(args.families.split(","))
    names = [nm for nm, (f, _) in probes().items() if f in fams and args.only in nm]
    results: dict[str, list] = {}
    out: dict[str, dict[str, Any]] = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for name, res in pool.map(_run, names, [args.data_dir] * len(names), [args.per_family] * len(names)):
            results[name] = res
            out[name] = summarise(probes()[name][0], res)
            if not args.json:
                r = out[name]
                cut = f"  best cut {r['best_cut_B']:5.1f} {r['best_cut_ci']} at step {r['best_cut_step']}" \
                    if "best_cut_B" in r else ""
                print(f"{name:34s} {r['family']} n={r['n']:3d}  B {r['B']:5.1f} {r['ci']}{cut}", flush=True)
    tasks = _load(args.data_dir)
    if "PG" in fams and "click" in (args.only or "click"):
        for name, res in grid_clicks(args.data_dir, args.per_family).items():
            results[name] = res
            out[name] = summarise("PG", res)
        best = max((nm for nm in out if nm.startswith("PG click")), key=lambda nm: out[nm]["B"])
        if not args.json:
            print(f"PG grid (49 points): best {best} B {out[best]['B']:5.1f} {out[best]['ci']}; points above 0: "
                  f"{sum(out[nm]['B'] > 0 for nm in out if nm.startswith('PG click'))}")
    extra = {**(word_priors(tasks, args.per_family) if "SV" in fams else {}),
             **(pg_word_prior(results, tasks, args.per_family) if "PG" in fams else {})}
    for name, r in extra.items():
        out[name] = r
        if not args.json:
            print(f"{name:34s} {r['family']} n={r['n']:3d}  B {r['B']:5.1f} {r['ci']}")
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
