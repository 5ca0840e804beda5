"""A run from start to end: plan the episodes, execute them, store every record, resume after a crash."""

from __future__ import annotations

import asyncio
import platform
import random
import subprocess
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig, OmegaConf

import suite
from suite.contract import config as configmod
from suite.contract.errors import BudgetExceeded, ConfigError, SuiteError
from suite.contract.records import EpisodeRecord, Observation, StepRecord, Task
from suite.contract.runinfo import RunInfo
from suite.data import datadirs
from suite.data.sampling import stratified_sample
from suite.engine.agents import Agent, AgentContext
from suite.engine.failfast import FirstFailures
from suite.engine.host import PluginHost
from suite.engine.loop import EpisodeResult, Offload, TraceSink, inline, run_episode
from suite.engine.progress import RunProgress
from suite.engine.stall import StallRule, stall_rule
from suite.report.results_file import ResultsFile
from suite.store.infra import is_infra
from suite.store.run_folder import CONFIG_NAME, DB_NAME, RunStore
from suite.store.traces import TraceWriter

if TYPE_CHECKING:
    from suite.models.call_workers import CallWorkers


class FileSink(TraceSink):
    """Writes an episode's events to its trace file as they happen, and hands its warnings to `notify`."""

    def __init__(self, writer: TraceWriter, notify: Callable[[str], None] | None = None) -> None:
        self.writer = writer
        self.notify = notify

    def start(self, task: Task, observation: Observation) -> None:
        """Write the episode header and the first observation."""
        images = self.writer.store_images(observation, 0)
        self.writer.write({
            "type": "start", "episode_id": task.key, "benchmark": task.benchmark, "task_id": task.id,
            "category": task.category, "max_steps": task.max_steps, "observation": observation.text,
            "images": images,
        })

    def step(self, record: StepRecord, observation: Observation) -> None:
        """Write one step with the observation it led to."""
        record.images = self.writer.store_images(observation, record.index + 1) if observation.images else []
        data = record.to_json()
        data["observation"] = observation.text
        self.writer.write_step(data, record.prompt_texts)

    def warn(self, message: str) -> None:
        """Tell the user now (the trace's end line keeps it)."""
        if self.notify is not None:
            self.notify(message)

    def end(self, result: EpisodeResult) -> None:
        """Write the settlement (and the episode's warnings, if any) and close the file."""
        traj = result.trajectory
        end: dict[str, Any] = {"type": "end", "end_reason": traj.end_reason, "error": traj.error,
                               "settlement": asdict(result.settlement), "duration_s": result.duration_s}
        if traj.warnings:
            end["warnings"] = traj.warnings
        self.writer.write(end)
        self.writer.close()


