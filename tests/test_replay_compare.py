"""`suite replay` counts an episode identical only when every step and the settlement are reproduced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import litellm
import pytest
from suite.cli.main import main
from suite.models import register_script

RUN = ["run", "--plugins", "template", "--no-report", "--limit", "3", "model.cache=false", "model.retries=0"]


def _first_step_then_outage(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
    if metadata.get("step"):
        raise litellm.RateLimitError(message="provider overloaded", llm_provider="scripted", model="scripted/x")
    return "ACTION: +1"


def test_episodes_cut_short_by_the_model_are_not_replayable_and_not_differences(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each episode got one step, then its model failed: the step is reproduced and the failed call has no reply to
    serve back, so the episode is counted apart, not as a difference (issue 20)."""
    register_script("outage-after-one-step", _first_step_then_outage)
    out = tmp_path / "r"
    main([*RUN, "--model", "scripted/outage-after-one-step", "--out", str(out)])
    capsys.readouterr()
    assert main(["replay", str(out)]) == 0
    captured = capsys.readouterr()
    assert "0/3 trajectories identical, 0 differ, 3 not replayable (ended in model_error" in captured.out
    assert "differs" not in captured.err


def test_a_step_before_the_model_failed_that_replays_otherwise_is_a_difference(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_script("outage-after-one-step", _first_step_then_outage)
    out = tmp_path / "r"
    main([*RUN, "--model", "scripted/outage-after-one-step", "--out", str(out)])
    trace = sorted((out / "traces").glob("*.jsonl"))[0]
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    step = next(e for e in lines if e["type"] == "step")
    step["feedback"] = "recorded otherwise"
    trace.write_text("".join(json.dumps(e) + "\n" for e in lines))
    capsys.readouterr()
    assert main(["replay", str(out)]) == 1
    captured = capsys.readouterr()
    assert "0/3 trajectories identical, 1 differ (1 shown above), 2 not replayable" in captured.out
    assert "feedback" in captured.err


def _never_reached(messages: list[dict[str, Any]]) -> str:
    raise litellm.APIConnectionError(message="connection refused", llm_provider="scripted", model="scripted/x")


def test_episodes_whose_model_was_never_reached_are_not_replayable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_script("never-reached", _never_reached)
    out = tmp_path / "r"
    main([*RUN, "--model", "scripted/never-reached", "--out", str(out)])
    capsys.readouterr()
    assert main(["replay", str(out)]) == 0
    captured = capsys.readouterr()
    assert "0/3 trajectories identical, 0 differ, 3 not replayable" in captured.out
    assert "LookupError" not in captured.out + captured.err


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
