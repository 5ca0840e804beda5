"""A step record's trace form: every field, nested dataclasses as objects, prompt messages stored once by hash."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from suite.contract.records import Action, StepRecord, Usage
from suite.contract.schemas import validate
from suite.store.traces import TRACE_SCHEMA, TraceWriter, read_lines, read_trace


@dataclass
class Pose:
    x: int
    y: int


def _step(index: int, prompt: list[dict] | None, reply: str = "ACTION: go") -> dict:
    record = StepRecord(index=index, action=Action(value="go", text="go"), reply=reply, prompt=prompt,
                        prompt_hash="0123456789abcdef" if prompt else None)
    return {**record.to_json(), "observation": f"obs {index}"}


def test_step_record_round_trips_through_the_trace(tmp_path: Path) -> None:
    prompt = [{"role": "user", "content": "look"}]
    record = StepRecord(index=2, action=Action(value=Pose(1, 2), text="go 1 2"), reply="ACTION: go 1 2",
                        prompt=prompt, info={"pose": Pose(3, 4), "n": (1, 2)}, usage=Usage(5, 6, 0.5),
                        note="retried")
    writer = TraceWriter(tmp_path, tmp_path / "t.jsonl", "t")
    writer.write_step(record.to_json())
    writer.close()
    message, line = list(read_lines(tmp_path / "t.jsonl"))
    assert message == {"type": "message", "hash": line["messages"][0], "message": prompt[0]}
    assert line["type"] == "step" and line["index"] == 2 and line["note"] == "retried"
    assert line["action"] == {"value": {"x": 1, "y": 2}, "text": "go 1 2", "parse_error": None}
    assert line["usage"]["prompt_tokens"] == 5 and line["usage"]["cost_usd"] == 0.5
    assert line["info"] == {"pose": {"x": 3, "y": 4}, "n": [1, 2]}
    assert set(line) == ({f for f in record.__dataclass_fields__} - {"prompt", "prompt_texts"}) | {"type", "messages"}
    assert read_trace(tmp_path / "t.jsonl")[0]["prompt"] == prompt


def test_each_distinct_message_is_stored_once_and_a_growing_one_as_an_edit(tmp_path: Path) -> None:
    system = {"role": "system", "content": "You are in a house. " * 200}  # 4 KB, sent every step
    prompts, history = [], []
    for i in range(300):
        history.append(f"step {i}: went to room {i % 7}, saw a cup {i}")
        user = {"role": "user", "content": [{"type": "text", "text": "History:\n" + "\n".join(history)
                                             + f"\nNow: room {i % 7}. What next?"}]}
        prompts.append([system, user] if i % 2 else [system, user, {"role": "user", "content": "again"}])
    writer = TraceWriter(tmp_path, tmp_path / "t.jsonl", "t")
    for i, prompt in enumerate(prompts):
        writer.write_step(_step(i, prompt))
    writer.write_step(_step(300, None))  # an agent without a model sends no prompt
    writer.close()
    text = (tmp_path / "t.jsonl").read_text()
    assert text.count("You are in a house.") == 200  # the system message is in the file once
    assert len(text.encode()) / 300 < 1500  # the full history would take ~13 KB per step on average
    events = read_trace(tmp_path / "t.jsonl")
    assert [e["prompt"] for e in events[:300]] == prompts and "prompt" not in events[300]
    for line in read_lines(tmp_path / "t.jsonl"):
        validate(line, TRACE_SCHEMA, "trace line")


def test_a_lone_surrogate_in_a_prompt_or_reply_is_stored_and_read_back(tmp_path: Path) -> None:
    prompt = [{"role": "user", "content": "odd \ud800 text"}]
    writer = TraceWriter(tmp_path, tmp_path / "t.jsonl", "t")
    writer.write_step(_step(0, prompt, reply="ACTION: \udfff"))
    writer.close()
    step = read_trace(tmp_path / "t.jsonl")[0]
    assert step["prompt"] == prompt and step["reply"] == "ACTION: \udfff"
    json.loads((tmp_path / "t.jsonl").read_text().splitlines()[-1])


def test_the_prompt_hash_from_message_texts_is_the_hash_of_the_whole_prompt() -> None:
    import hashlib
    import json
    import pickle

    from suite.contract.records import message_texts, prompt_hash

    prompt = [{"role": "system", "content": "règles: « go »"},
              {"role": "user", "content": [{"type": "text", "text": "x"},
                                           {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
              {"role": "user", "content": "\ud800 lone", "name": None, "n": 1.5}]
    whole = json.dumps(prompt, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    assert prompt_hash(prompt, message_texts(prompt)) == hashlib.sha256(whole).hexdigest()[:16] == prompt_hash(prompt)
    assert message_texts([{"role": "user", "content": object()}]) is None  # no JSON form: hashed as before
    record = StepRecord(0, Action("go"), prompt=prompt, prompt_texts=message_texts(prompt))
    assert pickle.loads(pickle.dumps(record)).prompt_texts is None
