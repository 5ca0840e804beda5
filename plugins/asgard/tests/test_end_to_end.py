"""AsgardBench through the whole suite: `suite validate`, scripted litellm models, the report.

The oracle's commands, typed by a scripted model in the tagged answer format, must solve every task they
solved for the oracle; a model that only answers garbage must end every episode as the harness ends it:
by the loop rule after 8 unparsable turns. (CI runs the scripted models on one plan per task type of the pack; the full
108 real plans are checked by `suite validate` here.)
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.models import register_script
from suite.store.run_folder import RunStore

SMALL = ["asgard.image_size=32", "model.cache=false", "--no-report"]
ONE_PER_TYPE = ("coffee__has_coffee", "cook__Potato_", "cook__Egg_Pan(d)", "cook__Bread_", "cook__PotatoSliced_",
                "putaway__Food", "putaway__Dishes", "putaway__Silverware", "distribute__Tomato", "settable__empty",
                "clean_mirror", "turn_on_tv")


def tagged(commands: list[str], step: int) -> str:
    """A well-formed reply whose plan is the rest of the oracle's commands."""
    plan = "\n".join(f"{i}. {c}" for i, c in enumerate(commands[step:], 1))
    return (f"<think>\nVISUAL OBSERVATIONS:\n- step {step}\nINVENTORY CHECK:\n- as the history says\n</think>\n"
            "<answer>\n"
            f"THINGS TO REMEMBER:\n- turn {step} of {len(commands)}\n\nSUGGESTED PLAN SEQUENCE:\n{plan}\n\n"
            f"Action: {commands[step]}\n</answer>")


def oracle_commands(out: Path, pack_ids: list[str]) -> dict[str, list[str]]:
    """Run the oracle on the given tasks and read each episode's commands back from its trace."""
    assert main(["run", "--plugins", "asgard", "--agent", "oracle", "--tasks", ",".join(pack_ids),
                 "--out", str(out), *SMALL]) == 0
    store = RunStore(out)
    commands = {}
    for rec in store.records():
        assert rec["outcome"] == "success", rec
        steps = [e for e in store.read_trace(rec["episode_id"]) if e["type"] == "step"]
        commands[rec["episode_id"]] = [s["action"]["text"] for s in steps]
    return commands


@pytest.fixture(scope="module")
def sample_ids() -> list[str]:
    from suite_asgard.plugin import PACK_DIR

    names = sorted(p.name for p in PACK_DIR.iterdir() if p.is_dir())
    return [next(n for n in names if n.startswith(prefix)) for prefix in ONE_PER_TYPE]


