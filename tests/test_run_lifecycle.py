"""Crash, resume, replay, budgets, outages and secrets: every episode accounted for."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from run_processes import finished, interrupt, start_suite, wait_finished
from suite.cli.main import main
from suite.store.run_folder import RunStore
from suite.store.traces import trace_spend

RUN = ["run", "--plugins", "template", "--no-report"]
VOLATILE = {"duration_s"}


def _records(root: Path) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in VOLATILE} for r in RunStore(root).records()]


def _report(root: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["report", str(root), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    return report["rows"]


def test_kill_9_then_resume_matches_an_uninterrupted_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = ["--model", "scripted/counter-greedy", "--concurrency", "2", "model.cache=false"]
    ref = tmp_path / "ref"
    assert main([*RUN, *model, "--out", str(ref)]) == 0
    crashed = tmp_path / "crashed"
    env = {**os.environ, "COUNTER_LATENCY_S": "0.05"}
    proc = start_suite([*RUN, *model, "--out", str(crashed)], env)
    wait_finished(proc, crashed, 3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished_before = finished(crashed)
    assert 3 <= finished_before < 12, "the kill must land mid-run"
    before = {r["episode_id"]: r for r in RunStore(crashed).records()}
    assert main(["run", "--resume", str(crashed), "--no-report"]) == 0
    after = _records(crashed)
    assert len(after) == 12 and len({r["episode_id"] for r in after}) == 12
    assert sorted(after, key=lambda r: r["episode_id"]) == sorted(_records(ref), key=lambda r: r["episode_id"])
    store = RunStore(crashed)
    for eid, rec in before.items():  # finished episodes were not re-run
        assert {r["episode_id"]: r for r in store.records()}[eid] == rec
    attempts = dict(store.db.execute("SELECT episode_id, attempts FROM episodes"))
    assert sum(a == 1 for a in attempts.values()) >= finished_before
    got, want = _report(crashed, capsys)[0]["benchmarks"]["counter"], _report(ref, capsys)[0]["benchmarks"]["counter"]
    spend = {"tokens", "cost_usd", "spend"}
    assert {k: v for k, v in got.items() if k not in spend} == {k: v for k, v in want.items() if k not in spend}
    assert got["spend"]["finished"] == want["spend"]["finished"]  # the attempts the kill cut off count on top
    cut = got["spend"]["cut_off"]
    assert got["tokens"] == want["tokens"] + cut["prompt_tokens"] + cut["completion_tokens"]


def test_replay_reports_every_trajectory_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main([*RUN, "--model", "scripted/counter-greedy", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out), "--out", str(tmp_path / "replayed")]) == 0
    assert "12/12 trajectories identical" in capsys.readouterr().out
    tokens = [(r["prompt_tokens"], r["completion_tokens"]) for r in _records(out)]
    assert [(r["prompt_tokens"], r["completion_tokens"]) for r in _records(tmp_path / "replayed")] == tokens


def test_a_replay_carries_the_recorded_token_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Not estimates: a model's own counts (here a script that reports 1000 + 10 tokens a call)."""
    from suite.models import ScriptedReply, register_script

    register_script("t-counted", lambda messages: ScriptedReply("ACTION: +1", 1000, 10))
    out = tmp_path / "r"
    assert main([*RUN, "--model", "scripted/t-counted", "--out", str(out), "--tasks", "c02"]) == 0
    capsys.readouterr()
    assert main(["replay", str(out), "--out", str(tmp_path / "replayed")]) == 0
    [record] = _records(tmp_path / "replayed")
    assert (record["prompt_tokens"], record["completion_tokens"]) == (7000, 70)


def test_replay_detects_a_changed_trajectory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main([*RUN, "--model", "scripted/counter-greedy", "--out", str(out), "--limit", "3"]) == 0
    trace = next((out / "traces").glob("*.jsonl"))
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    step = next(e for e in lines if e["type"] == "step")
    step["reply"] = "ACTION: DONE" if "DONE" not in step["reply"] else "ACTION: +1"
    trace.write_text("\n".join(json.dumps(e) for e in lines) + "\n")
    assert main(["replay", str(out), "--out", str(tmp_path / "replayed")]) == 1
    assert "2/3 trajectories identical" in capsys.readouterr().out


