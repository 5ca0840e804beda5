"""`suite replay` of a HoloMind run (issue 20): the recorded replies are served back by (step, call within the step),
so an agent that calls its models several times per step replays identically."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.models import register_script

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "holomind_rules.py"


def _rules() -> object:
    spec = importlib.util.spec_from_file_location("holomind_rules", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.rules


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
