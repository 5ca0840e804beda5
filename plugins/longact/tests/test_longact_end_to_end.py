"""LongAct through the whole suite: a scripted litellm model as the direct agent, and the oracle with the report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suite.cli.main import main
from suite.models import register_script
from suite.store.run_folder import RunStore

SMALL = ["longact.image_size=32", "model.cache=false"]


def test_direct_agent_with_a_scripted_model(tmp_path: Path) -> None:
    seen: list[str] = []

    def reply(messages: list[dict[str, Any]]) -> str:
        text = messages[1]["content"][0]["text"]
        seen.append(text)
        n = len(seen)
        if n == 3:
            return "I am not sure what to do."
        if n == 4:
            first = text.split("Instances in view")[1].splitlines()[1].split(" | ")[0]
            return f'{{"action": "Pick", "object": "{first}"}}'
        return '{"thought": "look around", "action": "RotateLeft"}'

    register_script("longact-turner", reply)
    out = tmp_path / "run"
    assert main(["run", "--plugins", "longact", "--model", "scripted/longact-turner", "--tasks", "longact_000",
                 "--out", str(out), "longact.max_steps=8", *SMALL, "--no-report"]) == 0
    rec = RunStore(out).records()[0]
    assert rec["outcome"] == "budget_exhausted" and rec["steps"] == 8
    assert rec["metrics"]["raw_steps"] == 7  # the parse failure cost a step but never reached the env
    assert rec["metrics"]["nav_steps"] == 6 and rec["metrics"]["manip_steps"] == 1
    assert "Instruction: " in seen[0] and "Instances in view" in seen[0] and "Step 1 of at most 8" in seen[0]
    assert "failed: " in seen[4] or "Pick" in seen[4]  # the last action's outcome is fed back


def test_oracle_run_prints_the_longact_tables(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "oracle"
    assert main(["run", "--plugins", "longact", "--agent", "oracle", "--tasks", "longact_001",
                 "--out", str(out), *SMALL]) == 0
    printed = capsys.readouterr().out
    assert "Table 1 layout" in printed and "score (GC) versus raw step" in printed
    assert RunStore(out).records()[0]["outcome"] == "success"
