"""Checks every plugin must pass: hooks, task files, an oracle episode, a parser that never raises."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from omegaconf import DictConfig

from suite.contract import config as configmod
from suite.contract.hookspecs import BENCHMARK_HOOKS
from suite.contract.records import OUTCOMES, Action, StepRecord, Task
from suite.contract.registry import ShortcutBaseline
from suite.contract.schemas import validate
from suite.contract.settings import check_settings, undeclared_keys
from suite.engine import runner
from suite.engine.agents import AgentContext
from suite.engine.host import PluginHost, build_host, default_config
from suite.engine.loop import EpisodeResult, TraceSink, run_episode
from suite.store.traces import TRACE_SCHEMA, TraceWriter, read_lines
from suite.testing.replies import MB, hostile_replies, mutations, swapped_replies, valid_samples


def plugin_tasks(host: PluginHost, plugin: str, overrides: list[str]) -> tuple[dict[str, list[Task]], DictConfig]:
    """Every task of every benchmark of `plugin`, loaded through its hooks and data source, and the config."""
    cfg = default_config(sorted(host.registry.benchmarks), host)
    configmod.apply_overrides(cfg, overrides)
    benches = host.benchmarks_of(plugin)
    runner.resolve_data(host, cfg, benches)
    return {b: list(host.call("load_tasks", b, config=cfg.get(b) or configmod.OmegaConf.create({})))
            for b in benches}, cfg


def oracle_episode(host: PluginHost, task: Task, cfg: Any, trace_dir: Path | None = None) -> EpisodeResult:
    """Run one episode of `task` with the benchmark's oracle agent, in this process (its trace written to
    `trace_dir/trace.jsonl` and its frames under `trace_dir/frames` when given)."""
    agent = host.registry.agent("oracle", task.benchmark).factory(AgentContext(host, task.benchmark, cfg))
    section = cfg.get(task.benchmark) or configmod.OmegaConf.create({})
    sink = TraceSink() if trace_dir is None else runner.FileSink(TraceWriter(trace_dir, trace_dir / "trace.jsonl",
                                                                             "oracle"))
    return asyncio.run(run_episode(host, task, agent, section, sink))


#: the generous bound on parsing one hostile reply, in seconds per megabyte (at least one megabyte): a linear
#: parser takes a small fraction of it on a loaded machine, a quadratic one minutes (bench/parse_replies.py
#: prints the real figures)
PARSE_S_PER_MB = 5.0


class PluginConformance:
    """Subclass in a test module and set `plugin`; pytest collects the checks below."""

    plugin: ClassVar[str] = ""
    overrides: ClassVar[list[str]] = []
    oracle_tasks: ClassVar[int] = 1

    def _host(self) -> PluginHost:
        return build_host()

    def _tasks(self) -> tuple[PluginHost, dict[str, list[Task]], Any]:
        host = self._host()
        tasks, cfg = plugin_tasks(host, self.plugin, list(self.overrides))
        return host, tasks, cfg

    def test_declares_benchmarks_and_implements_hooks(self) -> None:
        """The plugin declares a benchmark and implements the five benchmark hooks."""
        host = self._host()
        assert host.benchmarks_of(self.plugin), f"{self.plugin} declares no benchmark"
        info = next(i for i in host.plugin_info() if i.name == self.plugin)
        assert set(BENCHMARK_HOOKS) <= set(info.hooks)

    def test_config_schema_describes_the_defaults(self) -> None:
        """Each benchmark declares a JSON Schema of its config section that its defaults meet, key by key."""
        host = self._host()
        cfg = default_config(sorted(host.registry.benchmarks), host)
        for bench in host.benchmarks_of(self.plugin):
            schema = host.benchmark(bench).config_schema
            assert schema is not None, f"{bench}: declare BenchmarkSpec.config_schema (see docs/plugins.md)"
            check_settings(cfg, {bench: schema})
            section = configmod.OmegaConf.to_container(cfg.get(bench) or configmod.OmegaConf.create({}))
            assert not undeclared_keys(schema, section), f"{bench}: keys its config schema does not describe"

    def test_config_defaults_ship_with_the_plugin(self) -> None:
        """A benchmark with settings ships their defaults in its own package (`BenchmarkSpec.config_defaults`), so
        `<benchmark>.key=value` reaches them as it reaches a built-in benchmark's."""
        host = self._host()
        core_configs = Path(str(resources.files("suite.configs"))).resolve()
        for bench in host.benchmarks_of(self.plugin):
            spec = host.benchmark(bench)
            section = configmod.section_defaults(bench, spec.config_defaults)  # loads, one line if malformed
            assert section[bench] or not spec.config_schema, (
                f"{bench}: declares settings but ships no defaults; set BenchmarkSpec.config_defaults")
            if isinstance(spec.config_defaults, Path):
                assert spec.config_defaults.is_file(), f"{bench}: {spec.config_defaults} is missing"
                assert core_configs not in spec.config_defaults.resolve().parents, (
                    f"{bench}: its defaults belong in its own package, not in the core's configs/")

    def test_task_files_load_and_validate(self) -> None:
        """load_tasks returns Task records with unique ids for every benchmark."""
        _, tasks, _ = self._tasks()
        for bench, items in tasks.items():
            assert items, f"{bench}: no tasks"
            assert all(isinstance(t, Task) and t.benchmark == bench for t in items)
            assert len({t.id for t in items}) == len(items), f"{bench}: duplicate task ids"

    def test_oracle_episode_succeeds(self, tmp_path: Path) -> None:
        """The benchmark's oracle agent settles its first tasks as success; every line of their traces matches
        the trace-line schema."""
        host, tasks, cfg = self._tasks()
        for items in tasks.values():
            for task in items[: self.oracle_tasks]:
                result = oracle_episode(host, task, cfg, tmp_path)
                assert result.settlement.outcome in OUTCOMES
                assert result.settlement.outcome == "success", result.settlement.failure_reason
                for i, line in enumerate(read_lines(tmp_path / "trace.jsonl")):
                    validate(line, TRACE_SCHEMA, f"{task.key} trace line {i + 1}")

    def test_prompt_is_chat_messages(self) -> None:
        """build_prompt returns a non-empty list of role/content messages."""
        host, tasks, cfg = self._tasks()
        for bench, items in tasks.items():
            env = host.call("make_env", bench, task=items[0], config=cfg.get(bench))
            try:
                messages = host.call("build_prompt", bench, task=items[0], observation=env.reset(), history=[])
            finally:
                env.close()
            assert messages and all({"role", "content"} <= set(m) for m in messages)

    def test_shortcut_baselines_are_declared(self) -> None:
        """Each benchmark declares `stop_reply` and `valid_reply` (so `suite audit` runs the generic `stop-at-once`
        and `random`), and every baseline is well formed: a headline metric, levels in percent points, an agent
        that exists for the benchmark, a scripted model that is registered, and per-category ceilings and chance
        levels whose keys are categories of its tasks (or "*"); its setting overrides (with the benchmark's
        `blind_config` for a `blind` one) are settings of the run config; a learned one fits, and its policy's reply
        parses."""
        from suite.models.scripted import find_script
        from suite.validity.baselines import audit_key, baseline_config, baselines_of, check_baseline

        host, tasks, cfg = self._tasks()
        for bench, items in tasks.items():
            spec = host.benchmark(bench)
            assert spec.stop_reply is not None, f"{bench}: declare BenchmarkSpec.stop_reply (docs/plugins.md)"
            assert spec.valid_reply is not None, f"{bench}: declare BenchmarkSpec.valid_reply (docs/plugins.md)"
            keys = {"*"} | {audit_key(spec, t) for t in items}
            for baseline in baselines_of(spec):
                assert not check_baseline(spec, baseline), check_baseline(spec, baseline)
                host.registry.agent(baseline.agent, bench)
                if baseline.model and baseline.model.startswith("scripted/"):
                    assert find_script(baseline.model.split("/", 1)[1]), f"{bench}: {baseline.model} is not registered"
                for levels in (baseline.ceiling, baseline.chance):
                    if isinstance(levels, Mapping):
                        assert set(levels) <= keys, f"{bench}/{baseline.name}: no task in {set(levels) - keys}"
                baseline_config(cfg, baseline, spec)  # its settings, and blind_config for a blind one, are known keys
                if baseline.learner is not None and len(items) > 1:
                    self._check_learned(host, bench, baseline, items, cfg)

    @staticmethod
    def _check_learned(host: PluginHost, bench: str, baseline: ShortcutBaseline, items: list[Task], cfg: Any) -> None:
        """A learned baseline fits on every task but the first, and its policy's reply to the first one's first
        observation (what it `reads` of it) is one the benchmark's parser accepts."""
        from suite.validity.learned import reading

        assert baseline.learner is not None
        policy = baseline.learner(items[1:])
        env = host.call("make_env", bench, task=items[0], config=cfg.get(bench))
        try:
            observation = env.reset()
        finally:
            env.close()
        reply = policy(reading(baseline.reads, items[0], observation, []))
        action = host.call("parse_action", bench, task=items[0], reply=reply)
        assert action.ok, f"{bench}/{baseline.name}: its policy's reply {reply!r} does not parse: {action.parse_error}"

    def test_parse_action_never_raises(self) -> None:
        """parse_action returns an Action (maybe a failure with a reason) for arbitrary text."""
        host, tasks, _ = self._tasks()
        pairs = [(b, items[0]) for b, items in tasks.items()]

        @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
        @given(st.text(max_size=400))
        def check(reply: str) -> None:
            for bench, task in pairs:
                action = host.call("parse_action", bench, task=task, reply=reply)
                assert isinstance(action, Action)
                assert action.ok or action.parse_error

        check()

    def test_parse_action_survives_hostile_replies(self) -> None:
        """parse_action returns an Action, in time linear in the reply's length, for JSON nested 100,000 deep,
        numbers of thousands of digits, megabytes of text, control characters, the pathological shapes, and valid
        replies with each value swapped for another type or an out-of-range number."""
        host, tasks, cfg = self._tasks()
        for bench, items in tasks.items():
            replies = list(hostile_replies())
            valid_reply = host.benchmark(bench).valid_reply
            if valid_reply is not None:
                env = host.call("make_env", bench, task=items[0], config=cfg.get(bench))
                try:
                    samples = valid_samples(valid_reply, items[0], env.reset())
                finally:
                    env.close()
                replies += [swap for sample in dict.fromkeys(samples) for swap in swapped_replies(sample)]
            for name, reply in replies:
                action = _bounded(f"{bench}: parsing {name}", len(reply), host.call, "parse_action", bench,
                                  task=items[0], reply=reply)
                assert isinstance(action, Action), f"{bench}: {name}: {type(action).__name__}"

    def test_parse_action_survives_mutated_valid_replies(self) -> None:
        """parse_action returns an Action for valid replies whose JSON values were swapped for other types and
        sizes (huge integers, infinities, nested lists), with hostile text spliced in or a fence around them."""
        host, tasks, cfg = self._tasks()
        for bench, items in tasks.items():
            valid_reply = host.benchmark(bench).valid_reply
            if valid_reply is None:
                continue
            env = host.call("make_env", bench, task=items[0], config=cfg.get(bench))
            try:
                samples = valid_samples(valid_reply, items[0], env.reset())
            finally:
                env.close()
            _parse_mutations(host, bench, items[0], samples)

    def test_build_prompt_survives_hostile_history(self) -> None:
        """build_prompt reads back an earlier hostile reply (an agent's plan or notes, say) in time linear in its
        length and without raising."""
        host, tasks, cfg = self._tasks()
        for bench, items in tasks.items():
            env = host.call("make_env", bench, task=items[0], config=cfg.get(bench))
            try:
                observation = env.reset()
                for name, reply in hostile_replies():
                    action = host.call("parse_action", bench, task=items[0], reply=reply)
                    step = StepRecord(index=0, action=action, reply=reply, feedback="")
                    _bounded(f"{bench}: a prompt after {name}", len(reply), host.call, "build_prompt", bench,
                             task=items[0], observation=observation, history=[step])
            finally:
                env.close()


def _bounded(what: str, size: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, failing the check when it raises or runs past PARSE_S_PER_MB per megabyte of `size`
    (in a daemon thread: a quadratic parser fails the check at the bound instead of running for hours)."""
    bound = PARSE_S_PER_MB * max(1.0, size / MB)
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - reported by the check below
            result["error"] = exc

    started = time.perf_counter()
    worker = threading.Thread(target=run, name="suite-conformance-bounded", daemon=True)
    worker.start()
    worker.join(bound)
    assert not worker.is_alive(), f"{what}: still running after {bound:.0f} s (not linear in the reply's length?)"
    if "error" in result:
        raise AssertionError(f"{what}: raised {type(result['error']).__name__}: {result['error']}"[:500]) \
            from result["error"]
    assert time.perf_counter() - started < bound
    return result["value"]


def _parse_mutations(host: PluginHost, bench: str, task: Task, samples: list[str]) -> None:
    """Parse mutations of `samples` (hypothesis): each gives an Action."""

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(samples).flatmap(mutations))
    def check(reply: str) -> None:
        action = host.call("parse_action", bench, task=task, reply=reply)
        assert isinstance(action, Action)
        assert action.ok or action.parse_error

    check()