@dataclass
class RunSession:
    """Everything the executors need to run and record episodes of one run."""

    host: PluginHost
    cfg: DictConfig
    store: RunStore
    info: RunInfo
    data_labels: dict[str, str]
    model: Any = None  # one client per benchmark (a dict), or one object for all (replay)
    progress: RunProgress | None = None
    in_flight: set[str] = field(default_factory=set)
    first_failures: FirstFailures | None = None  # set when the episodes start
    stop_cause: str | None = None  # why the run stops before its end (a permanent model error), if it does
    results: ResultsFile | None = None  # the run folder's results.json, kept current as episodes finish
    call_workers: CallWorkers | None = None  # the model-call worker processes, closed when the run ends

    @cached_property
    def agent_name(self) -> str:
        """The agent this run uses."""
        return str(self.cfg.run.agent)

    def bench_config(self, benchmark: str) -> DictConfig:
        """The benchmark's own config section."""
        return self.cfg.get(benchmark) or OmegaConf.create({})

    def make_agent(self, benchmark: str) -> Agent:
        """A fresh agent for one episode of `benchmark`."""
        spec = self.host.registry.agent(self.agent_name, benchmark)
        model = self.model.get(benchmark) if isinstance(self.model, dict) else self.model
        return spec.factory(AgentContext(self.host, benchmark, self.cfg, model, run_dir=self.store.root))

    def offload(self, benchmark: str) -> Offload:
        """Where this process runs `benchmark`'s simulator calls: on the loop if it declares `inline_env`, else in a
        worker thread."""
        return inline if self.host.benchmark(benchmark).inline_env else asyncio.to_thread

    def stall_rule(self, benchmark: str) -> StallRule:
        """When `benchmark`'s episodes that repeat a failed action are warned about and ended (suite.engine.stall)."""
        return stall_rule(self.cfg.run, self.host.benchmark(benchmark).stall_limit)

    def sink(self, task: Task) -> FileSink:
        """A fresh trace file for `task`, its warnings shown to the user."""
        return FileSink(self.store.open_trace(task.key), self.warn)

    def warn(self, message: str) -> None:
        """Tell the user about an episode while the run goes on: above the progress display, else as a Python
        warning (a run without one, as the API's)."""
        if self.progress is not None:
            self.progress.note(f"warning: {message}")
        else:
            warnings.warn(message, stacklevel=2)

    def record(self, task: Task, result: EpisodeResult, placement: dict[str, Any] | None = None) -> EpisodeRecord:
        """Turn a finished episode into its stored record (shared by every executor; `placement`: where it ran)."""
        traj, settle = result.trajectory, result.settlement
        usage = [s.usage for s in traj.steps]
        return EpisodeRecord(
            episode_id=task.key,
            benchmark=task.benchmark,
            task_id=task.id,
            task_category=task.category,
            agent=self.agent_name,
            model=self.info.model,
            seed=self.info.seed,
            outcome=settle.outcome,
            failure_category=settle.category,
            failure_reason=settle.failure_reason,
            metrics=settle.metrics,
            steps=len(traj.steps),
            end_reason=traj.end_reason if traj.end_reason != "running" else "env_error",
            prompt_tokens=sum(u.prompt_tokens for u in usage),
            completion_tokens=sum(u.completion_tokens for u in usage),
            cached_prompt_tokens=sum(u.cached_prompt_tokens for u in usage),
            cached_completion_tokens=sum(u.cached_completion_tokens for u in usage),
            earlier_run_replies=sum(u.earlier_run_replies for u in usage),
            cost_usd=sum(u.cost_usd for u in usage),
            truncated_steps=sum(u.truncated for u in usage),
            duration_s=round(result.duration_s, 6),
            trace=str(self.store.trace_path(task.key).relative_to(self.store.root)),
            data_source=self.data_labels.get(task.benchmark, "unknown"),
            placement=placement,
            warnings=list(traj.warnings),
        )

    def complete(self, task: Task, result: EpisodeResult, placement: dict[str, Any] | None = None) -> EpisodeRecord:
        """Store a finished episode once, tell the trackers, advance the progress display."""
        record = self.record(task, result, placement)
        if self.store.finish(record):
            first = self.first_failures
            cause = first.observe(record) if first else None
            if first and cause and self.stop_cause is None:
                self.stop_cause = f"the first {first.needed} episode(s) all failed with {cause}"
            self.host.broadcast("on_episode_end", run=self.info, record=record)
            if self.results:
                self.results.episode_done()
            if self.progress:
                tokens = record.prompt_tokens + record.completion_tokens
                self.progress.advance(record.outcome == "success", tokens, record.cost_usd, task.key,
                                      steps=record.steps, budget=task.max_steps,
                                      infra=is_infra(record.outcome))
        return record

    async def run_local(self, task: Task) -> EpisodeRecord | None:
        """Run one episode in this process, tracing to the run folder as it goes."""
        self.store.mark_running(task.key)
        self.in_flight.add(task.key)
        sink = self.sink(task)
        try:
            result = await run_episode(
                self.host, task, self.make_agent(task.benchmark), self.bench_config(task.benchmark), sink,
                timeout_s=self.cfg.run.episode_timeout_s, offload=self.offload(task.benchmark),
                stall=self.stall_rule(task.benchmark),
            )
        except (BudgetExceeded, asyncio.CancelledError) as exc:  # unfinished: `--resume` runs it again
            sink.writer.close()
            self.store.mark_pending([task.key])
            if isinstance(exc, asyncio.CancelledError):
                raise
            return None
        finally:
            self.in_flight.discard(task.key)
        return self.complete(task, result)


