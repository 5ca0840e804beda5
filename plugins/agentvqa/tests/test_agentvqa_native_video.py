"""The opt-in native-video mode: video files sent whole to models that accept video, frames otherwise."""

from __future__ import annotations

import base64
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from suite.cli.main import main
from suite.models import register_script
from suite.store.run_folder import RunStore

CLIP = b"\x00\x00\x00\x18ftypmp42 not a real movie, never decoded in native mode"


@pytest.fixture
def movie_dir(tiny: Path, recs: SimpleNamespace) -> Path:
    (tiny / "media" / "walk.mp4").write_bytes(CLIP)
    return recs.write_records(tiny, [
        recs.record("vsi_bench/2", "vsi_bench", "egocentric_videos", "spatial_navigation", {"video": "media/walk.mp4"}),
        recs.record("vsi_bench/1", "vsi_bench", "egocentric_videos", "object_counting", {"video": "media/clip.gif"},
                    answer="C"),
    ])


def _run(out: Path, data: Path, *overrides: str, code: int = 0) -> tuple[list[dict[str, Any]], dict[str, list]]:
    prompts: dict[str, list] = {}

    def answer(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        prompts[metadata["episode"]] = messages[0]["content"]
        return "B" if metadata["episode"].endswith("/2") else "C"

    register_script("agentvqa-video", answer)
    assert main(["run", "--plugins", "agentvqa", "--data-dir", str(data), "--out", str(out), "--no-report",
                 "--model", "scripted/agentvqa-video", "model.cache=false", *overrides]) == code
    return RunStore(out).records(), prompts


@pytest.mark.parametrize("part", ["file", "video_url"])
def test_native_mode_sends_the_video_file_whole(tmp_path: Path, movie_dir: Path, part: str) -> None:
    out = tmp_path / "run"
    records, prompts = _run(out, movie_dir, "agentvqa.video_mode=native", f"agentvqa.video_part={part}")
    assert all(r["outcome"] == "success" for r in records)
    parts = prompts["agentvqa/vsi_bench/2"]
    url = "data:video/mp4;base64," + base64.b64encode(CLIP).decode()
    expected = ({"type": "file", "file": {"file_data": url, "format": "video/mp4"}} if part == "file"
                else {"type": "video_url", "video_url": {"url": url}})
    assert parts[0] == expected and [p["type"] for p in parts[1:]] == ["text"]
    assert "Look at the video " in parts[-1]["text"]
    gif = prompts["agentvqa/vsi_bench/1"]  # an animated image is no video file: still shown as frames
    assert [p["type"] for p in gif].count("image_url") == 5 and "video frames" in gif[-1]["text"]
    stored = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert base64.b64encode(CLIP) not in stored  # the trace keeps a short marker, not the video


def test_frames_mode_is_the_default_and_needs_a_decoder_for_mp4(tmp_path: Path, movie_dir: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "av", None)  # PyAV absent: mp4 cannot be cut into frames
    records, prompts = _run(tmp_path / "run", movie_dir, code=5)  # an env_error: the run ends with exit 5
    mp4 = next(r for r in records if r["episode_id"] == "agentvqa/vsi_bench/2")
    assert mp4["outcome"] == "env_error" and "PyAV" in mp4["failure_reason"]


def test_a_bad_video_mode_is_one_line(tmp_path: Path, movie_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--plugins", "agentvqa", "--data-dir", str(movie_dir), "--out", str(tmp_path / "r"),
                 "--agent", "oracle", "agentvqa.video_mode=movie"])
    assert code == 2 and "agentvqa.video_mode: 'movie' is not one of frames, native" in capsys.readouterr().err
