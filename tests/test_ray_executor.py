"""The Ray executor: same records as the local one, actors that die or hang, budgets, resume, resources."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
from omegaconf import OmegaConf
from run_processes import interrupt, start_suite, wait_finished
from suite.cli.main import main
from suite.contract.errors import BudgetExceeded
from suite.contract.records import Task
from suite.engine.host import build_host
from suite.executors.ray_cluster import actor_options, plan, resources_of
from suite.executors.ray_models import ModelServices, SharedLedger, SharedLimiter
from suite.models import Limit, ModelReply
from suite.store.run_folder import RunStore

HERE = Path(__file__).resolve().parent
TIMINGS = {"duration_s", "agent_s", "env_s", "latency_s", "placement"}
COUNTER = ["run", "--plugins", "template", "--model", "scripted/ray-counter", "--no-report", "model.cache=false"]


@pytest.fixture(scope="session")
def ray_address() -> Iterator[str]:
    """One local Ray for the whole test session: 2 CPUs and one (logical) GPU; actors' logs stay in Ray's files
    (forwarded, they would print into whichever later test is capturing output)."""
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.fixture
def data(ray_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test plugin loaded here and in every actor; its benchmarks read their tasks under the returned dir."""
    monkeypatch.setenv("SUITE_PLUGIN_MODULES", "template=suite_template.plugin,raytest=ray_support")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("SUITE_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def write_tasks(root: Path, benchmark: str, *tasks: dict[str, Any]) -> None:
    """Write a test benchmark's tasks.jsonl."""
    (root / benchmark).mkdir(parents=True, exist_ok=True)
    (root / benchmark / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))


