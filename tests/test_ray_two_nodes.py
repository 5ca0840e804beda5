"""The Ray executor on a real two-node cluster on loopback: a worker node lost mid-run, `ModelServices` killed.

The test starts the head (127.0.0.2) and a worker node (127.0.0.3) with `ray start`, each with its own temp dir,
and ends exactly the processes of those two nodes afterwards (never `ray stop`, which would end every Ray of the
machine). Token authentication is off and HOME is private, so no `~/.ray/auth_token` is read or written.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from run_processes import finished, start_suite
from suite.cli.main import main
from suite.report.summary import summarize
from suite.store.run_folder import RunStore

HERE = Path(__file__).resolve().parent
HEAD, WORKER = "127.0.0.2", "127.0.0.3"
TIMINGS = {"duration_s", "agent_s", "env_s", "latency_s", "placement"}
RUN = ["run", "--plugins", "template", "--model", "scripted/ray-counter-slow", "--no-report", "--limit", "12",
       "--seed", "3", "--concurrency", "3", "--max-cost", "100", "model.cache=false"]

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs Linux's loopback aliases 127.0.0.2/3")


def free_port(host: str) -> int:
    """A TCP port nothing listens on at `host` right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def processes() -> dict[int, tuple[int, str]]:
    """Every process of the machine: pid -> (parent pid, command line)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found[int(entry.name)] = (parent, cmdline)
    return found


def descendants(roots: set[int], table: dict[int, tuple[int, str]]) -> set[int]:
    """`roots` and every process below them."""
    out, grew = set(roots), True
    while grew:
        more = {pid for pid, (parent, _) in table.items() if parent in out} - out
        out |= more
        grew = bool(more)
    return out


def raylet(temp_dir: Path) -> int:
    """The pid of the raylet of the node started with `temp_dir`."""
    table = processes()
    return next(pid for pid, (_, cmd) in table.items() if "/raylet " in f"{cmd} " and f"{temp_dir}/" in cmd)


def kill_model_services(head_dir: Path) -> int:
    """SIGKILL the `ModelServices` actor process of this cluster (a worker process of the head's raylet)."""
    table = processes()
    below = descendants({raylet(head_dir)}, table)
    found = [pid for pid in below if table[pid][1].startswith("ray::ModelServices")]
    assert found, [table[pid][1][:80] for pid in below]
    os.kill(found[0], signal.SIGKILL)
    return found[0]


def values(record: dict) -> dict:
    """A record without its timings and placement."""
    return {k: v for k, v in record.items() if k not in TIMINGS}


@pytest.fixture
def cluster() -> Iterator[tuple[str, Path, dict[str, str]]]:
    """Head and worker nodes on loopback; yields the address, the temp root and the environment to use them."""
    if not shutil.which("ray", path=str(Path(sys.executable).parent)):
        pytest.skip("the `ray` command is not installed")
    root = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))  # short: Ray's socket paths must fit 107 bytes
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "HOME": str(root), "RAY_USAGE_STATS_ENABLED": "0",
           "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
           "SUITE_PLUGIN_MODULES": "template=suite_template.plugin,raytest=ray_support"}
    ray_cmd = str(Path(sys.executable).parent / "ray")
    port = free_port(HEAD)
    try:
        for node, extra in ((HEAD, ["--head", f"--port={port}", "--num-cpus=1", "--include-dashboard=false"]),
                            (WORKER, [f"--address={HEAD}:{port}", "--num-cpus=2", "--num-gpus=0"])):
            name = "h" if node == HEAD else "w"
            ports = [f"--dashboard-agent-listen-port={free_port(node)}", f"--metrics-export-port={free_port(node)}"]
            started = subprocess.run([ray_cmd, "start", f"--node-ip-address={node}", f"--temp-dir={root}/{name}",
                                      *extra, "--disable-usage-stats", *ports],
                                     env=env, capture_output=True, text=True, timeout=150)
            assert started.returncode == 0, started.stderr[-3000:] + started.stdout[-1000:]
        yield f"{HEAD}:{port}", root, env
    finally:
        table = processes()
        ours = descendants({pid for pid, (_, cmd) in table.items() if f"{root}/" in cmd}, table) - {os.getpid()}
        for pid in ours:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
def test_run_survives_losing_a_worker_node_and_model_services(cluster: tuple[str, Path, dict[str, str]],
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    address, root, env = cluster
    for key in ("SUITE_PLUGIN_MODULES", "PYTHONPATH"):
        monkeypatch.setenv(key, env[key])
    reference = tmp_path / "local"
    assert main([*RUN, "--out", str(reference)]) == 0
    out = tmp_path / "ray"
    proc = start_suite([RUN[0], "--executor", "ray", "--ray-address", address, "--out", str(out), *RUN[1:],
                        f"ray.node_ip_address={HEAD}"], env=env)
    deadline = time.monotonic() + 120
    while finished(out) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
    kill_model_services(root / "h")
    while finished(out) < 4 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in sorted(descendants({raylet(root / "w")}, processes())):  # the node goes: its raylet and workers
        os.kill(pid, signal.SIGKILL)
    assert finished(out) < 12, "the kills must land mid-run"
    err = proc.communicate(timeout=150)[1].decode()
    assert proc.returncode == 0, err[-2000:]
    store = RunStore(out)
    assert store.counts() == {"done": 12}
    records = store.records()
    assert [values(r) for r in records] == [values(r) for r in RunStore(reference).records()]
    assert "env_error" not in {r["outcome"] for r in records}
    assert {r["placement"]["node"] for r in records} == {HEAD, WORKER}  # both nodes ran episodes
    assert "left the cluster" in err, err
    lost = store.spend()["counter"]["node_lost"]  # the attempts cut off there: their calls were paid again
    assert lost.attempts >= 1  # how many steps they had streamed depends on when the kill lands (0 under load)
    notes = summarize(None, [out])["notes"]
    assert any(n.startswith("PAID TWICE after a node loss: scripted/ray-counter-slow / direct / counter: "
                            f"up to {lost.attempts} model call(s) in flight") for n in notes), notes
