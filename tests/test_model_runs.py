"""Runs through the model layer end to end (the template's `counter` benchmark, scripted models, the CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.models import register_script
from suite.store.run_folder import RunStore

RUN = ["run", "--plugins", "template", "--no-report", "run.concurrency=1"]


def _records(out: Path) -> list[dict[str, Any]]:
    return sorted(RunStore(out).records(), key=lambda r: r["episode_id"])


def _steps(out: Path, episode_id: str) -> list[dict[str, Any]]:
    return [e for e in RunStore(out).read_trace(episode_id) if e["type"] == "step"]


def test_repeats_and_identical_prompts_each_reach_the_model_and_a_rerun_costs_nothing(tmp_path: Path) -> None:
    """Every repeat is sampled anew and so is a byte-identical prompt after an unparsable reply; the same run
    again with --cache is served from the cache, and its tokens are counted as cached, not spent."""
    script = register_script("t-mumble", lambda messages: f"mumble {script.calls}")
    first = tmp_path / "first"
    assert main([*RUN, "--model", "scripted/t-mumble", "--tasks", "c01", "--repeats", "3", "--out", str(first)]) == 0
    records = _records(first)
    assert [r["steps"] for r in records] == [7, 7, 7] and script.calls == 21
    replies = [s["reply"] for r in records for s in _steps(first, r["episode_id"])]
    assert len(set(replies)) == 21  # no reply served twice
    assert all(r["prompt_tokens"] > 0 and r["cached_prompt_tokens"] == 0 for r in records)

    again = tmp_path / "again"
    assert main([*RUN, "--model", "scripted/t-mumble", "--tasks", "c01", "--repeats", "3", "--out", str(again),
                 "--cache"]) == 0
    assert script.calls == 21  # nothing asked twice
    for old, new in zip(records, _records(again), strict=True):
        assert [s["reply"] for s in _steps(again, new["episode_id"])] == \
            [s["reply"] for s in _steps(first, old["episode_id"])]
        assert (new["prompt_tokens"], new["completion_tokens"], new["cost_usd"]) == (0, 0, 0)
        assert (new["cached_prompt_tokens"], new["cached_completion_tokens"]) == \
            (old["prompt_tokens"], old["completion_tokens"])
        assert new["earlier_run_replies"] == 7 and old["earlier_run_replies"] == 0


def test_a_new_run_asks_the_model_again_unless_cache_is_given(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """At temperature 1.0 two runs are two samples: the second run makes every request again (the response cache
    is reused across runs only with --cache / model.cache=true), and a run that reused replies says how many."""
    script = register_script("t-sample", lambda messages: f"sample {script.calls}")
    args = ["run", "--plugins", "template", "--no-report", "--model", "scripted/t-sample", "--tasks", "c01"]
    for name in ("one", "two"):
        assert main([*args, "--out", str(tmp_path / name), "model.temperature=1.0"]) == 0
    assert script.calls == 14  # 7 steps, asked twice
    assert [s["reply"] for s in _steps(tmp_path / "two", "counter/c01")] != \
        [s["reply"] for s in _steps(tmp_path / "one", "counter/c01")]
    assert main([*args, "--out", str(tmp_path / "three"), "model.temperature=1.0", "model.cache=true"]) == 0
    assert script.calls == 14  # every reply from the cache
    capsys.readouterr()
    for name, reused in (("two", 0), ("three", 7)):
        assert main(["report", str(tmp_path / name), "--format", "json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["rows"][0]["benchmarks"]["counter"]["earlier_run_replies"] == reused
        notes = [n for n in summary["notes"] if n.startswith("REUSED replies")]
        assert notes == ([f"REUSED replies: scripted/t-sample / direct / counter: {reused} model replies came from "
                          "the response cache of an earlier run (--cache), not from new requests"] if reused else [])
    assert main(["report", str(tmp_path / "three")]) == 0
    assert "REUSED replies" in " ".join(capsys.readouterr().out.split())


def test_a_run_reuses_its_own_replies_when_it_is_resumed(tmp_path: Path) -> None:
    """Without --cache, a run retried with `--resume --retry-infra` is still served its own cached replies: they
    are this run's samples (no request made, none counted as an earlier run's)."""
    import sqlite3

    script = register_script("t-own", lambda messages: f"own {script.calls}")
    out = tmp_path / "run"
    assert main([*RUN, "--model", "scripted/t-own", "--tasks", "c01", "--out", str(out)]) == 0
    assert script.calls == 7
    db = sqlite3.connect(out / "run.sqlite")  # as if the episode had ended in an infra failure
    db.execute("UPDATE episodes SET record = json_set(record, '$.outcome', 'model_error')")
    db.commit()
    db.close()
    assert main(["run", "--resume", str(out), "--retry-infra", "--no-report"]) == 0
    assert script.calls == 7
    (record,) = _records(out)
    assert record["steps"] == 7 and record["prompt_tokens"] == 0 and record["earlier_run_replies"] == 0


def test_the_report_counts_cached_tokens_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_script("t-steady", lambda messages: "ACTION: +1")
    for name in ("a", "b"):
        assert main([*RUN, "--model", "scripted/t-steady", "--tasks", "c02", "--out", str(tmp_path / name),
                     "--cache"]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "b"), "--format", "json"]) == 0
    group = json.loads(capsys.readouterr().out)["rows"][0]["benchmarks"]["counter"]
    record = _records(tmp_path / "a")[0]
    assert group["tokens"] == 0
    assert group["cached_tokens"] == record["prompt_tokens"] + record["completion_tokens"] > 0


def test_a_lone_surrogate_in_a_reply_is_stored_and_parsed(tmp_path: Path) -> None:
    register_script("t-surrogate", lambda messages: "ACTION: +1 \ud800")
    out = tmp_path / "run"
    assert main([*RUN, "--model", "scripted/t-surrogate", "--tasks", "c02", "--out", str(out)]) == 0
    record = _records(out)[0]
    assert record["outcome"] == "budget_exhausted" and record["steps"] == 7  # c02 needs DONE at +1 x4
    steps = _steps(out, record["episode_id"])
    assert steps[0]["reply"] == "ACTION: +1 \ufffd" and steps[0]["action"]["value"] == "+1"


def test_a_reply_over_the_cap_is_cut_and_the_step_says_by_how_much(tmp_path: Path) -> None:
    register_script("t-flood", lambda messages: "ACTION: +1 " + "x" * 5000)
    out = tmp_path / "run"
    assert main([*RUN, "model.max_reply_chars=100", "--model", "scripted/t-flood", "--tasks", "c02",
                 "--out", str(out)]) == 0
    step = _steps(out, _records(out)[0]["episode_id"])[0]
    assert len(step["reply"]) == 100 and step["usage"]["truncated_chars"] == 4911
    assert step["action"]["value"] == "+1"


@pytest.mark.parametrize("model", ["scripted/random", "scripted/first-option"])
def test_the_builtin_baseline_models_play_with_the_default_agent(model: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main([*RUN, "--model", model, "--limit", "4", "--out", str(out)]) == 0
    records = _records(out)
    assert len(records) == 4 and not {r["outcome"] for r in records} & {"model_error", "env_error"}
    actions = [s["action"] for r in records for s in _steps(out, r["episode_id"])]
    assert all(a["parse_error"] is None for a in actions)
    if model.endswith("first-option"):
        assert {a["value"] for a in actions} == {"+1"}
    again = tmp_path / "again"  # a re-run draws the same replies
    assert main([*RUN, "--model", model, "--limit", "4", "--out", str(again)]) == 0
    assert [r["steps"] for r in _records(again)] == [r["steps"] for r in records]


def test_a_baseline_model_on_a_benchmark_without_valid_replies_stops_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("suite_template.plugin.valid_reply", None)  # the template as a plugin that declares none
    out = tmp_path / "run"
    assert main([*RUN, "--model", "scripted/random", "--out", str(out)]) == 2
    assert "counter declares none" in capsys.readouterr().err and not out.exists()


def test_an_empty_reply_is_asked_once_unless_the_benchmark_asks_again(tmp_path: Path) -> None:
    """`BenchmarkSpec.empty_reply_attempts` defaults to 1: an empty reply is parsed as it is, one call per step
    (AsgardBench sets 3, tested with its plugin)."""
    script = register_script("t-silent", lambda messages: "")
    out = tmp_path / "silent"
    assert main([*RUN, "--model", "scripted/t-silent", "--tasks", "c01", "--out", str(out)]) == 0
    (record,) = _records(out)
    assert script.calls == record["steps"] > 0