def _ids(ids: Any) -> set[str]:
    """`--tasks a,b` (or `run.tasks=[a,b]`) as a set of ids."""
    if not ids:
        return set()
    items = str(ids).split(",") if isinstance(ids, str | int) else [str(i) for i in ids]
    return {i.strip() for i in items if i.strip()}


def _wanted(task: Task, wanted: set[str]) -> bool:
    base = task.meta.get("base_id", task.id)
    return bool({task.id, task.key, base, f"{task.benchmark}/{base}"} & wanted)


def select_tasks(tasks: list[Task], ids: str | None, limit: int | None, seed: int, repeats: int = 1,
                 strata: Callable[[Task], Hashable] | None = None) -> list[Task]:
    """Filter by `--tasks` ids, take a seeded sample of at most `limit` tasks (order kept), then repeat each.

    With `strata` (a benchmark's `BenchmarkSpec.strata`) the sample keeps each stratum's share of the tasks.
    Repeated episodes are `<id> #k` with `meta["repeat"] = k`; `--tasks` accepts either form.
    """
    wanted = _ids(ids)
    bases = {w.rsplit(" #", 1)[0] for w in wanted}
    if wanted:
        tasks = [t for t in tasks if _wanted(t, bases)]
    if limit is not None and len(tasks) > int(limit):
        if strata is not None:
            keep = set(stratified_sample([strata(t) for t in tasks], int(limit), seed))
        else:
            keep = set(random.Random(seed).sample(range(len(tasks)), int(limit)))
        tasks = [t for i, t in enumerate(tasks) if i in keep]
    out = [replace(t, id=t.id if repeats <= 1 else f"{t.id} #{k}", meta={**t.meta, "repeat": k, "base_id": t.id})
           for t in tasks for k in range(1, max(1, repeats) + 1)]
    return [t for t in out if _wanted(t, wanted)] if wanted else out


def resolve_benchmarks(host: PluginHost, names: list[str]) -> list[str]:
    """Plugins (or single benchmarks) named on the command line, as benchmark names."""
    if not names:
        raise ConfigError("no plugins selected: pass --plugins (see `suite plugins`)")
    benches: list[str] = []
    for name in names:
        found = [name] if name in host.registry.benchmarks else host.benchmarks_of(name)
        if not found:
            raise ConfigError(host.no_benchmark(name))
        benches += found
    return list(dict.fromkeys(benches))


def resolve_data(host: PluginHost, cfg: DictConfig, benchmarks: list[str]) -> dict[str, datadirs.DataChoice]:
    """Choose each benchmark's data and write the choice into its config section's `data_dir`."""
    choices = {}
    for bench in benchmarks:
        source = host.registry.data_sources.get(bench)
        if source is None:
            continue
        section = cfg.get(bench)
        configured = section.get("data_dir") if section is not None else None
        choice = datadirs.choose(source, configured)
        if section is not None:
            OmegaConf.update(cfg, f"{bench}.data_dir", str(choice.path), force_add=True)
        choices[bench] = choice
    return choices


def load_all_tasks(host: PluginHost, cfg: DictConfig, benchmarks: list[str]) -> list[Task]:
    """Load and select every benchmark's tasks (in the driver)."""
    return plan_tasks(host, cfg, benchmarks)[0]


def plan_tasks(host: PluginHost, cfg: DictConfig,
               benchmarks: list[str]) -> tuple[list[Task], dict[str, dict[str, Any]]]:
    """Every benchmark's selected tasks, and per benchmark how they were chosen (tasks available, selected, the
    limit, ids, seed and repeats: the report says it)."""
    tasks: list[Task] = []
    selection: dict[str, dict[str, Any]] = {}
    examples: list[str] = []
    repeats = int(cfg.run.get("repeats") or 1)
    for bench in benchmarks:
        loaded = list(host.call("load_tasks", bench, config=cfg.get(bench) or OmegaConf.create({})))
        twice = sorted(i for i, n in Counter(t.id for t in loaded).items() if n > 1)
        if twice:
            raise ConfigError(f"{bench}: task id(s) {', '.join(twice[:5])} appear more than once in its data; "
                              "every task needs its own id")
        strata = host.registry.benchmarks[bench].strata
        chosen = select_tasks(loaded, cfg.run.tasks, cfg.run.limit, int(cfg.run.seed), repeats, strata)
        selection[bench] = {"available": len(loaded), "selected": len({t.meta.get("base_id", t.id) for t in chosen}),
                            "limit": cfg.run.limit, "tasks": ",".join(sorted(_ids(cfg.run.tasks))) or None,
                            "seed": int(cfg.run.seed),
                            "repeats": repeats}
        if strata is not None and cfg.run.limit is not None:
            selection[bench]["stratified"] = True
        tasks += chosen
        examples += [t.id for t in loaded[:1]]
    if not tasks:
        raise ConfigError(_no_tasks(benchmarks, cfg.run.tasks, examples))
    return tasks, selection


