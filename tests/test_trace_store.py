"""Run traces as stored: every line valid against the trace-line schema, the spend of cut-off attempts kept."""

from __future__ import annotations

from pathlib import Path

from suite.cli import main
from suite.schemas import validate
from suite.store import RunStore
from suite.traces import TRACE_SCHEMA, read_lines

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
