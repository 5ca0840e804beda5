"""A full disk under the run folder ends the run with one line naming the cause and the resume command; what was
stored is kept and the resumed run finishes (issue 36 item 7)."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.store.run_folder import RunStore
from suite.store.traces import TraceWriter


def _full_after(cls: type, name: str, calls: int, error: BaseException, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cls.name` works `calls` times, then fails with `error` as a full disk makes it fail."""
    original, count = getattr(cls, name), [0]

    def full(self: Any, *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        if count[0] > calls:
            raise error
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, full)


@pytest.mark.parametrize(("cls", "name", "calls", "error"), [
    (RunStore, "finish", 1, sqlite3.OperationalError("database or disk is full")),
    (TraceWriter, "write", 7, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))),
], ids=["database", "trace"])
def test_a_full_disk_is_one_line_with_the_resume_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        cls: type, name: str, calls: int, error: BaseException) -> None:
    out = tmp_path / "r"
    with monkeypatch.context() as patched:
        _full_after(cls, name, calls, error, patched)
        code = main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--out", str(out),
                     "run.concurrency=1"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (f"error: the disk under {out} is full ({error}): finished episodes are "
                                            f"stored; free space, then `suite run --resume {out}`")
    store = RunStore(out)
    assert store.counts().get("done") == 1
    store.close()
    assert main(["run", "--resume", str(out), "--no-report"]) == 0
    store = RunStore(out)
    assert store.counts() == {"done": 3} and store.meta()["status"] == "complete"
    store.close()


def test_a_full_disk_before_the_run_starts_is_one_line_too(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Creating the run folder (or any write of a command) on a full disk: one line, exit 2, no folder left."""
    _full_after(RunStore, "set_meta", 0, sqlite3.OperationalError("database or disk is full"), monkeypatch)
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "error: the disk is full (database or disk is full)" in err and "Traceback" not in err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".creating-")]