def check_tasks(host: PluginHost, cfg: DictConfig, tasks: list[Task]) -> None:
    """Each benchmark's `check_tasks` on its selected tasks (each task once, whatever its repeats)."""
    by_bench: dict[str, dict[str, Task]] = {}
    for task in tasks:
        by_bench.setdefault(task.benchmark, {}).setdefault(task.meta.get("base_id", task.id), task)
    for bench, chosen in by_bench.items():
        check = host.benchmark(bench).check_tasks
        if check is not None:
            check(list(chosen.values()), cfg.get(bench) or OmegaConf.create({}))


def _no_tasks(benchmarks: list[str], wanted: Any, examples: list[str]) -> str:
    """Why nothing is left to run: no id matched, or the benchmarks' own settings kept no task."""
    names = ", ".join(benchmarks)
    if wanted and examples:
        return (f"no task of {names} has the id(s) {', '.join(sorted(_ids(wanted)))}; ids look like "
                f"{examples[0]!r} (`suite tasks {benchmarks[0]}` lists them)")
    return f"no task left to run: the data of {names} holds none that its settings keep"


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(suite.__file__).parent, capture_output=True, text=True,
            timeout=5,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def run_metadata(host: PluginHost, cfg: DictConfig, benchmarks: list[str],
                 choices: dict[str, datadirs.DataChoice]) -> dict[str, Any]:
    """Versions, git commit, data sources and hashes, seeds, model and agent of a run."""
    plugins = sorted({host.benchmark(b).plugin for b in benchmarks})
    return {
        "suite_version": suite.__version__,
        "python": platform.python_version(),
        "git_commit": _git_commit(),
        "plugins": {p: host.plugin_version(p) for p in plugins},
        "benchmarks": benchmarks,
        "data": {b: {"kind": c.kind, "path": str(c.path), "origin": c.origin, "sha256": datadirs.tree_hash(c.path),
                     **({"pack": pack} if (pack := datadirs.pack_version(host.registry.data_sources.get(b), c.path))
                        else {})}
                 for b, c in choices.items()},
        "seed": int(cfg.run.seed),
        "model": cfg.run.model,
        "agent": cfg.run.agent,
        "label": cfg.run.get("label"),
        "executor": cfg.run.executor,
        "benchmark_meta": {b: dict(meta(cfg.get(b) or OmegaConf.create({})))
                           for b in benchmarks if (meta := host.benchmark(b).run_metadata)},
    }


def run_dir_names(out: str | None, root: Path | None = None) -> Iterator[Path]:
    """Where a new run may go, in order of preference: `--out` as given (absent or an empty folder), or
    <root>/<UTC timestamp> (root: the runs folder, `suite.store.runsdir`), then with `-2`, `-3`... (RunStore.create
    takes the first that is free)."""
    if out and out != "runs":
        path = Path(out)
        if (path / DB_NAME).exists():
            raise SuiteError(f"{path} already holds a run; use --resume {path} or another --out")
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise SuiteError(f"{path} exists and is not an empty folder; choose another --out")
        yield path
        return
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        yield (root or Path(out or "runs")) / (stamp if n == 1 else f"{stamp}-{n}")


def save_config(cfg: DictConfig, root: Path) -> None:
    """Write the resolved (redacted) config into the run folder."""
    configmod.save(cfg, root / CONFIG_NAME)