def without_timings(value: Any) -> Any:
    """`value` with every timing field removed, at any depth."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def attempts(root: Path) -> dict[str, int]:
    """How many times each episode was started."""
    return dict(RunStore(root).db.execute("SELECT episode_id, attempts FROM episodes"))


def check_traces(root: Path) -> None:
    """Every finished episode has one trace: one start, its steps once each, one end."""
    store = RunStore(root)
    for record in store.records():
        trace = store.read_trace(record["episode_id"])
        steps = [e["index"] for e in trace if e["type"] == "step"]
        assert steps == list(range(record["steps"])) and trace[-1]["type"] == "end"
        assert sum(e["type"] == "start" for e in trace) == 1 and sum(e["type"] == "end" for e in trace) == 1


def test_ray_run_matches_local_run_and_reports_and_replays(data: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    common = [*COUNTER, "--limit", "8", "--seed", "5", "--concurrency", "2"]
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    assert main([*common, "--out", str(local)]) == 0
    assert main([*common, "--executor", "ray", "--out", str(on_ray)]) == 0
    local_store, ray_store = RunStore(local), RunStore(on_ray)
    records = without_timings(ray_store.records())
    assert len(records) == 8 and records == without_timings(local_store.records())
    assert {r["outcome"] for r in records} >= {"success", "agent_failure", "parse_failure"}
    for record in records:
        key = record["episode_id"]
        assert without_timings(ray_store.read_trace(key)) == without_timings(local_store.read_trace(key))
    assert ray_store.meta()["executor"] == "ray" and set(attempts(on_ray).values()) == {1}
    capsys.readouterr()
    reports = []
    for root in (local, on_ray):
        assert main(["report", str(root), "--format", "json"]) == 0
        reports.append(json.loads(capsys.readouterr().out)["rows"][0]["benchmarks"])
    nodes = reports[1]["counter"].pop("nodes")  # where the Ray run placed its episodes: this machine's node
    outcomes = {k: v for k, v in reports[0]["counter"]["outcomes"].items() if v}
    assert nodes == {ray.util.get_node_ip_address(): {"episodes": 8, "outcomes": outcomes, "gpus": []}}
    assert reports[0] == reports[1]
    assert main(["replay", str(on_ray), "--out", str(tmp_path / "replayed")]) == 0
    assert "8/8 trajectories identical" in capsys.readouterr().out


def test_killed_actor_is_replaced_and_its_episode_retried(data: Path, tmp_path: Path) -> None:
    write_tasks(data, "faults",
                {"id": "ok1", "steps": 3},
                {"id": "dies-once", "steps": 4, "fault": "crash_once", "fault_at": 2},
                {"id": "always-dies", "steps": 4, "fault": "crash_always", "fault_at": 3, "sleep_s": 0.2},
                {"id": "ok2", "steps": 3})
    out = tmp_path / "r"
    assert main(["run", "--plugins", "faults", "--agent", "walker", "--executor", "ray", "--concurrency", "2",
                 "--out", str(out), "--no-report", "ray.max_retries=1"]) == 5  # one env_error
    records = {r["episode_id"]: r for r in RunStore(out).records()}
    assert sorted(records) == ["faults/always-dies", "faults/dies-once", "faults/ok1", "faults/ok2"]
    assert [records[f"faults/{k}"]["outcome"] for k in ("ok1", "dies-once", "ok2")] == ["success"] * 3
    assert records["faults/dies-once"]["steps"] == 4
    dead = records["faults/always-dies"]
    assert dead["outcome"] == "env_error" and dead["steps"] in (1, 2) and "actor died" in dead["failure_reason"]
    assert "gave up after 2 attempt(s)" in dead["failure_reason"]
    assert attempts(out) == {"faults/ok1": 1, "faults/dies-once": 2, "faults/always-dies": 2, "faults/ok2": 1}
    assert RunStore(out).counts() == {"done": 4}
    check_traces(out)


def test_hung_step_is_killed_by_the_watchdog_and_retried(data: Path, tmp_path: Path) -> None:
    write_tasks(data, "faults",
                {"id": "hangs-once", "steps": 3, "fault": "hang_once", "fault_at": 2},
                {"id": "slow-but-fine", "steps": 3, "sleep_s": 0.4})
    out = tmp_path / "r"
    started = time.monotonic()
    assert main(["run", "--plugins", "faults", "--agent", "walker", "--executor", "ray", "--concurrency", "2",
                 "--out", str(out), "--no-report", "ray.step_timeout_s=1"]) == 0
    assert time.monotonic() - started < 60
    records = {r["episode_id"]: r for r in RunStore(out).records()}
    assert {r["outcome"] for r in records.values()} == {"success"} and len(records) == 2
    assert attempts(out) == {"faults/hangs-once": 2, "faults/slow-but-fine": 1}
    check_traces(out)


def test_actor_left_with_a_call_it_gave_up_on_is_replaced(data: Path, tmp_path: Path) -> None:
    write_tasks(data, "faults", {"id": "hangs", "steps": 2, "fault": "hang_once", "fault_at": 1},
                {"id": "next", "steps": 1})
    out = tmp_path / "r"
    assert main(["run", "--plugins", "faults", "--agent", "walker", "--executor", "ray", "--concurrency", "1",
                 "--out", str(out), "--no-report", "run.episode_timeout_s=1"]) == 5  # one timeout
    store = RunStore(out)
    assert [r["outcome"] for r in store.records()] == ["timeout", "success"]
    first, second = (store.read_trace(key)[0]["observation"] for key in ("faults/hangs", "faults/next"))
    assert first.split()[-1] != second.split()[-1]  # the second episode ran in a fresh process


def test_spent_budget_leaves_episodes_pending_until_resumed(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([*COUNTER, "--executor", "ray", "--limit", "4", "--max-cost", "0", "--out", str(out)]) == 3
    store = RunStore(out)
    assert store.counts() == {"pending": 4} and store.meta()["status"] == "stopped"
    assert main(["run", "--resume", str(out), "--max-cost", "1", "--no-report", "run.executor=local"]) == 0
    assert RunStore(out).counts() == {"done": 4}
    check_traces(out)


def test_driver_crash_is_recovered_by_resume(data: Path, tmp_path: Path, ray_address: str) -> None:
    write_tasks(data, "faults", *({"id": f"w{i}", "steps": 3, "sleep_s": 0.25} for i in range(6)))
    run = ["run", "--plugins", "faults", "--agent", "walker", "--concurrency", "2", "--no-report"]
    reference = tmp_path / "reference"
    assert main([*run, "--out", str(reference)]) == 0
    crashed = tmp_path / "crashed"
    proc = start_suite([*run, "--executor", "ray", "--ray-address", ray_address, "--out", str(crashed)])
    wait_finished(proc, crashed, 2, timeout_s=90)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = {r["episode_id"]: r for r in RunStore(crashed).records()}
    assert 2 <= len(done) < 6, "the kill must land mid-run"
    assert main(["run", "--resume", str(crashed), "--no-report"]) == 0
    after = RunStore(crashed).records()
    assert without_timings(after) == without_timings(RunStore(reference).records())
    assert all(r == done[r["episode_id"]] for r in after if r["episode_id"] in done)
    check_traces(crashed)


def test_ctrl_c_leaves_in_flight_episodes_pending(data: Path, tmp_path: Path, ray_address: str) -> None:
    write_tasks(data, "faults", *({"id": f"w{i}", "steps": 3, "sleep_s": 0.25} for i in range(6)))
    out = tmp_path / "r"
    proc = start_suite(["run", "--plugins", "faults", "--agent", "walker", "--concurrency", "2", "--no-report",
                        "--executor", "ray", "--ray-address", ray_address, "--out", str(out)])
    wait_finished(proc, out, 1, timeout_s=90)
    err = interrupt(proc)
    assert proc.returncode == 130, err[-500:]
    store = RunStore(out)
    assert store.meta()["status"] == "interrupted" and set(store.counts()) == {"done", "pending"}
    assert main(["run", "--resume", str(out), "--no-report"]) == 0
    assert RunStore(out).counts() == {"done": 6}
    check_traces(out)


def test_mixed_run_packs_cpu_and_gpu_simulators(data: Path, tmp_path: Path) -> None:
    write_tasks(data, "faults", *({"id": f"c{i}", "steps": 2} for i in range(2)))
    write_tasks(data, "gpusim", *({"id": f"g{i}", "steps": 2} for i in range(3)))
    out = tmp_path / "r"
    assert main(["run", "--plugins", "faults,gpusim", "--agent", "walker", "--executor", "ray", "--out", str(out),
                 "--no-report"]) == 0
    store = RunStore(out)
    assert store.counts() == {"done": 5}
    for record in store.records():
        step = next(e for e in store.read_trace(record["episode_id"]) if e["type"] == "step")
        if record["benchmark"] == "gpusim":
            assert step["info"]["resources"] == {"CPU": 1.0, "GPU": 0.5}


def test_resources_come_from_the_plugin_or_from_ray_resources(data: Path) -> None:
    host = build_host()
    cfg = OmegaConf.create({"ray": {"resources": {"faults": {"num_cpus": 2, "licence": 1}}}})
    assert resources_of(host, cfg, "faults") == {"num_cpus": 2.0, "licence": 1.0}
    assert actor_options(resources_of(host, cfg, "faults"))["resources"] == {"licence": 1.0}
    assert resources_of(host, cfg, "gpusim") == {"num_cpus": 1.0, "num_gpus": 0.5}
    pools = plan(host, OmegaConf.create({}), [Task("faults", "a", {}), Task("gpusim", "b", {}),
                                             Task("faults", "c", {})])
    assert [(p.resources, len(p.tasks), p.capacity) for p in pools] == [
        ({"num_cpus": 1.0}, 2, 2), ({"num_cpus": 1.0, "num_gpus": 0.5}, 1, 2)]


def test_resources_no_node_has_fail_in_one_line(data: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    write_tasks(data, "gpusim", {"id": "g0", "steps": 1})
    assert main(["run", "--plugins", "gpusim", "--agent", "walker", "--executor", "ray", "--out", str(tmp_path / "r"),
                 "--no-report", "ray.resources={gpusim: {num_cpus: 1, num_gpus: 2}}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("error:") and "gpusim needs {'num_cpus': 1.0, 'num_gpus': 2.0}" in err and "'GPU': 1.0" in err
    assert RunStore(tmp_path / "r").counts() == {"pending": 1}  # nothing ran: fix the resources and resume


def test_actors_share_one_rate_limiter_and_one_budget(ray_address: str) -> None:
    services = ModelServices.remote(Limit(tpm=60_000), 0.01)
    first, second = SharedLimiter(services, True), SharedLimiter(services, True)

    async def two_workers() -> float:
        await first.acquire("p", 59_000)
        started = time.monotonic()
        await second.acquire("p", 1_500)  # 500 tokens short of the shared bucket: 0.5 s at 1,000 tokens/s
        return time.monotonic() - started

    assert 0.3 < asyncio.run(two_workers()) < 5
    spender, other = SharedLedger(services, 0.01), SharedLedger(services, 0.01)
    other.check()
    spender.record(ModelReply("x", 1, 1, 0.02, cached=False, latency_s=0.0, request_hash="h", attempts=1), "e1")
    with pytest.raises(BudgetExceeded):
        other.check()
    assert other.total.cost_usd == pytest.approx(0.02) and other.episode("e1").calls == 1
    unbudgeted = SharedLedger(services, None)
    unbudgeted.record(ModelReply("y", 1, 1, 0.0, cached=True, latency_s=0.0, request_hash="h", attempts=0), "e2")
    assert other.episode("e2").calls == 0 and unbudgeted.episode("e2").cached_calls == 1  # batched, then sent
    ray.kill(services)


def test_local_executor_is_the_default_and_never_imports_ray(tmp_path: Path) -> None:
    code = ("import sys; from suite.cli.main import main; "
            f"code = main(['run', '--plugins', 'template', '--agent', 'oracle', '--out', {str(tmp_path / 'r')!r}, "
            "'--no-report']); sys.exit(code or ('ray' in sys.modules) * 7)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
    assert RunStore(tmp_path / "r").meta()["executor"] == "local"


def named_services(timeout_s: float = 60) -> Any:
    """The handle of the running run's `ModelServices` actor, once it exists."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                 if a["name"].startswith("suite-model-services-")]
        if names:
            return ray.get_actor(names[0], namespace=next(
                a["namespace"] for a in ray.util.list_named_actors(all_namespaces=True) if a["name"] == names[0]))
        time.sleep(0.05)
    raise AssertionError("no ModelServices actor appeared")