def test_validate_solves_every_real_plan_within_its_limits(real_plans: Path, capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    out = tmp_path / "validate"
    assert main(["validate", "--plugins", "asgard", "--data-dir", str(real_plans), "--out", str(out),
                 "asgard.image_size=32"]) == 0
    assert "108/108" in capsys.readouterr().out
    for rec in RunStore(out).records():
        assert rec["steps"] <= max(int(2 * rec["metrics"]["step_count"]), 20)
        assert rec["metrics"]["data"] == "official"


def test_a_scripted_model_typing_the_oracle_commands_solves_every_task(tmp_path: Path, sample_ids: list[str],
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    commands = oracle_commands(tmp_path / "oracle", sample_ids)

    def reply(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        return tagged(commands[metadata["episode"]], metadata["step"])

    register_script("asgard-oracle-typist", reply)
    out = tmp_path / "typed"
    assert main(["run", "--plugins", "asgard", "--model", "scripted/asgard-oracle-typist", "--tasks",
                 ",".join(sample_ids), "--out", str(out), *SMALL]) == 0
    store = RunStore(out)
    records = store.records()
    assert len(records) == 12 and {r["task_category"] for r in records} == set(_types())
    for rec in records:
        assert rec["outcome"] == "success" and rec["steps"] == len(commands[rec["episode_id"]]), rec
        assert rec["metrics"]["valid_rate"] == 1.0 and rec["metrics"]["data"] == "generated"
        trace = store.read_trace(rec["episode_id"])
        first, second = [e for e in trace if e["type"] == "step"][:2]
        assert len(first["images"]) == 2 and first["images"][0]["path"]
        assert "SUGGESTED PLAN SEQUENCE" not in _notes(first) and "(none yet" in _notes(first)
        assert f"1. {commands[rec['episode_id']][0]}\n" in _notes(second).split("SUGGESTED PLAN SEQUENCE")[1]
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    titles = [t["title"] for t in report["details"]["asgard"]]
    assert titles[0].startswith("Success rate % per task type") and len(titles) == 6
    per_type = report["details"]["asgard"][0]["rows"][0]
    assert per_type[3] == per_type[4] == "100.0 (n=12)"  # ours and the harness's denominator: no model errors


def test_garbage_answers_end_every_episode_by_the_loop_rule(tmp_path: Path, sample_ids: list[str]) -> None:
    register_script("asgard-garbage", lambda messages: "I would rather not say.")
    out = tmp_path / "garbage"
    assert main(["run", "--plugins", "asgard", "--model", "scripted/asgard-garbage", "--tasks",
                 ",".join(sample_ids[:4]), "--out", str(out), *SMALL]) == 0
    records = RunStore(out).records()
    for rec in records:
        assert (rec["outcome"], rec["failure_category"], rec["steps"]) == ("parse_failure", "max_repeats", 8)
        metrics = rec["metrics"]
        assert metrics["turns_unparsable"] == 8 and metrics["unparsable_rate"] == 1.0
        assert metrics["end_reason"] == "max_repeats" and not metrics["success"]
        assert metrics["goal_fraction"] == 0.0  # the goals the scene starts with are no credit to it
    assert any(r["metrics"]["goals_met"] for r in records)  # some held from the start


def test_an_empty_reply_is_asked_three_times_then_is_an_unparsable_turn_the_notes_show(
        tmp_path: Path, sample_ids: list[str]) -> None:
    calls: list[int] = []

    def reply(messages: list) -> str:  # empty twice on the first turn, then a FIND; always empty after that
        calls.append(1)
        return "<answer>Action: FIND Floor</answer>" if len(calls) == 3 else ""

    register_script("asgard-silent", reply)
    out = tmp_path / "silent"
    assert main(["run", "--plugins", "asgard", "--model", "scripted/asgard-silent", "--tasks", sample_ids[0],
                 "--out", str(out), "asgard.condition=text_only_detailed", *SMALL]) == 0
    (rec,) = RunStore(out).records()
    # turn 1 asked 3 times and got the FIND; then 8 empty turns (3 asks each) repeat one entry: the loop rule
    assert len(calls) == 3 + 8 * 3 and rec["steps"] == 9
    assert (rec["failure_category"], rec["metrics"]["turns_unparsable"]) == ("max_repeats", 8)
    steps = [e for e in RunStore(out).read_trace(rec["episode_id"]) if e["type"] == "step"]
    assert "1. (empty reply) Failure: The reply was empty.\n2. (empty reply) Failure" in _notes(steps[3])


def test_a_model_that_repeats_itself_ends_by_the_loop_rule(tmp_path: Path, sample_ids: list[str]) -> None:
    register_script("asgard-looper", lambda messages: "<answer>Action: FIND Floor</answer>")
    out = tmp_path / "loop"
    assert main(["run", "--plugins", "asgard", "--model", "scripted/asgard-looper", "--tasks", sample_ids[0],
                 "--out", str(out), *SMALL]) == 0
    (rec,) = RunStore(out).records()
    assert (rec["outcome"], rec["failure_category"], rec["steps"]) == ("agent_failure", "max_repeats", 8)
    assert rec["metrics"]["valid_rate"] == 1.0 and "repeated 8 times in a row" in rec["failure_reason"]


def _notes(step: dict[str, Any]) -> str:
    """The AGENT NOTES section of the prompt a step was answered from (the end of its user message)."""
    content = step["prompt"][-1]["content"]
    return (content if isinstance(content, str) else content[0]["text"]).split("SECTION: AGENT NOTES")[1]


def _types() -> list[str]:
    from suite_asgard.vocabulary import TASK_TYPES

    return list(TASK_TYPES)


def test_repeats_report_the_median_over_runs(tmp_path: Path, sample_ids: list[str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "repeats"
    ids = [f"{sample_ids[-1]} #{k}" for k in (1, 2, 3)]
    assert main(["run", "--plugins", "asgard", "--agent", "oracle", "--tasks", ",".join(ids), "--out", str(out),
                 "--repeats", "3", *SMALL]) == 0
    records = RunStore(out).records()
    assert Counter(r["metrics"]["repeat"] for r in records) == {1: 1, 2: 1, 3: 1}
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    conditions = json.loads(capsys.readouterr().out)["details"]["asgard"][1]
    assert conditions["columns"] == ["model", "agent", "baseline"] and conditions["rows"][0][2] == "100.0 (n=1)"
