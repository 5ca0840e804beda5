"""Loading, filters, sampling, media, option orders and the prompt."""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image
from suite.contract.errors import ConfigError, DataError
from suite_agentvqa.data import read_questions
from suite_agentvqa.media import load_media, sample_indices
from suite_agentvqa.options import file_index, option_orders, shown_letter
from suite_agentvqa.prompting import build_messages, question_text
from suite_agentvqa.selection import filter_questions, sample_per_dataset


def test_loads_every_media_kind(tiny: Path) -> None:
    questions = read_questions(tiny)
    assert [q.media_kind for q in questions] == ["images", "images", "video", "frames"]
    assert questions[0].answer_letter == "A" and questions[0].action_history == ("Swipe: Left",)
    assert questions[1].action_history is None and questions[3].action_history == ()


@pytest.mark.parametrize(
    ("change", "pointer", "expected"),
    [
        ({"options": ["a"]}, "/options", "too short"),
        ({"answer": "E"}, "/answer", "one of A, B, C, D (the question has 4 options)"),
        ({"answer": "AB"}, "/answer", "does not match"),
        ({"dataset": "imagenet"}, "/dataset", "is not one of"),
        ({"domain": "robotics"}, "/domain", "web_agents"),
        ({"category": "reward_detection"}, "/category", "web_agents domain"),
        ({"media": {"images": ["media/missing.png"]}}, "/media/images/0", "missing"),
        ({"media": {"images": ["media/a.png"], "video": "media/clip.gif"}}, "/media", "too many properties"),
        ({"extra": 1}, "/", "Additional properties"),
    ],
)
def test_bad_records_name_file_line_and_pointer(tiny: Path, recs: SimpleNamespace, change: dict, pointer: str,
                                                expected: str) -> None:
    record, write_records = recs.record, recs.write_records
    bad = record("aitw/9", "aitw", "web_agents", "tap", {"images": ["media/a.png"]}) | change
    write_records(tiny, [record("aitw/1", "aitw", "web_agents", "tap", {"images": ["media/a.png"]}), bad])
    with pytest.raises(DataError) as err:
        read_questions(tiny)
    assert err.value.path.endswith("records.jsonl:2") and err.value.pointer == pointer
    assert expected in err.value.expected


def test_duplicate_ids_and_missing_file(tiny: Path, recs: SimpleNamespace) -> None:
    record, write_records = recs.record, recs.write_records
    same = record("aitw/1", "aitw", "web_agents", "tap", {"images": ["media/a.png"]})
    write_records(tiny, [same, same])
    with pytest.raises(DataError, match="appears twice"):
        read_questions(tiny)
    with pytest.raises(DataError, match="records.jsonl"):
        read_questions(tiny / "media")


def test_filters_and_unknown_keys(tiny: Path) -> None:
    questions = read_questions(tiny)
    assert [q.id for q in filter_questions(questions, domains=["egocentric_videos"])] == ["vsi_bench/1",
                                                                                          "perception_test/1"]
    assert [q.id for q in filter_questions(questions, datasets=["aitw", "erqa"], categories=["tap"])] == ["aitw/1"]
    with pytest.raises(ConfigError, match="agentvqa.domains: unknown \\['web'\\]"):
        filter_questions(questions, domains=["web"])


def test_sample_per_dataset_is_seeded_and_stratified(tiny: Path) -> None:
    base = read_questions(tiny)[0]
    questions = [base.__class__(**{**base.__dict__, "id": f"{d}/{i}", "dataset": d})
                 for d in ("aitw", "monday") for i in range(20)]
    picked = sample_per_dataset(questions, 5, seed=1)
    assert [q.dataset for q in picked].count("aitw") == 5 and len(picked) == 10
    assert picked == sample_per_dataset(questions, 5, seed=1) != sample_per_dataset(questions, 5, seed=2)
    assert sample_per_dataset(questions, 50, seed=1) == questions


def test_frame_sampling() -> None:
    picked = sample_indices(100, 32)
    assert len(picked) == 32 and picked[0] == 0 and picked[-1] == 99 and picked[1] == 3
    assert sample_indices(10, 32) == list(range(10))
    assert sample_indices(7, 1) == [3] and sample_indices(0, 32) == []


def test_media_are_png_at_native_size(tiny: Path) -> None:
    image_q, pair_q, video_q, frames_q = read_questions(tiny)
    images = load_media(pair_q, 32)
    assert [i.label for i in images] == ["Image 1", "Image 2"]
    assert all(Image.open(io.BytesIO(i.png)).format == "PNG" and Image.open(io.BytesIO(i.png)).size == (8, 6)
               for i in images)
    assert images[0].png == (tiny / "media" / "a.png").read_bytes()
    video = load_media(video_q, 3)
    assert [i.label for i in video] == ["Frame 1 of 5", "Frame 3 of 5", "Frame 5 of 5"]
    assert Image.open(io.BytesIO(video[1].png)).convert("RGB").getpixel((0, 0))[0] == 80
    frames = load_media(frames_q, 4)
    assert [i.label for i in frames] == ["Frame 1 of 40", "Frame 14 of 40", "Frame 27 of 40", "Frame 40 of 40"]
    assert len(load_media(frames_q, 32)) == 32