def test_model_services_killed_mid_run_changes_no_outcome(data: Path, tmp_path: Path) -> None:
    common = ["run", "--plugins", "template", "--model", "scripted/ray-counter-slow", "--no-report",
              "model.cache=false", "--limit", "8", "--seed", "5", "--concurrency", "2", "--max-cost", "100"]
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    assert main([*common, "--out", str(local)]) == 0
    killed = []

    def kill_when_one_is_done() -> None:
        services = named_services()
        from run_processes import finished
        while finished(on_ray) < 1:
            time.sleep(0.05)
        ray.kill(services, no_restart=False)  # its process dies; Ray starts it again
        killed.append(finished(on_ray))

    import threading
    killer = threading.Thread(target=kill_when_one_is_done, daemon=True)
    killer.start()
    assert main([*common, "--executor", "ray", "--out", str(on_ray)]) == 0
    killer.join(5)
    assert killed and killed[0] < 8, "the kill must land mid-run"
    records = RunStore(on_ray).records()
    assert without_timings(records) == without_timings(RunStore(local).records())
    assert RunStore(on_ray).counts() == {"done": 8} and set(attempts(on_ray).values()) == {1}
    check_traces(on_ray)


def test_model_services_restart_keeps_the_ledger(ray_address: str, tmp_path: Path) -> None:
    from suite.executors.ray_models import start_services
    cfg = OmegaConf.create({"model": {"rpm": None, "tpm": None}, "run": {"max_cost": 0.05}})
    services = start_services(cfg, tmp_path / "ledger.pkl", "suite-model-services-test-restart")
    ledger = SharedLedger(services, 0.05)
    ledger.record(ModelReply("x", 3, 4, 0.03, cached=False, latency_s=0.0, request_hash="h", attempts=1), "e1")
    ray.kill(services, no_restart=False)
    assert ledger.episode("e1").cost_usd == pytest.approx(0.03)  # answered by the restarted actor
    ledger.record(ModelReply("y", 1, 1, 0.03, cached=False, latency_s=0.0, request_hash="h", attempts=1), "e2")
    with pytest.raises(BudgetExceeded):
        ledger.check()
    assert ray.get(services.totals.remote(None)).cost_usd == pytest.approx(0.06)
    ray.kill(services)


