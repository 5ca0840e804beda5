"""A trace written on an event loop is flushed by a timer of that loop, not by every line; outside a loop at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from suite.store import traces
from suite.store.traces import FLUSH_AFTER_S, TraceWriter


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_lines_written_on_a_loop_reach_the_file_within_the_flush_delay_with_one_flush(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"

    async def episode() -> tuple[int, int]:
        writer = TraceWriter(tmp_path, path, "t")
        flushes = []
        flush = writer._fh.flush
        writer._fh.flush = lambda: (flushes.append(1), flush())[1]  # type: ignore[method-assign]
        for i in range(20):
            writer.write({"type": "step", "index": i})
        written_at_once = _lines(path)
        await asyncio.sleep(FLUSH_AFTER_S * 3)
        return written_at_once, len(flushes)

    at_once, flushes = asyncio.run(episode())
    assert at_once == 0  # no system call per line
    assert _lines(path) == 20 and flushes == 1


def test_lines_written_outside_a_loop_are_flushed_at_once(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    TraceWriter(tmp_path, path, "t").write({"type": "start"})
    assert _lines(path) == 1


def test_a_trace_left_open_when_its_loop_ends_is_whole_after_flush_all(tmp_path: Path) -> None:
    """An episode cut off (Ctrl-C, a budget stop) never closes its trace: the run's end flushes it."""
    path = tmp_path / "t.jsonl"

    async def cut_off() -> TraceWriter:
        writer = TraceWriter(tmp_path, path, "t")
        writer.write({"type": "start"})
        writer.write({"type": "step", "index": 0})
        return writer

    writer = asyncio.run(cut_off())  # the loop closes before the flush timer fires
    assert _lines(path) == 0
    traces.flush_all()
    assert _lines(path) == 2
    writer.close()


def test_a_trace_whose_loop_closed_before_its_flush_still_flushes_on_the_next_loop_and_outside_one(
        tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"

    async def write(writer: TraceWriter, index: int, wait: bool) -> None:
        writer.write({"type": "step", "index": index})
        if wait:
            await asyncio.sleep(FLUSH_AFTER_S * 3)

    writer = TraceWriter(tmp_path, path, "t")
    asyncio.run(write(writer, 0, wait=False))  # its timer is lost with its loop
    asyncio.run(write(writer, 1, wait=True))
    assert _lines(path) == 2
    asyncio.run(write(writer, 2, wait=False))
    writer.write({"type": "end"})  # outside a loop: at once
    assert _lines(path) == 4
    writer.close()
