"""The observation and action-list texts, written out by hand, and the render cache against fresh renders."""

from __future__ import annotations

import json
from types import SimpleNamespace

from suite_omniear.conformance import canonical_observation, expected_observations, read_traces
from suite_omniear.data import find_attribute_table, load_attribute_table, load_task
from suite_omniear.sim import OmniSim
from suite_omniear.sim.render import Renderer

ROOMS = [
    {"id": "lab", "name": "Lab", "properties": {"type": "lab"}},
    {"id": "annex", "name": "Annex", "properties": {"quiet": True}},
]


def lab_scene(omni: SimpleNamespace, mode: str = "explore") -> OmniSim:
    objects = [
        omni.obj(
            "bench_1", "in:lab", "FURNITURE", 50.0, size=[2, 1, 0.9], is_container=True, material="wood"
        ),
        omni.obj("flask_1", "on:bench_1", weight=0.4, length=0.3, color="clear", states={"is_dirty": True}),
        omni.obj("probe_1", "in:bench_1", weight=0.2, provides_abilities=["scan"]),
        omni.obj("mat_1", "in:annex", size="large"),
    ]
    return omni.build(objects, rooms=ROOMS, abilities=["open", "scan"], mode=mode)


GLOBAL_INITIAL = """\
================ Environment Overview ================
Total: 2 rooms, 4 objects, 1 agents

================ Room Details ================
▶ Room: Annex (ID: annex)
  • Room Properties:
    - quiet: True
  • Agents:
    - Agent: robot_1 (ID: agent_1)
      Items held: 0, Abilities: 0
  • Objects:
    ◆ Mat 1 (ID: mat_1, Type: ITEM)
      • Location: inside Annex (ID: annex)
      • Properties:
        - Weight: 1.0kg
        - fragile: False

▶ Room: Lab (ID: lab)
  • Room Properties:
    - type: lab
  • Objects:
    ◆ Bench 1 (ID: bench_1, Type: FURNITURE)
      • Location: inside Lab (ID: lab)
      • States:
        - is_open: False
      • Properties:
        - Size: 2m x 1m x 0.9m (L x W x H)
        - Weight: 50.0kg
        - is_container: True
        - material: wood
      • Contains Objects:
      ◆ Flask 1 (ID: flask_1, Type: ITEM)
        • Location: on top of Bench 1 (ID: bench_1)
        • States:
          - is_dirty: True
        • Properties:
          - Size: 0.1m x 0.1m x 0.1m (L x W x H)
          - Weight: 0.4kg
          - color: clear
          - fragile: False
      ◆ Probe 1 (ID: probe_1, Type: ITEM)
        • Location: inside Bench 1 (ID: bench_1)
        • Properties:
          - Size: 0.1m x 0.1m x 0.1m (L x W x H)
          - Weight: 0.2kg
          - Provides Abilities: scan
          - fragile: False

================ Agent Details ================
▶ Agent: robot_1 (ID: agent_1)
  • Location: Annex (ID: annex)
  • Physical Properties:
    - Load: 0.0/20.0kg
    - Grasp Capacity: 0/2 items
    - max_size: [1.5, 1.5, 1.5]
  • Abilities: None
  • Inventory: None
"""

AGENT_WITH_TOOLS = """\
▶ Agent: robot_1 (ID: agent_1)
  • Location: Lab (ID: lab)
  • Physical Properties:
    - Load: 0.6000000000000001/20.0kg
    - Grasp Capacity: 2/2 items
    - max_size: [1.5, 1.5, 1.5]
  • Abilities:
    - scan, Source: Probe 1 (ID: probe_1)
  • Inventory:
    - Probe 1 (ID: probe_1, Type: ITEM)
      Provides Abilities: scan
      weight: 0.2
      fragile: False
      size: [0.1, 0.1, 0.1]
    - Flask 1 (ID: flask_1, Type: ITEM)
      weight: 0.4
      length: 0.3
      color: clear
      fragile: False
      size: [0.1, 0.1, 0.1]
"""

ACTIONS_ONE_AGENT = """\
=== SUPPORTED ACTIONS FOR AGENT_1 ===

== Basic Actions ==
GOTO <object_id>
  - Move to a specific location or object
  - Example: GOTO main_workbench_area

GRAB <object_id>
  - Pick up an object that is nearby
  - Example: GRAB cup_1

PLACE <object_id> <in|on> <container_id>
  - Place a held object into or onto another object
  - Example: PLACE cup_1 on table_1

EXPLORE
  - Explore current room to discover objects
  - Example: EXPLORE

DONE
  - Finish the task
  - Example: DONE

== Attribute Actions (No Tools Required) ==
OPEN <object_id>
  - Open it.
  - Example: OPEN device_1

=== END OF ACTIONS ==="""


def test_global_observation_text(omni: SimpleNamespace) -> None:
    assert lab_scene(omni, "global").observation() == GLOBAL_INITIAL


def test_explore_mode_hides_undiscovered_objects(omni: SimpleNamespace) -> None:
    text = lab_scene(omni).observation()
    assert text.count("  • Objects: Not yet discovered") == 2 and "◆" not in text


