"""Issue 34: DA's learned open-loop routines (a turn, a leg, then a turn and a leg over and over; the best report
step), played geometrically as the simulator moves the agent, and the pack generator's cap on them."""

from __future__ import annotations

import json

from omegaconf import OmegaConf
from suite.contract.registry import Reading
from suite.engine.host import build_host, default_config
from suite_vigil import baselines, routines
from suite_vigil.packgen.generate import GENERATOR_VERSION
from suite_vigil.plugin import PACK_DIR, load_tasks


def test_a_routine_is_a_detour_then_a_loop() -> None:
    steps = list(routines.actions((-30, 2, 2, 90, 1), 8))
    assert steps == [("turn", -30), ("forward", 2), ("forward", 2), ("turn", 90), ("forward", 2), ("turn", 90),
                     ("forward", 2), ("turn", 90)]
    assert list(routines.actions((0, 1, 3, 0, 1), 5)) == [("forward", 1)] * 5  # no turns: a straight walk
    assert routines.action_json(("turn", -45)) == {"skill_name": "navigate",
                                                   "arguments": {"mode": "turn_left", "magnitude": 45}}
    specs = routines.grammar()
    assert len(specs) == len(set(specs)) > 3000


def _da_tasks() -> list:
    cfg = OmegaConf.merge(default_config(["vigil"]).vigil, {"data_dir": str(PACK_DIR)})
    return [t for t in load_tasks("vigil", cfg) if t.category == "DA"]


def test_the_geometric_play_agrees_with_the_simulator() -> None:
    """A cut the geometric play says reaches the target solves the episode when the env plays it."""
    tasks = _da_tasks()[:6]
    checked = 0
    for task in tasks:
        cuts = routines.task_cuts(task)
        if not cuts:
            continue
        spec, k = min(cuts)
        plan = list(routines.actions(spec, k))

        def policy(instruction: str, budget: int, step: int, plan: list = plan) -> dict:
            if step < len(plan):
                return routines.action_json(plan[step])
            return {"skill_name": "report", "arguments": {"status": "success", "summary": "done"}}

        settlement, _ = baselines.play(task, policy)
        assert settlement.metrics["B"] == 1.0, (task.id, spec, k)
        checked += 1
    assert checked


def test_the_learner_plays_its_best_cut_and_reports() -> None:
    tasks = _da_tasks()[:4]
    policy = routines.fit_da(tasks)
    cut = policy.cut  # type: ignore[attr-defined]
    if cut is None:
        assert json.loads(policy(Reading(step=0)))["skill_name"] == "report"
        return
    spec, k = cut
    replies = [json.loads(policy(Reading(step=s))) for s in range(k + 1)]
    assert [r["skill_name"] for r in replies] == ["navigate"] * k + ["report"]


def test_it_is_declared_for_da_and_the_pack_caps_every_cut() -> None:
    (learned,) = [b for b in build_host().benchmark("vigil").baselines if b.name == "learned-routine-DA"]
    assert learned.kind == "learned" and learned.reads == ("step",) and learned.ceiling_for("DA") == 10.0
    manifest = json.loads((PACK_DIR / "PACK.json").read_text(encoding="utf-8"))
    assert manifest["generator_version"] == GENERATOR_VERSION >= "4"
    reach = manifest["families"]["DA"]["routine_cut_max"]
    assert reach["episodes"] <= reach["cap"] == routines.CUT_CAP
    assert "3" in manifest["previous_versions"]
