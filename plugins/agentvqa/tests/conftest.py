"""A tiny hand-made AgentVQA data directory: an image question, a JPEG pair, a GIF video and a frame list."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image


def record(qid: str, dataset: str, domain: str, category: str, media: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A valid record; keyword arguments replace fields."""
    base = {"id": qid, "dataset": dataset, "domain": domain, "category": category, "goal": None,
            "action_history": None, "question": "Which one?", "options": ["w", "x", "y", "z"], "answer": "B",
            "media": media}
    return {**base, **extra}


def write_records(root: Path, records: list[dict[str, Any]]) -> Path:
    """Write records.jsonl into `root`."""
    (root / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return root


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """Four questions over every media kind (images at 8x6, a 5-frame GIF, a 40-frame list)."""
    media = tmp_path / "media"
    media.mkdir()
    Image.new("RGB", (8, 6), (200, 10, 10)).save(media / "a.png")
    Image.new("RGB", (8, 6), (10, 200, 10)).save(media / "b.jpg")
    frames = [Image.new("RGB", (8, 6), (i * 40, 0, 0)) for i in range(5)]
    frames[0].save(media / "clip.gif", save_all=True, append_images=frames[1:])
    for i in range(40):
        Image.new("RGB", (4, 4), (i, i, i)).save(media / f"f{i:02d}.png")
    return write_records(tmp_path, [
        record("aitw/1", "aitw", "web_agents", "tap", {"images": ["media/a.png"]}, goal="Open the fridge.",
               action_history=["Swipe: Left"], answer="A"),
        record("erqa/1", "erqa", "robotics", "task_estimation", {"images": ["media/a.png", "media/b.jpg"]}),
        record("vsi_bench/1", "vsi_bench", "egocentric_videos", "object_counting", {"video": "media/clip.gif"},
               answer="C"),
        record("perception_test/1", "perception_test", "egocentric_videos", "motion_causality",
               {"frames": [f"media/f{i:02d}.png" for i in range(40)]}, action_history=[], answer="D"),
    ])


@pytest.fixture
def recs() -> SimpleNamespace:
    """The record helpers: `record(...)` and `write_records(root, records)`."""
    return SimpleNamespace(record=record, write_records=write_records)