def test_api_keys_never_reach_the_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_key, cfg_key = "sk-env-SECRET-1234567890", "sk-cfg-SECRET-0987654321"
    monkeypatch.setenv("OPENAI_API_KEY", env_key)
    out = tmp_path / "r"
    assert main([*RUN, "--model", "scripted/counter-greedy", "--out", str(out), "--limit", "4",
                 f"model.params.api_key={cfg_key}"]) == 0
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files
    for path in files:
        data = path.read_bytes()
        assert env_key.encode() not in data and cfg_key.encode() not in data, path


def test_unreachable_model_is_recorded_as_model_error_and_the_run_says_so(tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([*RUN, "--model", "openai/gpt-4o-mini", "--out", str(out), "--limit", "3",
                 "model.params.api_key=sk-test", "model.params.api_base=http://127.0.0.1:9/v1", "model.retries=1",
                 "model.backoff_base_s=0.01", "model.backoff_max_s=0.02", "model.cache=false"]) == 4  # stopped
    records = RunStore(out).records()
    assert len(records) == 3 and RunStore(out).status() == "stopped"
    assert {r["outcome"] for r in records} == {"model_error"} and all(r["failure_reason"] for r in records)


def test_missing_api_key_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main([*RUN, "--model", "openai/gpt-4o-mini", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert "OPENAI_API_KEY" in err and len(err.splitlines()) == 1


def test_malformed_task_file_names_file_and_pointer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "tasks.jsonl").write_text(json.dumps({"id": "x", "start": "zero", "target": 1, "max_steps": 3}) + "\n")
    assert main([*RUN, "--agent", "oracle", "--data-dir", str(data), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert "tasks.jsonl:1" in err and "/start" in err and "integer" in err and len(err.splitlines()) == 1


def test_max_cost_stops_cleanly_and_resume_finishes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    priced = ["--model", "scripted/counter-greedy", "model.cache=false", "model.price_per_mtok.prompt=10000",
              "--concurrency", "2"]
    assert main([*RUN, *priced, "--out", str(out), "--max-cost", "2"]) == 3
    store = RunStore(out)
    finished = store.records()
    assert 0 < len(finished) < 12 and store.meta()["status"] == "stopped"
    assert set(store.counts()) <= {"done", "pending"}
    assert "resume" in capsys.readouterr().err
    assert main(["run", "--resume", str(out), "--max-cost", "1000", "--no-report"]) == 0
    after = RunStore(out).records()
    assert len(after) == 12 and {r["episode_id"] for r in finished} <= {r["episode_id"] for r in after}
    assert all(r["outcome"] == "success" for r in after)


def test_ctrl_c_flushes_marks_interrupted_and_exits_130(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    env = {**os.environ, "COUNTER_LATENCY_S": "0.1"}
    proc = start_suite([*RUN, "--model", "scripted/counter-greedy", "model.cache=false", "--concurrency", "2",
                        "--out", str(out)], env)
    wait_finished(proc, out, 2)
    err = interrupt(proc)
    assert proc.returncode == 130, err[-500:]
    store = RunStore(out)
    assert store.meta()["status"] == "interrupted"
    assert set(store.counts()) <= {"done", "pending"}
    assert 2 <= store.counts()["done"] < 12
    assert main(["run", "--resume", str(out), "--no-report"]) == 0
    assert len(RunStore(out).records()) == 12
    traced = sum(trace_spend(path)[1].tokens for path in (out / "traces").glob("*.jsonl"))  # partial ones too
    assert _report(out, capsys)[0]["benchmarks"]["counter"]["tokens"] == traced  # every token spent is counted


def test_a_run_keeps_its_set_up_out_of_full_garbage_collections_and_gives_it_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full collection over litellm's modules stalls every episode for about 0.2 s: a run freezes what it was set up
    with while its episodes run, and unfreezes it at its end (a process may start other runs)."""
    import gc

    from suite.engine import runner

    seen: list[int] = []
    real = runner.run_episode

    async def noting(*args: object, **kwargs: object) -> object:
        seen.append(gc.get_freeze_count())
        return await real(*args, **kwargs)

    monkeypatch.setattr(runner, "run_episode", noting)
    before = gc.get_freeze_count()
    assert main([*RUN, "--agent", "oracle", "--limit", "2", "--out", str(tmp_path / "r")]) == 0
    assert len(seen) == 2 and min(seen) > before
    assert gc.get_freeze_count() == before
