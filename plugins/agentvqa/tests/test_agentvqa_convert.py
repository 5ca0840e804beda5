"""Converting a release with other field names into our format, then loading it."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image
from suite.contract.errors import DataError
from suite_agentvqa.convert import main
from suite_agentvqa.data import read_questions


def _png(color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (6, 4), color).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """A fake release: one JSONL file per subset, HF-style field names, images as files and as bytes."""
    src = tmp_path / "release"
    (src / "imgs").mkdir(parents=True)
    (src / "imgs" / "s1.png").write_bytes(_png((1, 2, 3)))
    web = [
        {"question_id": 7, "query": "What next?", "instruction": "Open Wi-Fi settings",
         "history": "Press Home\nTap: [540, 1800]", "choices": {"A": "Swipe: Up", "B": "Tap: [512, 1033]",
                                                                "C": "Type: 'wifi'", "D": "Button: Press Back"},
         "answer": "Tap: [512, 1033]", "image": "imgs/s1.png"},
        {"question_id": 8, "query": "What next?", "instruction": "Search",
         "choices": ["A. Swipe: Up", "B. Tap: [1, 2]", "C. Type: 'wifi'", "D. Button: Press Back"],
         "answer": "(c)", "image": {"bytes": base64.b64encode(_png((9, 9, 9))).decode(), "path": "x.png"}},
    ]
    (src / "android-in-the-wild.jsonl").write_text("".join(json.dumps(r) + "\n" for r in web))
    robo = {"data": [{"id": "r1", "question": "What did the robot do?", "options": ["a", "b", "c", "d"],
                      "label": 3, "images": ["imgs/s1.png", "imgs/s1.png"], "category": "TE"}]}
    (src / "ERQA.json").write_text(json.dumps(robo))
    return src


def test_converts_and_loads(release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "converted"
    assert main([str(release), "--out", str(out), "--answer-base", "1"]) == 0
    assert "3 questions written" in capsys.readouterr().out
    by_id = {q.id: q for q in read_questions(out)}
    wifi = by_id["aitw/7"]
    assert (wifi.domain, wifi.category, wifi.answer_letter, wifi.goal) == ("web_agents", "tap", "B",
                                                                          "Open Wi-Fi settings")
    assert wifi.action_history == ("Press Home", "Tap: [540, 1800]")
    assert wifi.media[0].read_bytes() == _png((1, 2, 3))
    typed = by_id["aitw/8"]
    assert (typed.category, typed.answer_letter, typed.options[1]) == ("typing", "C", "Tap: [1, 2]")
    assert typed.media[0].read_bytes() == _png((9, 9, 9)) and typed.action_history is None
    robot = by_id["erqa/r1"]
    assert (robot.category, robot.answer_letter, len(robot.media)) == ("task_estimation", "C", 2)


def test_unknown_dataset_and_bad_answer_are_named(release: Path, tmp_path: Path) -> None:
    (release / "imagenet.jsonl").write_text(json.dumps({"question": "q", "options": ["a", "b", "c", "d"],
                                                        "answer": "A", "image": "imgs/s1.png"}) + "\n")
    with pytest.raises(DataError, match="imagenet.jsonl:1: at /dataset"):
        main([str(release / "imagenet.jsonl"), "--out", str(tmp_path / "o")])
    with pytest.raises(DataError, match="at /answer"):
        main([str(release / "imagenet.jsonl"), "--out", str(tmp_path / "o"), "--dataset", "aitw",
              "--field", "answer=question"])
