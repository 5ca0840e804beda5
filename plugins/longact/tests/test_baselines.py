"""The shortcut baselines read only the prompt text; side effects count against GC-SE."""

from __future__ import annotations

import asyncio

from suite.engine.agents import AgentContext
from suite.engine.host import build_host
from suite.engine.loop import TraceSink, run_episode
from suite_longact.baselines import BASELINE_STEPS, BaselineAgent, Flipper, RandomWalker, read_observation

from .conftest import config, first, kitchen_env, pack_tasks, teleport_facing

PROMPT = """Instruction: turn on the lamp.

Holding: nothing
Last action: {last}

Instances in view (id | type | room | on or in | distance m | state):
{lines}

Your recent actions:
(none yet)
"""


def _text(lines: str, last: str = "none yet") -> str:
    return PROMPT.format(lines=lines, last=last)


def test_the_observation_text_is_read_with_ids_as_written() -> None:
    seen = read_observation(_text("Drawer|+01.00|+00.40|-02.00 | Drawer | Kitchen | - | 0.8 | closed\n"
                                  "obj_17 | DeskLamp | Bedroom | - | 3.2, out of reach\n"
                                  "Fridge_3 | 1.1", last="Open x failed: x is already open"))
    assert seen.instances == [("Drawer|+01.00|+00.40|-02.00", "Drawer", True), ("obj_17", "DeskLamp", False),
                              ("Fridge_3", "Fridge", True)]
    assert not seen.last_ok and seen.last_error == "x is already open" and not seen.holding
    assert read_observation(_text("(nothing)")).instances == []


def test_flipper_flips_each_listed_object_once_and_only_opens_doors() -> None:
    f = Flipper("t")
    view = ("d1 | Drawer | Kitchen | - | 0.5\ndoor|0|1 | Doorway | - | - | 0.9\n"
            "lamp | DeskLamp | - | - | 2.0, out of reach")
    assert f.act(_text(view)) == {"action": "Open", "object": "d1"}
    # already open: the other state change of the same group
    assert f.act(_text(view, "Open d1 failed: d1 is already open")) == {"action": "Close", "object": "d1"}
    assert f.act(_text(view, "Close d1 succeeded")) == {"action": "Open", "object": "door|0|1"}
    nxt = f.act(_text(view, "Open door|0|1 failed: door|0|1 is already open"))
    assert nxt["action"] in ("MoveAhead", "RotateLeft", "RotateRight")  # the lamp is out of reach; both done
    assert f.done == {"d1", "door|0|1"}


def test_a_type_the_list_does_not_name_gets_every_state_change_tried() -> None:
    f = Flipper("t")
    assert f.act(_text("x7 | 0.5")) == {"action": "Open", "object": "x7"}
    assert f.act(_text("x7 | 0.5", "Open x7 failed: x7 is not an Openable object")) == {
        "action": "Close", "object": "x7"}
    assert f.act(_text("x7 | 0.5", "Close x7 failed: x7 is not an Openable object")) == {
        "action": "ToggleOn", "object": "x7"}


def test_the_step_budget_ends_in_stop() -> None:
    walker = RandomWalker("t", budget=3)
    actions = [walker.act(_text("d1 | Drawer | - | - | 0.5"))["action"] for _ in range(4)]
    assert actions[-1] == "Stop" and "Stop" not in actions[:3]


def test_side_effects_count_as_unmet_items_in_gc_se() -> None:
    env = kitchen_env([])
    lamp = first(env, "LightSwitch")
    env = kitchen_env([{"object_id": lamp.id, "object_type": "LightSwitch", "attr": "isToggled",
                        "target": not lamp.is_toggled}])
    target = first(env, "Drawer")
    teleport_facing(env, target.id)
    assert env.step({"action": "Open", "object": target.id}).info["success"]
    cl = env.checklist
    assert cl.side_effects(env.world) == [target.id]
    assert cl.gc == 0.0 and cl.gc_side_effects(env.world) == 0.0
    teleport_facing(env, lamp.id)
    assert env.step({"action": "ToggleOn" if not lamp.is_toggled else "ToggleOff", "object": lamp.id}).info["success"]
    assert cl.gc == 1.0 and cl.gc_side_effects(env.world) == 0.5  # 1 met / (1 item + 1 side effect)
    teleport_facing(env, target.id)
    assert env.step({"action": "Close", "object": target.id}).info["success"]
    assert cl.side_effects(env.world) == [] and cl.gc_side_effects(env.world) == 1.0  # restored: no side effect


def test_baseline_agents_run_on_a_pack_episode_from_the_prompt() -> None:
    host = build_host()
    cfg = config(images=[], image_size=64)
    task = pack_tasks(images=[], image_size=64)[0]
    agent = BaselineAgent(AgentContext(host, "longact", cfg), Flipper)
    result = asyncio.run(run_episode(host, task, agent, cfg, TraceSink()))
    m = result.settlement.metrics
    assert m["raw_steps"] == BASELINE_STEPS + 1 and m["stopped"]  # the budget, then Stop
    assert any(s.action.value.get("action") in ("Open", "Close", "ToggleOn", "ToggleOff")
               for s in result.trajectory.steps)  # it met something and flipped it
    assert 0.0 <= m["gc_se"] <= m["gc"]
