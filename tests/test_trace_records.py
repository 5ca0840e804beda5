"""A step record's trace form: every field, nested dataclasses as objects, nothing shared with the live record."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from suite.records import Action, StepRecord, Usage
from suite.store import TraceWriter


@dataclass
class Pose:
    x: int
    y: int


def test_step_record_round_trips_through_the_trace(tmp_path: Path) -> None:
    prompt = [{"role": "user", "content": "look"}]
    record = StepRecord(index=2, action=Action(value=Pose(1, 2), text="go 1 2"), reply="ACTION: go 1 2",
                        prompt=prompt, info={"pose": Pose(3, 4), "n": (1, 2)}, usage=Usage(5, 6, 0.5),
                        note="retried")
    writer = TraceWriter(tmp_path, tmp_path / "t.jsonl", "t")
    writer.write(record.to_json())
    writer.close()
    line = json.loads((tmp_path / "t.jsonl").read_text())
    assert line["type"] == "step" and line["index"] == 2 and line["note"] == "retried"
    assert line["action"] == {"value": {"x": 1, "y": 2}, "text": "go 1 2", "parse_error": None}
    assert line["usage"]["prompt_tokens"] == 5 and line["usage"]["cost_usd"] == 0.5
    assert line["info"] == {"pose": {"x": 3, "y": 4}, "n": [1, 2]}
    assert line["prompt"] == prompt
    assert set(line) == {f for f in record.__dataclass_fields__} | {"type"}