def test_agent_block_with_tools_and_float_load(omni: SimpleNamespace) -> None:
    sim = lab_scene(omni)
    omni.run(sim, "GOTO lab", "EXPLORE", "OPEN bench_1", "GOTO probe_1", "GRAB probe_1", "GRAB flask_1")
    text = sim.observation()
    assert text[text.index("▶ Agent:") :] == AGENT_WITH_TOOLS
    assert "      Items held: 2, Abilities: 1" in text


def test_action_lists(omni: SimpleNamespace) -> None:
    sim = lab_scene(omni)
    assert sim.available_actions() == ACTIONS_ONE_AGENT
    omni.run(sim, "GOTO lab", "EXPLORE", "OPEN bench_1", "GOTO probe_1", "GRAB probe_1")
    assert sim.available_actions() == ACTIONS_ONE_AGENT.replace(
        "=== END",
        "== Agent-Specific Actions (Tools Required) ==\nSCAN <object_id>\n  - Scan it with a scanner.\n"
        "  - Example: SCAN device_1\n\n=== END",
    )
    two = omni.build(agents=2, abilities=["open"]).available_actions()
    assert two.startswith("=== SUPPORTED ACTIONS FOR AGENT_1 & AGENT_2 ===\n")
    assert (
        "== Cooperative Actions ==\nCORP_GRAB agent_1,agent_2 <object_id>\n"
        "  - Two agents cooperatively grab a heavy object\n"
        "  - Example: CORP_GRAB agent_1,agent_2 heavy_box_1\n"
    ) in two
    assert two.endswith(
        "== Cooperative Attribute Actions ==\nCORP_OPEN agent_1,agent_2 <object_id>\n"
        "  - Open it. (cooperative)\n"
        "  - Example: CORP_OPEN agent_1,agent_2 device_1\n\n=== END OF ACTIONS ==="
    )


def _fresh(sim: OmniSim) -> str:
    """Render from scratch without consuming the world's dirty sets (the cached renderer still needs them)."""
    world = sim.world
    saved = set(world.dirty_objects), set(world.dirty_rooms), set(world.dirty_agents)
    text = Renderer(world, sim.observation_mode == "global").render()
    world.dirty_objects.update(saved[0])
    world.dirty_rooms.update(saved[1])
    world.dirty_agents.update(saved[2])
    return text


def test_render_cache_matches_fresh_render_on_the_tiny_scene(omni: SimpleNamespace) -> None:
    sim = omni.build(agents=2, mode="global")
    commands = [
        ("GOTO kitchen", "EXPLORE"),
        ("EXPLORE", "GOTO kitchen"),
        ("OPEN cabinet_1", "GOTO cup_1"),
        ("GOTO kit_1", "GRAB cup_1"),
        ("GRAB kit_1", "GOTO table_1"),
        ("FIX radio_1", "PLACE cup_1 in crate_1"),
        ("CORP_GRAB agent_1,agent_2 crate_1",) * 2,
        ("CORP_GOTO agent_1,agent_2 hall",) * 2,
        ("CORP_PLACE agent_1,agent_2 crate_1 in hall",) * 2,
        ("PLACE kit_1 on crate_1", "EXPLORE"),
    ]
    for c1, c2 in commands:
        sim.step({"agent_1": c1, "agent_2": c2})
        assert sim.observation() == _fresh(sim)


def test_render_cache_matches_fresh_render_on_golden_runs(golden: SimpleNamespace) -> None:
    table = load_attribute_table(find_attribute_table(golden.eval))
    for record in read_traces(golden.traces):
        split, _, name = record["task_file"].split("/")
        sim = OmniSim.from_eval_task(
            load_task(golden.eval, split, name[:5]), table, record["observation_mode"]
        )
        for step in record["steps"]:
            sim.step(step["commands"])
            assert sim.observation() == _fresh(sim), (record["task_file"], record["kind"], step["step"])


def test_canonical_observation_ignores_room_and_source_order() -> None:
    text = "\n".join(
        [
            "head",
            "================ Room Details ================",
            "▶ Room: B",
            "",
            "▶ Room: A",
            "",
            "================ Agent Details ================",
            "    - cut, Source: Saw (ID: saw_2), Knife, big (ID: knife_1)",
            "",
        ]
    )
    canonical = canonical_observation(text)
    assert canonical[2:6] == ["▶ Room: A", "", "▶ Room: B", ""]
    assert canonical[7] == "    - cut, Source: Knife, big (ID: knife_1), Saw (ID: saw_2)"


def test_observation_patches_rebuild_the_text() -> None:
    record = {
        "steps": [
            {"observation": "a\nb\nc"},
            {"observation_patch": [[0, 1, ["x", "y"]], [2, 3, []]]},
            {"observation_patch": []},
            {},
        ]
    }
    assert expected_observations(json.loads(json.dumps(record))) == ["a\nb\nc", "x\ny\nb", "x\ny\nb", None]
