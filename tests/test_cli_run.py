"""End-to-end runs of the CLI on the template plugin with its oracle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.contract.schemas import validate
from suite.store.run_folder import RECORD_SCHEMA, RunStore


def test_oracle_run_stores_valid_records_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--out", str(out), "--no-report"]) == 0
    store = RunStore(out)
    records = store.records()
    assert len(records) == 12 and all(r["outcome"] == "success" for r in records)
    for rec in records:
        validate(rec, RECORD_SCHEMA, "record")
        trace = store.read_trace(rec["episode_id"])
        assert trace[0]["type"] == "start" and trace[-1]["type"] == "end"
        assert sum(e["type"] == "step" for e in trace) == rec["steps"]
    meta = store.meta()
    assert meta["status"] == "complete" and meta["data"]["counter"]["kind"] == "generated"
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    group = report["rows"][0]["benchmarks"]["counter"]
    assert group["metrics"]["success"]["mean"] == 1.0 and group["outcomes"]["success"] == 12


def test_limit_and_tasks_select_episodes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--out", str(out), "--limit", "5",
                 "--no-report"]) == 0
    assert len(RunStore(out).records()) == 5
    out2 = tmp_path / "run2"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--out", str(out2), "--tasks", "c01,c03",
                 "--no-report"]) == 0
    assert sorted(r["task_id"] for r in RunStore(out2).records()) == ["c01", "c03"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--plugins", "nosuch", "--agent", "oracle"], "unknown plugin 'nosuch'"),
        (["run", "--plugins", "template", "--agent", "oracle", "run.concurency=2"], "did you mean 'run.concurrency'"),
        (["run", "--plugins", "template"], "needs a model"),
        (["run", "--plugins", "template", "--agent", "nosuch"], "no agent 'nosuch'"),
        (["run", "--plugins", "template", "--model", "scripted/counter-greedy",
          r"model.params.mock_response=Thought: x\nACTION: +1"], "its value is not valid YAML"),
    ],
)
def test_bad_input_gives_one_clear_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    assert main([*argv, "--out", str(tmp_path / "r")] if argv[0] == "run" else argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    if argv[2] == "nosuch":
        assert "installed:" in err and "template" in err


def test_repeats_run_every_task_k_times(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--out", str(out), "--tasks", "c01,c02",
                 "--repeats", "3", "--no-report"]) == 0
    ids = sorted(r["task_id"] for r in RunStore(out).records())
    assert ids == ["c01 #1", "c01 #2", "c01 #3", "c02 #1", "c02 #2", "c02 #3"]


def test_run_out_from_the_config_names_the_folder_and_is_saved(tmp_path: Path) -> None:
    out = tmp_path / "from-config"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--no-report",
                 f"run.out={out}"]) == 0
    assert len(RunStore(out).records()) == 1
    assert f"out: {out}" in (out / "config.yaml").read_text()
