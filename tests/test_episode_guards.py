"""Guards found by auditing the run lifecycle: unique run folders, one process per run, duplicate task ids,
invalid settlements, deadlines on model calls and on simulator calls that never return, runs with no
finished episode in the report."""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.contract.errors import SuiteError
from suite.contract.records import Action, Observation, Settlement, StepResult, Task
from suite.engine.agents import Agent, AgentTurn, PolicyAgent
from suite.engine.loop import TraceSink, run_episode, settlement_problem
from suite.engine.runner import run_dir_names
from suite.report import summarize
from suite.store.run_folder import RunStore
from suite_template.plugin import HERE as TEMPLATE_DIR

TASK = Task("probe", "t1", {}, max_steps=3)


class ProbeEnv:
    """Three steps to done; `step_s` makes each step slow."""

    def __init__(self, step_s: float = 0.0) -> None:
        self.step_s, self.count, self.closed = step_s, 0, threading.Event()

    def reset(self) -> Observation:
        return Observation(text="start")

    def step(self, action: Any) -> StepResult:
        time.sleep(self.step_s)
        self.count += 1
        return StepResult(Observation(text=str(self.count)), done=self.count >= 3)

    def close(self) -> None:
        self.closed.set()


class ProbeHost:
    """Just enough of a plugin host for run_episode: make_env and settle."""

    def __init__(self, env: ProbeEnv, settlement: Any = None) -> None:
        self.env, self.settlement, self.settled = env, settlement, False

    def call(self, hook: str, benchmark: str, **kwargs: Any) -> Any:
        if hook == "make_env":
            return self.env
        self.settled = True
        if self.settlement is not None:
            return self.settlement
        return Settlement("success" if self.env.count >= 3 else "agent_failure", {"steps": self.env.count})


def go(task: Task, env: Any, observation: Observation, history: list[Any]) -> Action:
    return Action(value="go", text="go")


class SlowAgent(Agent):
    """A model call that never comes back in time."""

    async def act(self, task: Task, observation: Observation, history: list[Any]) -> AgentTurn:
        await asyncio.sleep(30)
        raise AssertionError("unreachable")


def episode(host: ProbeHost, agent: Agent, timeout_s: float | None = None) -> Any:
    return asyncio.run(run_episode(host, TASK, agent, {}, TraceSink(), timeout_s=timeout_s))


def test_runs_started_in_the_same_second_get_their_own_folders(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    stores = [RunStore.create(run_dir_names(None), lambda store, root: store.set_meta(out=str(root)))
              for _ in range(3)]
    folders = {s.root for s in stores}
    assert len(folders) == 3 and all(f.is_dir() and f.parent == Path("runs") for f in folders)
    assert all(s.meta()["out"] == str(s.root) for s in stores)  # filled again for the name it got


def test_a_run_folder_is_run_by_one_process_at_a_time(tmp_path: Path) -> None:
    first = RunStore(tmp_path / "r", create=True)
    first.lock()
    second = RunStore(tmp_path / "r")
    with pytest.raises(SuiteError, match="is being run by pid"):
        second.lock()
    first.close()
    second.lock()  # free again once the first is done
    second.close()


def test_duplicate_task_ids_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(TEMPLATE_DIR / "data", data)
    lines = (data / "tasks.jsonl").read_text().splitlines()
    (data / "tasks.jsonl").write_text("\n".join([*lines, lines[0]]) + "\n")
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--data-dir", str(data),
                 "--out", str(tmp_path / "r"), "--no-report"]) == 2
    assert "appear more than once" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [{"outcome": "success"}, Settlement("success", {"x": object()}),
                                 Settlement("success", failure_reason=3), Settlement("success", {1: 2})])
def test_an_invalid_settlement_is_an_env_error(bad: Any) -> None:
    assert settlement_problem(bad)
    result = episode(ProbeHost(ProbeEnv(), bad), PolicyAgent(go))
    assert result.settlement.outcome == "env_error"
    assert "invalid settlement" in result.settlement.failure_reason


def test_a_valid_settlement_passes() -> None:
    assert settlement_problem(Settlement("agent_failure", {"a": 1.0, "b": [1, "x"]}, "why", "FR")) is None


