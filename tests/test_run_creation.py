"""Creating a run is atomic: a process killed at any moment of it leaves a whole, resumable run or no folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.store.run_folder import CONFIG_NAME, RunStore

RUN = ["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--no-report"]

#: Dies (as a kill -9 would: no cleanup) right after the named step of creating a run.
DIE_AFTER = """
import os, sys
from suite.engine import runner
from suite.launch import session
from suite.store import run_folder as store
owner, name = {"lock": (store.RunStore, "lock"), "config": (runner, "save_config"),
               "meta": (store.RunStore, "set_meta"), "episodes": (store.RunStore, "add_episodes"),
               "created": (session, "execute_session")}[sys.argv[1]]
original = getattr(owner, name)
def dying(*args, **kwargs):
    if name != "execute_session":
        original(*args, **kwargs)
    os._exit(9)
setattr(owner, name, dying)
from suite.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("step", ["lock", "config", "meta", "episodes"])
def test_a_kill_while_the_run_is_created_leaves_no_folder(tmp_path: Path, step: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs" / "r"
    proc = subprocess.run([sys.executable, "-c", DIE_AFTER, step, *RUN, "--out", str(out)], capture_output=True)
    assert proc.returncode == 9
    assert not out.exists()
    assert main(["run", "--resume", str(out), "--no-report"]) == 2
    assert main(["runs", str(tmp_path / "runs")]) == 0
    assert "no run folders" in capsys.readouterr().err
    assert main([*RUN, "--out", str(out)]) == 0  # the name is free; the dead creation's leftovers are removed
    assert [p.name for p in out.parent.iterdir()] == ["r"] and len(RunStore(out).records()) == 3


def test_a_kill_right_after_creation_leaves_a_resumable_run(tmp_path: Path) -> None:
    out = tmp_path / "r"
    proc = subprocess.run([sys.executable, "-c", DIE_AFTER, "created", *RUN, "--out", str(out)], capture_output=True)
    assert proc.returncode == 9 and (out / CONFIG_NAME).is_file()
    assert main(["run", "--resume", str(out), "--no-report"]) == 0
    assert len(RunStore(out).records()) == 3


@pytest.mark.parametrize("missing", ["config", "meta", "episodes", "some episodes"])
def test_a_half_created_folder_is_refused_on_resume_not_run_as_complete(
        tmp_path: Path, missing: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Folders as a kill left them before creation was atomic: resuming names the problem in one line."""
    monkeypatch.chdir(tmp_path)
    out = Path("r")
    assert main([*RUN, "--out", str(out)]) == 0
    store = RunStore(out)
    if missing == "config":
        (out / CONFIG_NAME).unlink()
    elif missing == "meta":
        store.db.execute("DELETE FROM meta")
    elif missing == "episodes":
        store.db.execute("DELETE FROM episodes")
        store.db.execute("DELETE FROM meta WHERE key='planned_episodes'")
    else:
        store.db.execute("DELETE FROM episodes WHERE position > 0")
    store.close()
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--no-report"]) == 2
    err = capsys.readouterr().err.strip()
    assert "not a whole run" in err and "start a new run" in err and len(err.splitlines()) == 1


def test_a_run_created_beside_another_leaves_its_unlocked_staging_folder_alone(tmp_path: Path) -> None:
    """Two processes creating runs in one folder at once (`suite audit --jobs`): the staging folder of a live
    creator, made but not yet locked, is not stale; a dead creator's is."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    live = tmp_path / f".creating-a-{os.getpid()}-0000"
    gone = tmp_path / f".creating-b-{int(dead.stdout)}-0000"
    for folder in (live, gone):
        folder.mkdir()
    store = RunStore.create([tmp_path / "c"], lambda s, root: None)
    store.close()
    assert live.is_dir() and not gone.exists()
