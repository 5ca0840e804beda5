"""`suite replay` of a HoloMind run (issue 20): the recorded replies are served back by (step, call within the step),
so an agent that calls its models several times per step replays identically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.models import register_script


def _rules() -> object:
    from suite_longact.holomind.rules_model import rules

    return rules


def test_a_holomind_run_replays_identically(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_script("holomind-rules", _rules())
    out = tmp_path / "run"
    assert main(["run", "--plugins", "longact", "--agent", "holomind", "--model", "scripted/holomind-rules",
                 "--tasks", "longact_000,longact_001", "--out", str(out), "longact.max_steps=60",
                 "longact.images=[]", "model.cache=false", "--no-report"]) == 0
    steps = [json.loads(line) for trace in sorted((out / "traces").glob("*.jsonl"))
             for line in trace.read_text().splitlines()]
    calls = [len(s.get("calls") or []) for s in steps if s["type"] == "step"]
    assert max(calls) > 1  # steps with several model calls: what a one-reply-per-step replay could not serve
    capsys.readouterr()
    assert main(["replay", str(out)]) == 0
    assert "2/2 trajectories identical, 0 differ" in capsys.readouterr().out


def test_the_stand_in_is_registered_and_an_unfinished_episode_ends_at_the_cap(tmp_path: Path) -> None:
    """`--model scripted/holomind-rules` works in `suite run` as it is (the plugin registers it), and an episode
    HoloMind has not finished ends at the step cap as `budget_exhausted`, not by a Stop of its own."""
    from suite.store.run_folder import RunStore

    out = tmp_path / "cap"
    assert main(["run", "--plugins", "longact", "--agent", "holomind", "--model", "scripted/holomind-rules",
                 "--tasks", "longact_000", "--out", str(out), "longact.max_steps=120", "longact.images=[]",
                 "--no-report"]) == 0
    (record,) = RunStore(out).records()
    assert (record["outcome"], record["end_reason"], record["steps"]) == ("budget_exhausted", "max_steps", 120)


@pytest.mark.parametrize("model", ["scripted/random", "scripted/first-option"])
def test_a_model_that_cannot_play_the_modules_is_refused_before_the_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str) -> None:
    """A script that answers only with the benchmark's own actions cannot play HoloMind's modules: one line, exit 2,
    no run folder (not a run of model errors and a retry hint that could only fail again)."""
    out = tmp_path / "refused"
    assert main(["run", "--plugins", "longact", "--agent", "holomind", "--model", model, "--tasks", "longact_000",
                 "--out", str(out), "--no-report"]) == 2
    err = capsys.readouterr().err
    assert f"--model {model} answers only with the benchmark's own actions" in err
    assert "--model scripted/holomind-rules plays it" in err
    assert not out.exists()