def test_episode_of_a_run_that_stops_on_an_error_is_left_pending(data: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUITE_RAYTEST_FRAGILE", "1")  # after the crash no worker can start: the run stops
    write_tasks(data, "faults", {"id": "dies-once", "steps": 3, "fault": "crash_once", "fault_at": 2})
    out = tmp_path / "r"
    with pytest.raises(RuntimeError, match="cannot load the faults plugin"):
        main(["run", "--plugins", "faults", "--agent", "walker", "--executor", "ray", "--concurrency", "1",
              "--out", str(out), "--no-report"])
    assert RunStore(out).counts() == {"pending": 1}  # never `running`: `--resume` runs it again


def test_an_image_seen_again_is_stored_once_as_locally(data: Path, tmp_path: Path) -> None:
    write_tasks(data, "faults", {"id": "camera", "steps": 4, "image": True})
    run = ["run", "--plugins", "faults", "--agent", "walker", "--no-report"]
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    assert main([*run, "--out", str(local)]) == 0
    assert main([*run, "--executor", "ray", "--out", str(on_ray)]) == 0
    pngs = [sorted(p.name for p in (root / "frames").rglob("*.png")) for root in (local, on_ray)]
    assert pngs[0] == pngs[1] == ["0000_0.png"]
    refs = [[e.get("images") for e in RunStore(root).read_trace("faults/camera")] for root in (local, on_ray)]
    assert refs[0] == refs[1] and len(refs[0]) == 6


def test_records_say_where_each_episode_ran(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tasks(data, "gpusim", {"id": "g0", "steps": 1})
    write_tasks(data, "faults", {"id": "c0", "steps": 1})
    out = tmp_path / "r"
    assert main(["run", "--plugins", "faults,gpusim", "--agent", "walker", "--executor", "ray", "--out", str(out),
                 "--no-report"]) == 0
    placed = {r["benchmark"]: r["placement"] for r in RunStore(out).records()}
    node = ray.util.get_node_ip_address()
    assert placed["gpusim"]["node"] == placed["faults"]["node"] == node
    assert placed["gpusim"]["gpus"] == ["0"] and "gpus" not in placed["faults"]
    assert placed["faults"]["node_id"] == ray.get_runtime_context().get_node_id()
    capsys.readouterr()
    assert main(["report", str(out), "--format", "md"]) == 0
    table = capsys.readouterr().out.split("### Where episodes ran (Ray nodes)\n", 1)[1].split("\n\n", 1)[0]
    assert table.splitlines()[3:] == [f"| - | walker | faults | {node} | 1 | success 1 | - |",
                                      f"| - | walker | gpusim | {node} | 1 | success 1 | 0 |"]


@pytest.mark.parametrize("name", ["asgard", "longact", "vigil"])
def test_ai2thor_simulators_declare_a_gpu_and_fail_early_without_one(name: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import suite.executors.ray_cluster as ray_cluster
    from suite.contract.errors import ConfigError
    host = build_host()
    thor = OmegaConf.create({name: {"env": {"backend": "ai2thor"}}})
    assert resources_of(host, OmegaConf.create({}), name) == {"num_cpus": 1.0, "episodes": 8.0}
    assert resources_of(host, thor, name) == {"num_cpus": 1.0, "num_gpus": 1.0}
    monkeypatch.setattr(ray_cluster, "node_resources", lambda: [{"CPU": 8.0}, {"CPU": 4.0}])
    with pytest.raises(ConfigError, match=f"^{name} needs .*'num_gpus': 1.0.* no node") as failed:
        plan(host, thor, [Task(name, "t1", {})])
    assert "\n" not in str(failed.value)


class PendingStore:
    """Records which episodes the fleet leaves pending."""

    def __init__(self) -> None:
        self.pending: list[str] = []

    def mark_pending(self, keys: list[str]) -> None:
        """Note them."""
        self.pending += keys


def test_episodes_no_live_node_can_host_wait_then_are_left_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    import suite.executors.ray as ray_executor
    from suite.executors.ray import Fleet
    from suite.executors.ray_cluster import Pool
    nodes = {"a": {"CPU": 2.0, "GPU": 1.0}}
    monkeypatch.setattr(ray_executor, "live_nodes", lambda: dict(nodes))
    notes: list[str] = []
    session = type("Session", (), {})()
    session.cfg = OmegaConf.create({"run": {"concurrency": 4}, "ray": {"max_retries": 2, "unplaceable_timeout_s": 0.2}})
    session.store, session.progress = PendingStore(), type("Progress", (), {"note": lambda self, m: notes.append(m)})()
    gpu, cpu = Pool({"num_gpus": 1.0}), Pool({"num_cpus": 1.0})
    gpu.tasks.extend([Task("g", "1", {}), Task("g", "2", {})])
    cpu.tasks.append(Task("c", "1", {}))
    fleet = Fleet(session, None, [gpu, cpu])
    fleet.look(force=True)
    assert (gpu.capacity, cpu.capacity) == (1, 2) and not notes
    nodes.clear()
    nodes["b"] = {"CPU": 4.0}  # the GPU node left, a CPU node joined
    fleet.look(force=True)
    assert (gpu.capacity, cpu.capacity) == (0, 4)
    assert "2 episode(s) of g wait: no live node offers {'num_gpus': 1.0}" in notes[-1]
    gpu.bound = 1  # a slot holds an actor of the GPU pool: it moves on to the CPU pool
    assert fleet.choose(None) is cpu and fleet.choose(gpu) is cpu
    time.sleep(0.25)
    fleet.look(force=True)
    assert session.store.pending == ["g/1", "g/2"] == fleet.left_pending and not gpu.tasks
    assert "left 2 episode(s) of g pending" in notes[-1] and len(cpu.tasks) == 1


def test_every_benchmark_declares_its_actors_and_how_many_episodes_each_runs(data: Path) -> None:
    host, none = build_host(), OmegaConf.create({})
    declared = {name: resources_of(host, none, name) for name in ("omniear", "agentvqa", "asgard", "longact", "vigil")}
    assert declared == {"omniear": {"num_cpus": 1.0, "episodes": 64.0}, "agentvqa": {"num_cpus": 1.0, "episodes": 64.0},
                        **dict.fromkeys(("asgard", "longact", "vigil"), {"num_cpus": 1.0, "episodes": 8.0})}
    pools = plan(host, OmegaConf.create({"ray": {"resources": {"agentvqa": {"num_cpus": 1, "episodes": 16}}}}),
                 [Task("omniear", "a", {}), Task("agentvqa", "b", {}), Task("asgard", "c", {}),
                  Task("longact", "d", {}), Task("omniear", "e", {})])
    assert [(p.resources, p.per_actor, len(p.tasks)) for p in pools] == [
        ({"num_cpus": 1.0}, 64, 2), ({"num_cpus": 1.0}, 16, 1), ({"num_cpus": 1.0}, 8, 2)]
    assert pools[0].options["max_concurrency"] == 65 and "episodes" not in pools[0].options.get("resources", {})
    assert "episodes" not in actor_options({"num_cpus": 1.0, "episodes": 4.0})


def test_episodes_is_a_whole_number_of_at_least_one(data: Path) -> None:
    from suite.contract.errors import ConfigError
    for bad in (0, 2.5):
        cfg = OmegaConf.create({"ray": {"resources": {"faults": {"num_cpus": 1, "episodes": bad}}}})
        with pytest.raises(ConfigError, match="`episodes` in the resources .* must be a whole number >= 1"):
            plan(build_host(), cfg, [Task("faults", "a", {})])


def test_slots_fill_an_actor_before_starting_another(monkeypatch: pytest.MonkeyPatch) -> None:
    import suite.executors.ray as ray_executor
    from suite.executors.ray import Fleet
    from suite.executors.ray_cluster import Pool, Worker
    killed: list[str] = []
    monkeypatch.setattr(ray_executor.ray, "kill", killed.append)
    session = type("Session", (), {})()
    session.cfg = OmegaConf.create({"run": {"concurrency": 8}, "ray": {"max_retries": 2}})
    pool = Pool({"num_cpus": 1.0}, per_actor=3, capacity=2)
    fleet = Fleet(session, None, [pool])
    started: list[str] = []

    async def spawn(p: Pool) -> Worker:
        await asyncio.sleep(0.01)
        started.append(f"actor{len(started)}")
        return Worker(started[-1], {"node": "n", "node_id": "n"}, p, p.per_actor)

    monkeypatch.setattr(fleet, "spawn", spawn)

    async def scenario() -> None:
        two = await asyncio.gather(fleet.lease(pool), fleet.lease(pool))
        assert started == ["actor0"] and two[0] is two[1] and two[0].load == 2  # one actor has room for both
        leased = [*two, *await asyncio.gather(*(fleet.lease(pool) for _ in range(4)))]
        assert started == ["actor0", "actor1"]  # a second one only once the first is full
        assert sorted(w.actor for w in leased) == ["actor0"] * 3 + ["actor1"] * 3
        assert await fleet.lease(pool) is None  # every actor runs its 3 episodes and no more fit
        first = leased[0]
        fleet.release(first)
        assert (await fleet.lease(pool)) is first and not killed
        for worker in [w for w in leased if w is first]:
            fleet.release(worker, retire=True)  # its actor died: no new episode goes there, and it is ended
        assert killed == [first.actor] and first not in pool.workers
        assert (await fleet.lease(pool)).actor == "actor2"  # room for a fresh one

    asyncio.run(scenario())


def test_episodes_share_an_actor_when_the_benchmark_allows(data: Path, tmp_path: Path) -> None:
    write_tasks(data, "faults", *({"id": f"w{i}", "steps": 3, "sleep_s": 0.1} for i in range(6)))
    out = tmp_path / "r"
    assert main(["run", "--plugins", "faults", "--agent", "walker", "--executor", "ray", "--out", str(out),
                 "--no-report", "--concurrency", "6", "ray.resources={faults: {num_cpus: 1, episodes: 3}}"]) == 0
    store = RunStore(out)
    assert store.counts() == {"done": 6}
    check_traces(out)
    processes, open_at_once = set(), 0
    for record in store.records():
        trace = store.read_trace(record["episode_id"])
        processes.add(trace[0]["observation"].rsplit(" ", 1)[1])
        open_at_once = max(open_at_once, *(e["info"]["live"] for e in trace if e["type"] == "step"))
    assert len(processes) <= 2 and open_at_once > 1  # at most two actors (2 CPUs), episodes side by side in one


def test_an_idle_actor_goes_to_another_pool_needing_the_same_resources(monkeypatch: pytest.MonkeyPatch) -> None:
    import suite.executors.ray as ray_executor
    from suite.executors.ray import Fleet
    from suite.executors.ray_cluster import Pool, Worker
    killed: list[str] = []
    monkeypatch.setattr(ray_executor.ray, "kill", killed.append)
    session = type("Session", (), {})()
    session.cfg = OmegaConf.create({"run": {"concurrency": 2}, "ray": {"max_retries": 2}})
    text, household, gpu = (Pool({"num_cpus": 1.0}, per_actor=64), Pool({"num_cpus": 1.0}, per_actor=8),
                            Pool({"num_cpus": 1.0, "num_gpus": 1.0}))
    household.tasks.append(Task("asgard", "1", {}))
    gpu.tasks.append(Task("vigil", "1", {}))
    fleet = Fleet(session, None, [text, household, gpu])
    actor = Worker("text-actor", {"node": "n", "node_id": "n"}, text, 64, load=1)
    text.workers.append(actor)
    fleet.release(actor)  # the text episodes are done: the household ones reuse the actor, no new start
    assert not killed and actor.pool is household and household.workers == [actor] and actor.room == 8
    household.tasks.clear()
    actor.load = 1
    fleet.release(actor)  # no pool with episodes left needs just a CPU: ended
    assert killed == ["text-actor"] and not household.workers


def test_an_attempt_cut_off_by_a_node_loss_is_spent_apart_and_noted(tmp_path: Path) -> None:
    from suite.contract.records import Action, Observation, StepRecord, Usage
    from suite.contract.schemas import validate
    from suite.engine.runner import FileSink
    from suite.executors.ray_attempt import TraceReplay
    from suite.report.summary import _node_loss_notes
    from suite.store.traces import NODE_LOST, TRACE_SCHEMA, TraceWriter, read_lines, trace_spend
    task = Task("counter", "t1", {})
    paths = {}
    for name, lost_node in (("lost", "10.0.0.3"), ("killed", None)):
        paths[name] = tmp_path / f"{name}.jsonl"
        replay = TraceReplay(task, FileSink(TraceWriter(tmp_path, paths[name], name)))
        replay.apply(("start", Observation(text="go")))
        replay.apply(("step", StepRecord(0, Action("go", "go"), reply="go", prompt=[{"role": "user", "content": "go"}],
                                         usage=Usage(100, 20, 0.01)), Observation(text="on")))
        replay.abandon(lost_node=lost_node)  # the driver: its node left the cluster / its actor died
    for line in read_lines(paths["lost"]):
        validate(line, TRACE_SCHEMA, "trace line")
    benchmark, spent, cause = trace_spend(paths["lost"])
    assert (benchmark, spent.attempts, spent.steps, spent.tokens, cause) == ("counter", 1, 1, 120, NODE_LOST)
    assert trace_spend(paths["killed"])[2] is None
    lost = {"attempts": 2, "steps": 3, "prompt_tokens": 1000, "completion_tokens": 200, "cost_usd": 0.0123}
    rows = [{"model": "openai/gpt-4o", "agent": "direct", "label": None,
             "benchmarks": {"omniear": {"spend": {NODE_LOST: lost}}}}]
    assert _node_loss_notes(rows) == [
        "PAID TWICE after a node loss: openai/gpt-4o / direct / omniear: up to 2 model call(s) in flight when 2 "
        "attempt(s) were cut off by their Ray node leaving (billed, replies lost, cost unknown); the 3 call(s) those "
        "attempts had finished (1,200 tokens, $0.0123) are in the cost once, their replies reused by the retries from "
        "the run's response cache"]
    rows[0]["benchmarks"]["omniear"]["spend"][NODE_LOST] = {**lost, "attempts": 0}
    assert _node_loss_notes(rows) == []


def test_workers_share_one_response_cache_served_from_the_drivers_node(ray_address: str, tmp_path: Path) -> None:
    from suite.executors.ray_models import SharedCache
    from suite.models import ResponseCache
    services = ModelServices.remote(Limit(), None)
    spec = (tmp_path / "cache.sqlite", "run-1", False)
    on_one_node, on_another = SharedCache(services, spec), SharedCache(services, spec)
    reply = ModelReply("ACTION: go", 12, 3, 0.01, cached=False, latency_s=0.2, request_hash="k1", attempts=1,
                       model="openai/gpt-4o")
    assert on_another.get("k1") is None
    on_one_node.put("k1", reply)
    hit = on_another.get("k1")  # a retry elsewhere reuses the reply
    assert (hit.text, hit.prompt_tokens, hit.completion_tokens, hit.earlier_run) == ("ACTION: go", 12, 3, False)
    assert asyncio.run(on_another.aget("k1")) == hit  # the model client's lookup, which leaves its loop free
    assert SharedCache(services, (spec[0], "run-2", False)).get("k1") is None  # another run's scope
    ray.get(services.close.remote())  # what the executor does at the end of a run: the batched commits land
    assert ResponseCache(*spec).get("k1").text == "ACTION: go"  # in the driver's file
    ray.kill(services)


def test_episodes_sharing_an_actor_that_dies_are_each_retried_once(data: Path, tmp_path: Path) -> None:
    write_tasks(data, "faults",
                {"id": "ok1", "steps": 4, "sleep_s": 0.2},
                {"id": "dies-once", "steps": 4, "sleep_s": 0.2, "fault": "crash_once", "fault_at": 2},
                {"id": "ok2", "steps": 4, "sleep_s": 0.2})
    out = tmp_path / "r"
    assert main(["run", "--plugins", "faults", "--agent", "walker", "--executor", "ray", "--concurrency", "3",
                 "--out", str(out), "--no-report", "ray.max_retries=1",
                 "ray.resources={faults: {num_cpus: 2, episodes: 3}}"]) == 0  # one actor fits: all three in it
    records = RunStore(out).records()
    assert sorted(r["outcome"] for r in records) == ["success"] * 3 and all(r["steps"] == 4 for r in records)
    assert attempts(out) == dict.fromkeys(("faults/ok1", "faults/dies-once", "faults/ok2"), 2)  # its crash ended all
    check_traces(out)


def test_calls_that_may_run_anywhere_go_to_one_model_call_actor_per_node(data: Path, tmp_path: Path) -> None:
    common = ["run", "--plugins", "template", "--model", "scripted/ray-counter-anywhere", "--no-report",
              "model.cache=false", "--limit", "8", "--seed", "5", "--concurrency", "4"]
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    assert main([*common, "--out", str(local)]) == 0
    assert main([*common, "--executor", "ray", "--out", str(on_ray)]) == 0
    assert without_timings(RunStore(on_ray).records()) == without_timings(RunStore(local).records())
    assert RunStore(on_ray).counts() == {"done": 8} and set(attempts(on_ray).values()) == {1}


def test_a_node_model_call_actor_answers_as_the_process_would_and_survives_a_kill(ray_address: str,
                                                                                  tmp_path: Path) -> None:
    from suite.contract.errors import ModelError
    from suite.executors.ray_models import NodeCalls, NodeModelCalls
    from suite.models import ModelClient, RetryPolicy, load_litellm, register_script

    started = tmp_path / "again-started"  # the first attempt of "again" is on the actor: it waits there for the kill

    def reply(messages: list[dict[str, Any]]) -> str:
        if messages[-1]["content"] == "400":
            raise load_litellm().BadRequestError("bad request", llm_provider="scripted", model="m")
        if messages[-1]["content"] == "again" and not started.exists():
            started.touch()
            time.sleep(120)  # ended by the kill: only the retry on the restarted actor answers
        return "node: " + messages[-1]["content"]

    async def in_flight() -> None:
        while not started.exists():
            await asyncio.sleep(0.01)

    script = register_script("node-echo", reply, latency_s=0.5, any_process=True)
    actor = NodeModelCalls.remote([script])
    retry = RetryPolicy(attempts=3, base_s=0.05, max_s=0.1)

    async def ask(client: ModelClient, text: str) -> Any:
        return await client.complete([{"role": "user", "content": text}])

    async def run() -> tuple[Any, Any, str, str]:
        here, there = ModelClient("scripted/node-echo", retry=retry), ModelClient("scripted/node-echo", retry=retry)
        there.workers = NodeCalls(actor)  # type: ignore[assignment]
        same = (await ask(here, "hi"), await ask(there, "hi"))
        errors = []
        for client in (here, there):
            with pytest.raises(ModelError) as failed:
                await ask(client, "400")
            errors.append(str(failed.value))
        call = asyncio.ensure_future(ask(there, "again"))
        await asyncio.wait_for(in_flight(), 60)
        ray.kill(actor, no_restart=False)  # Ray restarts it; the attempt in flight is retried once it serves again
        return same, await asyncio.wait_for(call, 60), *errors

    (a, b), again, error_here, error_there = asyncio.run(run())
    assert (a.text, a.prompt_tokens, a.completion_tokens, a.cost_usd) == \
        (b.text, b.prompt_tokens, b.completion_tokens, b.cost_usd) == ("node: hi", a.prompt_tokens, 2, 0.0)
    assert error_here == error_there and "BadRequestError" in error_there
    assert again.text == "node: again" and again.attempts >= 2  # retried while Ray restarted it
    ray.kill(actor)
