"""Vigil through the whole suite: a scripted litellm model, the oracle, the report's tables, +FB pairing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.models import register_script
from suite.store.run_folder import RunStore

from .conftest import tasks

SMALL = ["model.cache=false", "--no-report"]


@pytest.fixture(scope="module")
def two_per_family() -> list[str]:
    ids: list[str] = []
    for t in tasks():
        if sum(1 for i in ids if i.startswith(t.category + ":")) < 2:
            ids.append(f"{t.category}:{t.id}")
    return [i.split(":", 1)[1] for i in ids]


def test_a_model_reporting_success_at_once_scores_fr_on_every_w0_and_no_sv(tmp_path: Path,
                                                                          two_per_family: list[str]) -> None:
    calls = []

    def reply(messages: list) -> str:
        calls.append(messages)
        return json.dumps({"skill_name": "report", "arguments": {"status": "success", "summary": "looks done"}})

    register_script("vigil-eager", reply)
    out = tmp_path / "eager"
    assert main(["run", "--plugins", "vigil", "--model", "scripted/vigil-eager", "--tasks", ",".join(two_per_family),
                 "--out", str(out), *SMALL]) == 0
    store = RunStore(out)
    records = store.records()
    assert len(records) == 16 and len(calls) == 16
    meta = store.meta()["benchmark_meta"]["vigil"]
    assert meta["profile"] == "pure_rgb_dialogue_history_baseline" and len(meta["prompt_sha256"]) == 64
    assert meta["prompt_policy"] == "native_embodied_public_evidence" and meta["prompt_policy_version"]
    for rec in records:
        m = rec["metrics"]
        assert rec["steps"] == 1 and m["reported"] and m["status"] == "success"
        if not m["W"]:
            assert m["FR"] and m["false_success"] and rec["failure_category"] == "FR"
        if m["family"] == "SV":
            assert not m["B"] and m["W"] and m["FR"]
    assert all(r["outcome"] == "agent_failure" for r in records)


def test_garbage_replies_end_every_episode_on_the_invalid_action_limit(tmp_path: Path,
                                                                        two_per_family: list[str]) -> None:
    register_script("vigil-garbage", lambda messages: "I will open the fridge now.")
    out = tmp_path / "garbage"
    assert main(["run", "--plugins", "vigil", "--model", "scripted/vigil-garbage", "--tasks",
                 ",".join(two_per_family[:4]), "--out", str(out), *SMALL]) == 0
    for rec in RunStore(out).records():
        m = rec["metrics"]
        assert m["IL"] and m["NR"] and rec["failure_category"] == "IL" and rec["outcome"] == "parse_failure"
        assert m["invalid_actions"] == rec["steps"]


def test_oracle_and_feedback_runs_pair_in_the_report(tmp_path: Path, two_per_family: list[str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    ids = ",".join(two_per_family[:6])
    base, fb = tmp_path / "base", tmp_path / "fb"
    assert main(["run", "--plugins", "vigil", "--agent", "oracle", "--tasks", ids, "--out", str(base), *SMALL]) == 0
    assert main(["run", "--plugins", "vigil", "--agent", "oracle", "--tasks", ids, "--out", str(fb),
                 "--label", "fb", "vigil.feedback=true", *SMALL]) == 0
    assert all(r["outcome"] == "success" for r in RunStore(base).records())
    assert all(r["metrics"]["feedback"] for r in RunStore(fb).records())
    capsys.readouterr()
    assert main(["report", str(base), str(fb)]) == 0
    out = capsys.readouterr().out
    assert "Action feedback" in out and "W/B (%) per family" in out


@pytest.mark.parametrize(("setting", "word"), [
    ("vigil.coords=normalised", "coords"), ("vigil.families=[PG,XX]", "families"), ("vigil.feedback=maybe", "feedback"),
    ("vigil.env.backend=unity", "backend"), ("vigil.invalid_limits.PG=-1", "PG"), ("vigil.prompt=short", "prompt"),
])
def test_bad_settings_fail_before_the_first_episode(tmp_path: Path, setting: str, word: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--plugins", "vigil", "--agent", "oracle", "--out", str(tmp_path / "bad"), setting]) == 2
    assert word in capsys.readouterr().err and not (tmp_path / "bad" / "run.sqlite").exists()