def test_the_episode_deadline_bounds_model_calls() -> None:
    env = ProbeEnv()
    started = time.monotonic()
    result = episode(ProbeHost(env), SlowAgent(), timeout_s=0.3)
    assert time.monotonic() - started < 5
    assert result.trajectory.end_reason == "timeout" and result.settlement.outcome == "timeout"
    assert env.closed.is_set()


def test_a_simulator_call_still_running_at_the_deadline_is_neither_settled_nor_trusted() -> None:
    host = ProbeHost(ProbeEnv(step_s=1.0))
    result = episode(host, PolicyAgent(go), timeout_s=0.3)
    assert result.settlement.outcome == "timeout" and not host.settled


def test_a_run_with_no_finished_episode_is_still_reported(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "r", create=True)
    store.set_meta(model="openai/gpt-4o", agent="direct", status="interrupted")
    store.add_episodes([("counter/c01", "counter", "c01"), ("counter/c02", "counter", "c02")])
    store.close()
    rows = summarize(None, [tmp_path / "r"])["rows"]
    assert len(rows) == 1 and rows[0]["benchmarks"]["counter"]["unfinished"] == 2


@pytest.fixture
def finished_run(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(TEMPLATE_DIR / "data", data)
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--data-dir", str(data),
                 "--out", str(out), "--no-report"]) == 0
    return out


@pytest.mark.parametrize("extra", [["run.agent=direct"], ["--model", "scripted/counter-greedy"], ["--limit", "5"],
                                   ["counter.data_dir=/elsewhere"], ["run.seed=3"],
                                   ["model.params.mock_response=ACTION: DONE"]])
def test_resume_refuses_what_would_change_the_measurement(finished_run: Path, extra: list[str],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--resume", str(finished_run), "--no-report", *extra]) == 2
    assert "cannot change when a run is resumed" in capsys.readouterr().err


def test_resume_takes_changes_to_how_it_runs(finished_run: Path) -> None:
    assert main(["run", "--resume", str(finished_run), "--no-report", "--concurrency", "2", "run.max_cost=5",
                 "model.retries=2", "model.params.api_base=http://127.0.0.1:9/v1", "--plugins", "template",
                 "--agent", "oracle"]) == 0  # the same plugins and agent again change nothing


def test_sampling_under_model_params_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--plugins", "template", "--model", "scripted/counter-greedy", "--out", str(tmp_path / "r"),
                 "model.params.temperature=0.5"]) == 2
    assert "set model.temperature directly" in capsys.readouterr().err


def test_resume_refuses_changed_data(finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = tmp_path / "data" / "tasks.jsonl"
    tasks.write_text(tasks.read_text().replace('"target": ', '"target": 1', 1))
    assert main(["run", "--resume", str(finished_run), "--no-report"]) == 2
    assert "changed since the run started" in capsys.readouterr().err


@pytest.mark.parametrize(("plugin", "env_class", "on_loop"), [
    ("omniear", "suite_omniear.plugin.OmniEnv", True),  # declares inline_env: a pure-Python text world
    ("template", "suite_template.plugin.CounterEnv", False),  # the default: a worker thread per simulator call
])
def test_simulator_calls_run_on_the_loop_only_for_a_benchmark_that_declares_inline_env(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin: str, env_class: str, on_loop: bool) -> None:
    import importlib

    module_name, class_name = env_class.rsplit(".", 1)
    cls = getattr(importlib.import_module(module_name), class_name)
    threads: set[int] = set()
    for name in ("reset", "step"):
        original = getattr(cls, name)

        def noted(self: Any, *args: Any, _original: Any = original) -> Any:
            threads.add(threading.get_ident())
            return _original(self, *args)

        monkeypatch.setattr(cls, name, noted)
    assert main(["run", "--plugins", plugin, "--agent", "oracle", "--limit", "2", "--out", str(tmp_path / "r"),
                 "--no-report"]) == 0
    assert threads
    assert (threads == {threading.get_ident()}) is on_loop
    assert RunStore(tmp_path / "r").records()[0]["outcome"] == "success"
