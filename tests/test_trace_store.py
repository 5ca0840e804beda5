"""Run traces as stored: every line valid against the trace-line schema, the spend of cut-off attempts kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.contract.schemas import validate
from suite.store.run_folder import RunStore
from suite.store.traces import TRACE_SCHEMA, read_lines

RUN = ["run", "--plugins", "template", "--no-report", "--model", "scripted/counter-greedy", "model.cache=false"]


def _validate_traces(root: Path) -> int:
    lines = 0
    for path in sorted((root / "traces").glob("*.jsonl")):
        for line in read_lines(path):
            validate(line, TRACE_SCHEMA, f"{path.name} line {lines}")
            lines += 1
    return lines


def test_every_trace_line_of_a_run_matches_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([*RUN, "--out", str(out), "--limit", "4"]) == 0
    assert _validate_traces(out) > 4 * 3
    store = RunStore(out)
    for record in store.records():
        steps = [e for e in store.read_trace(record["episode_id"]) if e["type"] == "step"]
        assert all(s["prompt"][0]["role"] and len(s["messages"]) == len(s["prompt"]) for s in steps)


def _json_report(root: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["report", str(root), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["rows"][0]["benchmarks"]["counter"]


def _runs_cost(capsys: pytest.CaptureFixture[str]) -> float:
    """The cost column of `suite runs .` for the one run folder `r` (run in its parent folder)."""
    capsys.readouterr()
    assert main(["runs", "."]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip("│| ").startswith("r "))
    return float(line.strip("│| ").split()[-1])


def test_spend_of_cut_off_episodes_is_in_the_totals_and_their_traces_are_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = Path("r")
    priced = ["model.price_per_mtok.prompt=10000", "--concurrency", "2"]
    assert main([*RUN, *priced, "--out", str(out), "--max-cost", "2"]) == 3
    store = RunStore(out)
    finished = sum(r["cost_usd"] for r in store.records())
    cut = {p.name: p.read_bytes() for p in store.partial_traces()}
    store.close()
    assert cut, "the budget stop must cut an episode off"
    group = _json_report(out, capsys)
    assert group["spend"]["cut_off"]["cost_usd"] > 0 and group["spend"]["cut_off"]["attempts"] == len(cut)
    assert group["cost_usd"] == pytest.approx(finished + group["spend"]["cut_off"]["cost_usd"], abs=1e-5)
    assert _runs_cost(capsys) == pytest.approx(group["cost_usd"], abs=1e-4)

    assert main(["run", "--resume", str(out), "--max-cost", "1000", "--no-report"]) == 0
    kept = {p.name.replace(".partial-1", ""): p.read_bytes() for p in (out / "traces").glob("*.partial-1.jsonl")}
    assert kept == cut  # the cut-off attempts' traces are kept as they were, never overwritten
    after = _json_report(out, capsys)
    assert after["spend"]["cut_off"] == group["spend"]["cut_off"]
    assert after["cost_usd"] == pytest.approx(after["spend"]["finished"]["cost_usd"] + group["spend"]["cut_off"]
                                              ["cost_usd"], abs=1e-5)
    assert _runs_cost(capsys) == pytest.approx(after["cost_usd"], abs=1e-4)
    assert _validate_traces(out) > 0
