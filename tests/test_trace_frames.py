"""Identical consecutive frames are stored once; every step's reference names a file that exists."""

from pathlib import Path

from suite.contract.records import Image, Observation
from suite.store.traces import TraceWriter


def test_identical_frames_are_written_once(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path, tmp_path / "t.jsonl", "t")
    refs = [writer.store_images(Observation(text="", images=[Image(png=b"same")]), step) for step in range(100)]
    changed = writer.store_images(Observation(text="", images=[Image(png=b"other")]), 100)
    writer.close()
    assert len(list((tmp_path / "frames").rglob("*.png"))) == 2
    assert all((tmp_path / ref[0]["path"]).read_bytes() == b"same" for ref in refs)
    assert (tmp_path / changed[0]["path"]).read_bytes() == b"other"
