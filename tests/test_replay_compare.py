"""`suite replay` counts an episode identical only when every step and the settlement are reproduced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import litellm
import pytest
from suite.cli import main
from suite.models import register_script

RUN = ["run", "--plugins", "template", "--no-report", "--limit", "3", "model.cache=false", "model.retries=0"]


def _first_step_then_outage(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
    if metadata.get("step"):
        raise litellm.RateLimitError(message="provider overloaded", llm_provider="scripted", model="scripted/x")
    return "ACTION: +1"


def test_episodes_the_replay_cannot_run_to_their_end_are_differences(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_script("outage-after-one-step", _first_step_then_outage)
    out = tmp_path / "r"
    main([*RUN, "--model", "scripted/outage-after-one-step", "--out", str(out)])
    capsys.readouterr()
    assert main(["replay", str(out)]) == 1
    captured = capsys.readouterr()
    assert "0/3 trajectories identical, 3 differ" in captured.out
    assert " ".join(captured.err.split()).count("replay has no recorded reply") == 3


def test_a_different_settlement_is_a_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main([*RUN, "--model", "scripted/counter-greedy", "--out", str(out)]) == 0
    trace = sorted((out / "traces").glob("*.jsonl"))[0]
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    lines[-1]["settlement"]["failure_reason"] = "recorded otherwise"
    trace.write_text("".join(json.dumps(e) + "\n" for e in lines))
    capsys.readouterr()
    assert main(["replay", str(out)]) == 1
    captured = capsys.readouterr()
    assert "2/3 trajectories identical, 1 differ" in captured.out and "settlement" in captured.err
