"""The plugin contract: every hook is dispatched as documented, documented in docs/plugins.md, and tested here."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.contract import hookspecs
from suite.contract.errors import PluginError
from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, Task, Trajectory
from suite.contract.registry import BenchmarkSpec, Metric
from suite.engine.host import build_host

DOCS = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
HOOKS = [name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction) if hasattr(fn, "suite_spec")]


class OtherBenchmark:
    """A second plugin whose benchmark hooks must never be called for the template's benchmark."""

    calls: list[str] = []

    @hookimpl
    def register(self, registry: Any) -> None:
        registry.add_benchmark(BenchmarkSpec("other", "a second benchmark", [Metric("success", "SR")]))

    @hookimpl
    def load_tasks(self, benchmark: str, config: Any) -> list[Task]:
        self.calls.append("load_tasks")
        return [Task("other", "o1", {})]

    @hookimpl
    def make_env(self, benchmark: str, task: Task, config: Any) -> Any:
        self.calls.append("make_env")

    @hookimpl
    def build_prompt(self, benchmark: str, task: Task, observation: Observation, history: list) -> list:
        self.calls.append("build_prompt")
        return []

    @hookimpl
    def parse_action(self, benchmark: str, task: Task, reply: str) -> Action:
        self.calls.append("parse_action")
        return Action.failure("other")

    @hookimpl
    def settle(self, benchmark: str, task: Task, trajectory: Trajectory, env: Any) -> Settlement:
        self.calls.append("settle")
        return Settlement("agent_failure")


