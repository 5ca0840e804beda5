"""SIGTERM (what `timeout`, `docker stop`, Slurm and Kubernetes send) is handled as Ctrl-C: the run is marked
interrupted, no traceback, no process left, `--resume` completes; a replay stopped so, or killed outright, leaves
no temporary folder behind (issue 36 item 8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.store.run_folder import RunStore

#: `suite ARGS` in which the store sends this process SIGTERM once it has stored `TERM_AFTER` episodes: the signal
#: lands mid-run, after what the test waits for, with no timing to guess
SIGTERM_AFTER_FINISHES = """
import os, signal, sys
from suite.store.run_folder import RunStore
from suite.cli.main import main
finish, count = RunStore.finish, [0]
def finish_then_sigterm(self, record):
    stored = finish(self, record)
    count[0] += 1
    if count[0] == int(os.environ["TERM_AFTER"]):
        os.kill(os.getpid(), signal.SIGTERM)
    return stored
RunStore.finish = finish_then_sigterm
sys.exit(main(sys.argv[1:]))
"""
MOCK_MODEL = ["--model", "openai/gpt-4o", "model.params.mock_response='ACTION: +1'", "model.params.mock_delay=0.05",
              "model.cache=false"]


def _sigterm_after(args: list[str], finishes: int, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run `suite ARGS` in a process group of its own, SIGTERM after `finishes` stored episodes; every process of
    the group is gone when it returns."""
    proc = subprocess.Popen([sys.executable, "-c", SIGTERM_AFTER_FINISHES, *args], env={**env, "TERM_AFTER":
                            str(finishes)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    out, err = proc.communicate(timeout=120)
    with pytest.raises(ProcessLookupError):  # no call worker (nor anything else it started) outlives it
        os.killpg(proc.pid, 0)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_sigterm_marks_the_run_interrupted_stops_its_workers_and_resume_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "r"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # litellm's mock replies: nothing reaches the network
    ended = _sigterm_after(["run", "--plugins", "template", "--no-report", *MOCK_MODEL, "--concurrency", "2",
                            "model.call_workers=2", "--out", str(out)], 3, dict(os.environ))
    assert ended.returncode == 130, ended.stderr[-2000:]
    assert "Traceback" not in ended.stderr and "model calls made in 2 worker process(es)" in ended.stderr
    assert f"interrupted: finished episodes are stored; resume with `suite run --resume {out}`" in ended.stderr
    store = RunStore(out)
    assert store.meta()["status"] == "interrupted" and set(store.counts()) <= {"done", "pending"}
    assert 3 <= store.counts()["done"] < 12
    store.close()
    assert main(["run", "--resume", str(out), "--no-report"]) == 0
    store = RunStore(out)
    assert store.counts() == {"done": 12} and store.meta()["status"] == "complete"
    store.close()


def test_a_replay_stopped_by_sigterm_leaves_no_temporary_folder(tmp_path: Path) -> None:
    run = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--no-report", "--model", "scripted/counter-greedy",
                 "model.cache=false", "--out", str(run)]) == 0
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    ended = _sigterm_after(["replay", str(run)], 2, {**os.environ, "TMPDIR": str(scratch)})
    assert ended.returncode == 130 and "Traceback" not in ended.stderr, ended.stderr[-2000:]
    assert "trajectories identical" not in ended.stdout  # a part of the replay is not compared
    assert list(scratch.iterdir()) == []


def test_a_replay_removes_the_folder_a_killed_replay_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from suite.launch.replay import SCRATCH_PREFIX

    run = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--no-report", "--limit", "2", "--out",
                 str(run)]) == 0
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = tmp_path / f"{SCRATCH_PREFIX}{gone.stdout.strip()}-abcd1234"  # as SIGKILL left it: no process
    (killed / "run" / "traces").mkdir(parents=True)
    alive = tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-live0000"  # a replay of this process, running
    alive.mkdir()
    assert main(["replay", str(run)]) == 0
    assert not killed.exists() and alive.is_dir()


def test_sigterm_stops_a_ray_run_as_ctrl_c_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray's driver installs its own SIGTERM handler (an exit mid-loop, with a traceback): the run keeps the suite's."""
    pytest.importorskip("ray")
    out = tmp_path / "r"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    ended = _sigterm_after(["run", "--plugins", "template", "--no-report", *MOCK_MODEL, "--executor", "ray",
                            "--concurrency", "2", "--out", str(out)], 2, dict(os.environ))
    assert ended.returncode == 130 and "Traceback" not in ended.stderr, ended.stderr[-2000:]
    store = RunStore(out)
    assert store.meta()["status"] == "interrupted" and 2 <= store.counts()["done"] < 12
    store.close()
