"""The OmniEAR plugin through the whole suite: prompts, parsing, the loop, scoring and the report."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.contract.records import Action, StepRecord
from suite.models import register_script
from suite.store.run_folder import RunStore
from suite.testing import PluginConformance
from suite_omniear.prompting import history_summary, parse_reply

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "omniear"
EVAL = SHARED / "data" / "eval"
GOLDEN = SHARED / "golden" / "traces.jsonl"
GOLDEN_ORACLE_SUCCESS = {"direct_command": 39, "attribute_reasoning": 40, "tool_use": 36, "compound_reasoning": 37,
                         "explicit_collaboration": 40, "implicit_collaboration": 42, "compound_collaboration": 36}

needs_data = pytest.mark.skipif(not GOLDEN.is_file(), reason="../shared/data/omniear is not present")


def _golden_oracle() -> dict[str, dict[str, Any]]:
    records = {}
    with GOLDEN.open() as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["kind"] == "oracle":
                split, _, name = rec["task_file"].partition("/task/")
                records[f"omniear/{split}/{name[:5]}"] = rec
    return records


def _replayer(golden: dict[str, dict[str, Any]]) -> Any:
    def reply(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        commands = golden[metadata["episode"]]["steps"][metadata["step"]]["commands"]
        lines = [f"Agent_{i + 1}_Action: {commands[a]}" for i, a in enumerate(sorted(commands))]
        return "Thought: following the recorded plan.\n" + "\n".join(lines)

    return reply


@needs_data
def test_oracle_commands_as_model_text_lose_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A scripted litellm model that types the golden oracle's commands reproduces its success counts."""
    golden = _golden_oracle()
    register_script("omniear-golden", _replayer(golden))
    out = tmp_path / "run"
    assert main(["run", "--plugins", "omniear", "--model", "scripted/omniear-golden", "--data-dir", str(EVAL),
                 "--out", str(out), "--concurrency", "16", "model.cache=false", "--no-report"]) == 0
    records = RunStore(out).records()
    assert len(records) == 280
    wins = Counter(r["task_category"] for r in records if r["outcome"] == "success")
    assert dict(wins) == GOLDEN_ORACLE_SUCCESS
    for rec in records:
        assert rec["steps"] == golden[rec["episode_id"]]["num_steps"], rec["episode_id"]
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    scalar = report["details"]["omniear"][2]["rows"][0][0]
    assert scalar == 15


@pytest.mark.parametrize(
    ("reply", "agents", "expected"),
    [
        ("Thought: go\nAgent_1_Action: GOTO kitchen_1", 1, {"agent_1": "GOTO kitchen_1"}),
        ("Thought: go\nAgent_1_Action: GOTO kitchen_1.", 1, {"agent_1": "GOTO kitchen_1"}),
        ("Thought: x\nAgnet_1_Action: EXPLORE", 1, {"agent_1": "EXPLORE"}),
        ("Thought: x\nAction: DONE", 1, {"agent_1": "DONE"}),
        ("Thought: x\n动作：EXPLORE", 1, {"agent_1": "EXPLORE"}),
        ("I will explore first.\n\nEXPLORE", 1, {"agent_1": "EXPLORE"}),
        ("Thought: a\nAgent_1_Action: GRAB cup_1\nAgent_1_Action: DONE", 1, {"agent_1": "GRAB cup_1"}),
        ("", 1, {"agent_1": ""}),
        ("Thought: t\nAgent_1_Action: EXPLORE\nAgent_2_Action: GOTO hall_1", 2,
         {"agent_1": "EXPLORE", "agent_2": "GOTO hall_1"}),
        ("Thought: t\nAgent_1.Action: DONE\nAgent_2.Action: DONE!", 2, {"agent_1": "DONE", "agent_2": "DONE"}),
    ],
)
def test_parse_reply(reply: str, agents: int, expected: dict[str, str]) -> None:
    action = parse_reply(reply, agents)
    assert action.ok and action.value == expected


def test_two_agents_need_both_tags() -> None:
    action = parse_reply("Thought: t\nAgent_1_Action: EXPLORE", 2)
    assert not action.ok and action.parse_error == "Agent_2_Action not found"


def test_history_formats() -> None:
    step = StepRecord(0, Action({"agent_1": "EXPLORE"}, "EXPLORE"), reply="Thought: t\nAgent_1_Action: EXPLORE",
                      info={"results": {"agent_1": {"status": "SUCCESS", "message": "Explored room"}}})
    assert history_summary([step], 1) == (
        "Recent Action History:\n1. Thought: t\nAgent_1_Action: EXPLORE\n   Execution Result: SUCCESS - Explored room")
    failed = StepRecord(1, Action.failure("Agent_2_Action not found", "PARSE_FAILED"))
    assert history_summary([failed], 2) == (
        "Recent Action History:\n2. Action: agent_1=PARSE_FAILED, agent_2=PARSE_FAILED, Result: agent_1: LLM response "
        "parsing failed: Agent_1_Action not found; agent_2: LLM response parsing failed: Agent_2_Action not found")


@needs_data
def test_validate_solves_what_the_reference_oracle_solved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`suite validate` on the eval split: 270/280, and each of the 10 failures with the planner's reason."""
    assert main(["validate", "--plugins", "omniear", "--data-dir", str(EVAL), "--out", str(tmp_path / "v")]) == 1
    records = RunStore(tmp_path / "v").records()
    golden = _golden_oracle()
    assert {r["episode_id"]: r["outcome"] == "success" for r in records} == {
        k: g["final_success"] for k, g in golden.items()}
    wins = Counter(r["task_category"] for r in records if r["outcome"] == "success")
    assert dict(wins) == GOLDEN_ORACLE_SUCCESS
    assert "270/280" in capsys.readouterr().out
    failures = [r for r in records if r["outcome"] != "success"]
    assert len(failures) == 10 and all("agent: check" in r["failure_reason"] for r in failures)


def test_default_run_uses_the_generated_pack_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With no data configured the plugin runs its generated pack, and says so in metadata and report."""
    out = tmp_path / "r"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "GENERATED pack" in text
    store = RunStore(out)
    assert store.meta()["data"]["omniear"]["kind"] == "generated"
    records = store.records()
    assert records and all(r["outcome"] == "success" for r in records)
    assert {r["task_category"] for r in records} == set(GOLDEN_ORACLE_SUCCESS)


class TestOmniEARConformance(PluginConformance):
    plugin = "omniear"
    oracle_tasks = 3