def test_an_unreadable_video_says_what_to_do(tiny: Path, recs: SimpleNamespace,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    record, write_records = recs.record, recs.write_records
    monkeypatch.setitem(sys.modules, "av", None)  # PyAV not installed
    (tiny / "media" / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    write_records(tiny, [record("vsi_bench/1", "vsi_bench", "egocentric_videos", "object_counting",
                                {"video": "media/clip.mp4"})])
    with pytest.raises(DataError, match="PyAV"):
        load_media(read_questions(tiny)[0], 32)


def test_other_videos_go_through_pyav(tiny: Path, recs: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    """With PyAV installed, an mp4 is decoded twice (count, then the sampled frames); stubbed here."""

    class Frame:
        def __init__(self, i: int) -> None:
            self.i = i

        def to_image(self) -> Image.Image:
            return Image.new("RGB", (4, 2), (self.i, 0, 0))

    class Container:
        def __enter__(self) -> Container:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def decode(self, video: int) -> list[Frame]:
            return [Frame(i) for i in range(50)]

    monkeypatch.setitem(sys.modules, "av", SimpleNamespace(open=lambda path: Container()))
    (tiny / "media" / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    recs.write_records(tiny, [recs.record("vsi_bench/1", "vsi_bench", "egocentric_videos", "object_counting",
                                          {"video": "media/clip.mp4"})])
    frames = load_media(read_questions(tiny)[0], 3)
    assert [f.label for f in frames] == ["Frame 1 of 50", "Frame 26 of 50", "Frame 50 of 50"]
    assert Image.open(io.BytesIO(frames[1].png)).getpixel((0, 0)) == (25, 0, 0)


def test_option_orders() -> None:
    assert option_orders("q", 4, None, False) == [(0, 1, 2, 3)]
    rotations = option_orders("q", 4, None, True)
    assert rotations == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]
    assert [shown_letter(o, 1) for o in rotations] == ["B", "A", "D", "C"]
    shuffled = option_orders("q", 4, 7, False)[0]
    assert sorted(shuffled) == [0, 1, 2, 3] and shuffled == option_orders("q", 4, 7, False)[0]
    assert {option_orders(f"q{i}", 4, 7, False)[0] for i in range(30)} != {shuffled}
    assert all(file_index(o, shown_letter(o, 2)) == 2 for o in option_orders("q", 4, 3, True))


PROMPT = """Goal: Open the fridge.

Previous actions:
1. Swipe: Left

Question: Which one?

Options:
A. y
B. z
C. w
D. x

Look at the screenshot and weigh the goal, the previous actions and the question; then pick the one option above \
that fits best.

Reply with EXACTLY one character (A, B, C, or D) and nothing else: no words, no explanation, no formatting.

Answer:"""


def test_prompt_text(tiny: Path) -> None:
    image_q, pair_q, _, frames_q = read_questions(tiny)
    assert question_text(image_q, (2, 3, 0, 1)) == PROMPT
    assert question_text(pair_q, (0, 1, 2, 3)).startswith("Question: Which one?")
    assert "Look at the images and" in question_text(pair_q, (0, 1, 2, 3))
    assert "Previous actions:\nNo previous actions\n\nQuestion:" in question_text(frames_q, (0, 1, 2, 3))
    assert "Look at the video frames" in question_text(frames_q, (0, 1, 2, 3))


def test_the_history_ablation_leaves_only_the_previous_actions_out(tiny: Path) -> None:
    """`agentvqa.history=false` (Figure 5): the previous-actions section goes, the goal and the rest stay."""
    image_q, _, _, frames_q = read_questions(tiny)
    without = question_text(image_q, (2, 3, 0, 1), history=False)
    assert "Swipe: Left" not in without and "Previous actions" not in without
    assert "Open the fridge." in without and without.endswith("Answer:")
    assert without.replace("\n", "") in PROMPT.replace("\n", "").replace("Previous actions:1. Swipe: Left", "")
    assert "Previous actions" not in question_text(frames_q, (0, 1, 2, 3), history=False)


def test_messages_carry_labelled_data_urls(tiny: Path) -> None:
    pair_q = read_questions(tiny)[1]
    images = load_media(pair_q, 32)
    parts = build_messages(pair_q, (0, 1, 2, 3), images, {"media_labels": True, "image_detail": "high"})[0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "text", "image_url", "text"]
    assert parts[0]["text"] == "Image 1:" and parts[1]["image_url"]["detail"] == "high"
    url = parts[3]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == images[1].png
    bare = build_messages(pair_q, (0, 1, 2, 3), images, {"media_labels": False, "image_detail": None})[0]["content"]
    assert [p["type"] for p in bare] == ["image_url", "image_url", "text"] and "detail" not in bare[0]["image_url"]


def test_prompt_dir_replaces_templates(tiny: Path, tmp_path: Path) -> None:
    (tmp_path / "question.txt").write_text("Q={question} O={options} L={letters}\n")
    text = question_text(read_questions(tiny)[1], (0, 1, 2, 3), str(tmp_path))
    assert text == "Q=Which one? O=A. w\nB. x\nC. y\nD. z L=A, B, C, or D"
    (tmp_path / "question.txt").write_text("{nope}")
    with pytest.raises(ConfigError, match="question.txt: bad placeholder 'nope'"):
        question_text(read_questions(tiny)[1], (0, 1, 2, 3), str(tmp_path))
    assert json.loads(json.dumps(text))  # plain text, nothing else
