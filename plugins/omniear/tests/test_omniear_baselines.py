"""OmniEAR's shortcut baselines: the fixed explore-then-DONE plan, the stop reply, and their ceilings."""

from __future__ import annotations

from omegaconf import OmegaConf
from suite.contract.records import Observation, Task
from suite.engine.host import build_host, default_config
from suite.validity.baselines import baselines_of
from suite_omniear import flipper, prompting
from suite_omniear.data import CATEGORIES
from suite_omniear.plugin import PACK_DIR, load_tasks
from suite_omniear.valid_replies import explore_then_done, stop_reply


def test_fixed_plan_explores_then_says_done_for_every_agent() -> None:
    task = Task("omniear", "t", {"agents": 2})
    first = prompting.parse_reply(explore_then_done(task, Observation(), 0), 2)
    later = prompting.parse_reply(explore_then_done(task, Observation(), 3), 2)
    assert first.value == {"agent_1": "EXPLORE", "agent_2": "EXPLORE"}
    assert later.value == {"agent_1": "DONE", "agent_2": "DONE"}
    assert prompting.parse_reply(stop_reply(task, Observation()), 2).value == later.value


def test_declared_baselines_and_ceilings() -> None:
    spec = build_host().benchmark("omniear")
    by_name = {b.name: b for b in baselines_of(spec)}
    assert list(by_name) == ["stop-at-once", "random", "fixed-plan", "learned-flipper"]
    assert all(b.ceiling_for("*") == 5.0 and b.chance_for("*") == 0.0 for b in by_name.values())
    learned = by_name["learned-flipper"]
    assert learned.kind == "learned" and "text" in learned.reads and not learned.sees_frames
    assert all(learned.ceiling_for(c) == 5.0 for c in CATEGORIES)  # per category, as issue 34 asks


def _pack_tasks() -> list[Task]:
    cfg = OmegaConf.merge(default_config(["omniear"]).omniear, {"data_dir": str(PACK_DIR)})
    return load_tasks("omniear", cfg)


def test_the_flipper_goes_to_each_discovered_state_once_then_done() -> None:
    rules = {"open": ("is_open", False), "power_on": ("is_on", False)}
    scene = flipper.Scene(unexplored=("hall",), at="kitchen",
                          states=(("box_1", "is_open", False), ("lamp_1", "is_on", True)), verbs=frozenset())
    verbs = frozenset(rules)
    assert flipper.next_command(scene, verbs, rules, []) == "GOTO box_1"
    assert flipper.next_command(scene, verbs, rules, ["GOTO box_1"]) == "OPEN box_1"
    # lamp_1 is on: power_on does not apply; the next unexplored room, then DONE
    assert flipper.next_command(scene, verbs, rules, ["GOTO box_1", "OPEN box_1"]) == "GOTO hall"
    assert flipper.next_command(scene, verbs, rules, ["GOTO box_1", "OPEN box_1", "GOTO hall"]) == "DONE"


def test_no_flipper_solves_a_direct_command_of_the_pack() -> None:
    """Issue 34: flipping every state it could solved 4 of the 8 direct commands of generator 1's pack; version 2
    keeps copies of the target in both states, before and after it, whose states the checks hold."""
    tasks = _pack_tasks()
    rules = flipper.rules_of(tasks[0])
    direct = [t for t in tasks if t.category == "direct_command"]
    verb_tasks = [t for t in direct if len(t.data["eval_task"].task.checks) > 1]
    assert len(verb_tasks) >= 2
    for verbs in flipper.candidates(rules):
        assert not any(flipper.play(t, verbs, rules) for t in direct), sorted(verbs)


def test_the_learner_falls_back_to_explore_then_done_where_nothing_scores() -> None:
    policy = flipper.fit(_pack_tasks())
    assert set(policy.chosen.values()) == {frozenset()}  # type: ignore[attr-defined]