class Tracker:
    """A lifecycle-only plugin, like a results tracker."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    @hookimpl
    def on_run_start(self, run: Any) -> None:
        self.events.append(("start", run.benchmarks))

    @hookimpl
    def on_episode_end(self, run: Any, record: Any) -> None:
        self.events.append(("episode", record.episode_id))

    @hookimpl
    def on_run_end(self, run: Any, status: str) -> None:
        self.events.append(("end", status))


@pytest.fixture
def host() -> Any:
    OtherBenchmark.calls = []
    return build_host(extra={"other": OtherBenchmark()})


def _task(host: Any) -> tuple[Task, Any]:
    from suite.testing.conformance import plugin_tasks

    tasks, cfg = plugin_tasks(host, "template", [])
    return tasks["counter"][0], cfg


def test_hook_register(host: Any) -> None:
    assert host.benchmark("counter").plugin == "template"
    assert host.benchmark("other").plugin == "other"
    assert host.registry.agent("oracle", "counter").plugin == "template"
    assert host.registry.agent("direct", "counter").plugin == "core"


def test_hook_load_tasks(host: Any) -> None:
    task, _ = _task(host)
    assert task.benchmark == "counter" and OtherBenchmark.calls == []


def test_hook_make_env(host: Any) -> None:
    task, cfg = _task(host)
    env = host.call("make_env", "counter", task=task, config=cfg.counter)
    assert "The number is" in env.reset().text and OtherBenchmark.calls == []


def test_hook_build_prompt(host: Any) -> None:
    task, _ = _task(host)
    messages = host.call("build_prompt", "counter", task=task, observation=Observation("x"), history=[])
    assert messages[0]["role"] == "user" and OtherBenchmark.calls == []


def test_hook_parse_action(host: Any) -> None:
    task, _ = _task(host)
    assert host.call("parse_action", "counter", task=task, reply="Thought\nACTION: +1").value == "+1"
    failed = host.call("parse_action", "counter", task=task, reply="no idea")
    assert not failed.ok and failed.parse_error
    assert host.call("parse_action", "other", task=task, reply="x").parse_error == "other"
    assert OtherBenchmark.calls == ["parse_action"]


def test_hook_settle(host: Any) -> None:
    task, cfg = _task(host)
    env = host.call("make_env", "counter", task=task, config=cfg.counter)
    env.reset()
    settlement = host.call("settle", "counter", task=task, trajectory=Trajectory(task, end_reason="done"), env=env)
    assert settlement.outcome == "agent_failure" and OtherBenchmark.calls == []


def _run_with_tracker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Tracker:
    tracker = Tracker()
    # `suite run` imports build_host when it runs (after its quick model check), so it finds this one
    monkeypatch.setattr("suite.engine.host.build_host", lambda: build_host(extra={"tracker": tracker}))
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--out", str(tmp_path / "r"),
                 "--no-report"]) == 0
    return tracker


def test_hook_on_run_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert _run_with_tracker(monkeypatch, tmp_path).events[0] == ("start", ["counter"])


def test_hook_on_episode_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    events = _run_with_tracker(monkeypatch, tmp_path).events
    assert len([e for e in events if e[0] == "episode"]) == 3


def test_hook_on_run_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert _run_with_tracker(monkeypatch, tmp_path).events[-1] == ("end", "complete")


def test_misspelled_hook_fails_at_start_up() -> None:
    class Typo:
        @hookimpl
        def load_task(self, benchmark: str, config: Any) -> list:  # missing "s"
            return []

    with pytest.raises(PluginError, match="load_task"):
        build_host(extra={"typo": Typo()})


def test_benchmark_without_all_hooks_is_rejected() -> None:
    class Partial:
        @hookimpl
        def register(self, registry: Any) -> None:
            registry.add_benchmark(BenchmarkSpec("partial", "", []))

    with pytest.raises(PluginError, match="does not implement"):
        build_host(extra={"partial": Partial()})


def test_disabled_plugins_are_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUITE_DISABLED_PLUGINS", "template, other")
    host = build_host(extra={"other": OtherBenchmark()})
    assert "template" not in host.plugin_names() and "other" not in host.plugin_names()
    with pytest.raises(PluginError, match="unknown plugin 'template'"):
        host.benchmarks_of("template")


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented_and_tested(hook: str) -> None:
    docs = DOCS.read_text()
    section = re.search(rf"^### `{hook}\((.*?)\)`$", docs, re.MULTILINE)
    assert section, f"docs/plugins.md has no section for hook {hook}"
    params = list(inspect.signature(getattr(hookspecs, hook)).parameters)
    assert [p.strip() for p in section.group(1).split(",") if p.strip()] == params
    assert hasattr(sys.modules[__name__], f"test_hook_{hook}"), f"hook {hook} has no test_hook_{hook}"



class WrappedBenchmark(OtherBenchmark):
    """A benchmark plugin that wraps its own parser: pluggy's caller runs both."""

    @hookimpl
    def register(self, registry: Any) -> None:
        registry.add_benchmark(BenchmarkSpec("wrapped", "a benchmark with a hook wrapper", [Metric("success", "SR")]))

    @hookimpl(wrapper=True)
    def parse_action(self, benchmark: str, task: Task, reply: str) -> Any:
        action = yield
        return Action(value=f"wrapped {action.parse_error}")

    @hookimpl(specname="parse_action")
    def parse(self, benchmark: str, task: Task, reply: str) -> Action:
        return Action.failure("plain")


def test_a_benchmark_hook_reaches_its_one_implementation_as_pluggy_would_and_wrappers_through_pluggy() -> None:
    import pluggy

    host = build_host(extra={"other": OtherBenchmark(), "wrapped": WrappedBenchmark()})
    OtherBenchmark.calls = []
    task = Task("other", "o1", {})
    assert host.call("parse_action", "other", task=task, reply="x").parse_error == "other"
    assert not isinstance(host._callers[("other", "parse_action")], pluggy.HookCaller)  # no pluggy work per step
    with pytest.raises(pluggy.HookCallError, match="reply"):
        host.call("parse_action", "other", task=task)
    assert host.call("parse_action", "wrapped", task=task, reply="x").value == "wrapped plain"
    assert OtherBenchmark.calls == ["parse_action"]  # owners never mix
