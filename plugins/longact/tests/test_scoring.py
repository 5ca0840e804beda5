"""Nav / Manip efficiency steps, SR and GC of a settled episode, by hand."""

from __future__ import annotations

import pytest
from suite.contract.records import Action, StepRecord, Trajectory
from suite_longact.scoring import detail_tables, settle

from .conftest import first, kitchen_env, teleport_facing


def test_efficiency_steps_and_settlement_by_hand() -> None:
    env = kitchen_env([])
    fridge, mw = first(env, "Fridge"), first(env, "Microwave")
    items = [{"object_id": fridge.id, "object_type": "Fridge", "attr": "isOpen", "target": True},
             {"object_id": mw.id, "object_type": "Microwave", "attr": "isToggled", "target": True}]
    env = kitchen_env(items)
    teleport_facing(env, fridge.id)
    actions = [{"action": "RotateLeft"}, {"action": "RotateRight"}, {"action": "LookDown"}, {"action": "LookUp"},
               {"action": "Open", "object": fridge.id}, {"action": "Open", "object": fridge.id},  # 2nd fails
               {"action": "Pick", "object": "Nope|0"}]
    steps = []
    for i, a in enumerate(actions):
        r = env.step(a)
        steps.append(StepRecord(i, Action(a, a["action"]), feedback=r.feedback, info=r.info))
    moved = 0
    for _ in range(5):  # 5 x 0.05 m = 0.25 m = one efficiency step, when the way is free
        before = env.world.agent
        env.step({"action": "MoveBack"})
        moved += env.world.agent != before
    c = env.counts
    assert c.turns == 2 and c.looks == 2 and c.interactions == 3 and c.raw == 12
    assert c.nav == pytest.approx(moved / 5 + 4, abs=1e-3) and c.manip == 3
    traj = Trajectory(task=env.task, steps=steps, end_reason="max_steps")
    s = settle(env.task, traj, env, {})
    assert s.outcome == "budget_exhausted"
    assert s.metrics["gc"] == 0.5 and s.metrics["success"] == 0.0
    assert s.metrics["gc_OC"] == 1.0 and s.metrics["gc_TO"] == 0.0 and s.metrics["gc_PP"] is None
    assert s.metrics["manip_steps"] == 3 and s.metrics["raw_steps"] == 12
    assert s.metrics["curve"] == "0:0:0:0 5:5:1:1"
    record = {"outcome": s.outcome, "agent": "direct", "model": "m", "metrics": s.metrics}
    tables = detail_tables([record, {**record, "metrics": {**s.metrics, "split": "concise"}}])
    assert [t.title.split(":")[0] for t in tables[:2]] == ["LongAct Table 1 layout", "LongAct Table 2 layout"]
    assert tables[0].columns == ["agent", "model", "n", "GC Avg", "PP", "TO", "OC", "Sl", "SR", "Nav", "Manip", "IR"]
    assert tables[1].columns[4:9] == ["PP", "TO", "Sl", "CK", "FW"]
    assert tables[0].rows[0][3:9] == ["50.00", "-", "0.00", "100.00", "-", "0.00"]


def test_stop_with_everything_met_is_success() -> None:
    env = kitchen_env([])
    fridge = first(env, "Fridge")
    env = kitchen_env([{"object_id": fridge.id, "object_type": "Fridge", "attr": "isOpen", "target": False}])
    r = env.step({"action": "Stop"})
    assert r.done
    traj = Trajectory(task=env.task, steps=[StepRecord(0, Action({"action": "Stop"}, "Stop"))], end_reason="done")
    assert settle(env.task, traj, env, {}).outcome == "success"


def test_the_papers_gc_is_the_object_level_share_and_the_item_share_keeps_its_own_name() -> None:
    """Two objects, three items: the fridge's two items hold, the apple's one does not. The paper's GC (objects whose
    every item holds) is 1/2, GC items 2/3; the headline's GC and Table 1's GC Avg are the object-level figure."""
    from suite.contract.registry import Registry
    from suite_longact.plugin import register
    from suite_longact.scoring import table_row

    records = [{"metrics": {"gc_object": 0.5, "gc": 2 / 3, "success": 0.0, "nav_steps": 10.0, "manip_steps": 2,
                            "ir": None, "met_PP": 0, "total_PP": 1, "met_OC": 2, "total_OC": 2}}]
    assert [str(c) for c in table_row(records, ("PP", "OC"))[:3]] == ["50.00", "0.00", "100.00"]
    registry = Registry()
    register(registry)
    labels = {m.name: m.label for m in registry.benchmarks["longact"].headline}
    assert labels["gc_object"] == "GC" and labels["gc"] == "GC items"


def test_a_goal_done_to_every_instance_is_unmet_and_the_reason_says_why() -> None:
    env = kitchen_env([])
    a, b = sorted((o for o in env.world.objects.values() if o.type == "Cabinet"), key=lambda o: o.id)[:2]
    env = kitchen_env([{"object_id": a.id, "object_type": "Cabinet", "attr": "isOpen", "target": not a.is_open,
                        "keep": [b.id]}])
    env.world.set(a.id, is_open=not a.is_open)
    env.world.set(b.id, is_open=not b.is_open)  # the look-alike too: the type, not the cabinet asked for
    env.checklist.evaluate(env.world)
    traj = Trajectory(task=env.task, steps=[], end_reason="max_steps")
    s = settle(env.task, traj, env, {})
    assert s.metrics["gc"] == 0.0 and s.metrics["side_effects"] == 1 and s.metrics["gc_se"] == 0.0
    assert "(Cabinet.isOpen (a look-alike changed))" in s.failure_reason
