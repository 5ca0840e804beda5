"""A run session from start to end as the CLI and the API drive it: build the model client and check what it takes,
create or reopen the run folder, execute the planned episodes with the configured executor."""

from __future__ import annotations

import contextlib
import gc
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from suite.contract import config as configmod
from suite.contract.errors import ConfigError, SuiteError, disk_full
from suite.contract.records import INFRA_OUTCOMES, Task
from suite.contract.runinfo import RunInfo
from suite.contract.secrets import REDACTED
from suite.data import datadirs
from suite.engine import runner
from suite.engine.failfast import FirstFailures
from suite.engine.host import PluginHost
from suite.engine.progress import RunProgress
from suite.engine.stall import protocol_note
from suite.launch.compose import (
    RUN_FLAGS,
    Options,
    apply_data_dir,
    apply_options,
    check_extras,
    check_run_settings,
    compose_config,
    resolve_model_presets,
    saved_run_config,
    split_names,
)
from suite.launch.consoles import err_console
from suite.launch.estimate import cost_warning
from suite.launch.folder_trust import check_endpoint, from_folder
from suite.models.event_loops import run_to_completion
from suite.report.results_file import ResultsFile
from suite.store import traces
from suite.store.run_folder import CONFIG_NAME, RunStore
from suite.store.runsdir import runs_dir


def _model_client(cfg: DictConfig, host: PluginHost, benchmarks: list[str], cache_scope: str) -> Any:
    """The run's model client per benchmark (None for agents without a model); its response cache keeps this
    run's replies under `cache_scope` (see suite.models.cache)."""
    uses_model = any(host.registry.agent(str(cfg.run.agent), b).uses_model for b in benchmarks)
    if not uses_model:
        if cfg.run.model:
            raise ConfigError(f"agent {cfg.run.agent!r} uses no model, so --model {cfg.run.model} would only "
                              "mislabel its results: drop --model (or pick an agent that uses one)")
        return None
    if not cfg.run.model:
        raise ConfigError(f"agent {cfg.run.agent!r} needs a model: pass --model (a litellm model string)")
    from suite.models import benchmark_model_defaults, client_from_config, shared_parts
    from suite.models.preflight import check_model

    check_model(str(cfg.run.model), configmod.plain(cfg.model.params))

    parts = shared_parts(cfg, cache_scope)
    clients = {}
    for bench in benchmarks:
        clients[bench] = client_from_config(cfg, benchmark_model_defaults(cfg.get(bench), bench), parts)
        if clients[bench].wants_valid_reply and host.benchmark(bench).valid_reply is None:
            raise ConfigError(f"{cfg.run.model} answers with a benchmark's valid replies, and {bench} declares none "
                              "(BenchmarkSpec.valid_reply)")
        _check_agent_plays(cfg, host.registry.agent(str(cfg.run.agent), bench), clients[bench])
    _check_vision(cfg, host, benchmarks)
    _warn_context(cfg, clients)
    return clients


def _check_agent_plays(cfg: DictConfig, agent: Any, client: Any) -> None:
    """Stop before the run when the model is a script answering with the benchmark's valid replies and the agent
    builds prompts of its own that such a script cannot answer (every episode would end in a model error)."""
    if not client.wants_valid_reply or agent.valid_replies:
        return
    offline = f"; offline, --model {agent.offline_model} plays it" if agent.offline_model else ""
    raise ConfigError(f"--model {cfg.run.model} answers only with the benchmark's own actions, which the direct agent "
                      f"asks for; agent {agent.name!r} builds prompts of its own that it cannot answer: use a model "
                      f"that reads them{offline}")


def _call_workers(cfg: DictConfig, model: Any) -> Any:
    """The run's model-call worker processes (forked now, before the run's loop and threads), or None."""
    if not isinstance(model, dict):
        return None
    from suite.models import start_call_workers

    return start_call_workers(cfg, model)


def _warn_context(cfg: DictConfig, clients: dict[str, Any]) -> None:
    """Warn once per benchmark when the server says its context cannot hold the benchmark's `max_tokens`."""
    from suite.models.vision import context_warning, served_context

    context = served_context(cfg.model.params.get("api_base"))
    for bench, client in clients.items():
        message = context_warning(context, bench, client.max_tokens)
        if message:
            err_console.print(message, highlight=False)


def _check_vision(cfg: DictConfig, host: PluginHost, benchmarks: list[str]) -> None:
    """Stop before the run when a benchmark would send images to a model that takes none (`model.vision`)."""
    from suite.models.vision import check_images, model_vision

    needs = {}
    for bench in benchmarks:
        agent = host.registry.agent(str(cfg.run.agent), bench)
        if agent.images is not None:  # the agent's own prompts, not the benchmark's
            switch = agent.images(cfg)
        else:
            images = host.benchmark(bench).images
            switch = images(cfg.get(bench)) if images is not None else None
        if switch is not None:
            needs[bench] = switch
    if not needs:
        return
    vision = model_vision(str(cfg.run.model), cfg.model.get("vision", "auto"), configmod.plain(cfg.model.params))
    if vision.takes_images is None:
        err_console.print(f"warning: cannot tell whether {cfg.run.model} takes images: {vision.how}", highlight=False)
    check_images(str(cfg.run.model), vision, needs)


def _warn_before(cfg: DictConfig, host: PluginHost, benchmarks: list[str], model: Any, tasks: list[Task]) -> None:
    """Before the episodes start: a stall limit that is not a benchmark's protocol, and a large uncapped cost."""
    notes = [protocol_note(cfg.run, b, host.benchmark(b).stall_limit) for b in benchmarks]
    for note in [*(f"warning: {n}" for n in notes if n), cost_warning(cfg.run, model, tasks)]:
        if note:
            err_console.print(note, highlight=False, markup=False, soft_wrap=True)


def start_session(
    host: PluginHost, cfg: DictConfig, out: str | None, model: Any = None
) -> tuple[runner.RunSession, list]:
    """Create a new run folder and plan its episodes (`model` replaces the configured client, for replay).

    Every setting, the model and the data are checked before the folder is made."""
    benchmarks = runner.resolve_benchmarks(host, split_names(cfg.run.plugins))
    check_extras(host, cfg, benchmarks)
    resolve_model_presets(host, cfg, benchmarks)
    check_run_settings(host, cfg, benchmarks)
    cache_scope = uuid.uuid4().hex  # the run's replies in the response cache (a resume reuses them)
    model = model or _model_client(cfg, host, benchmarks, cache_scope)
    choices = runner.resolve_data(host, cfg, benchmarks)
    tasks, selection = runner.plan_tasks(host, cfg, benchmarks)
    runner.check_tasks(host, cfg, tasks)
    _warn_before(cfg, host, benchmarks, model, tasks)
    meta = runner.run_metadata(host, cfg, benchmarks, choices)

    def fill(store: RunStore, root: Path) -> None:
        OmegaConf.update(cfg, "run.out", str(root))  # the saved config says where the run is
        runner.save_config(cfg, store.root)
        store.set_meta(**meta, selection=selection, created_at=time.time(), status="running",
                       planned_episodes=len(tasks), cache_scope=cache_scope)
        store.add_episodes((t.key, t.benchmark, t.id) for t in tasks)

    store = RunStore.create(runner.run_dir_names(out, runs_dir(cfg.run.get("runs_dir"))), fill)
    root = store.root
    info = RunInfo(root.name, root, benchmarks, str(cfg.run.agent), cfg.run.model, int(cfg.run.seed), meta,
                   configmod.redacted(cfg))
    labels = {b: c.label for b, c in choices.items()}
    workers = _call_workers(cfg, model)
    return runner.RunSession(host, cfg, store, info, labels, model=model, call_workers=workers), tasks


def open_session(host: PluginHost, options: Options, resume: Path | None = None) -> tuple[runner.RunSession, list]:
    """A new run's session from the options (`suite run`), or the run folder `resume`'s (`suite run --resume`)."""
    if options.retry_infra and resume is None:
        raise ConfigError("--retry-infra re-runs episodes of an existing run: use it with --resume RUN")
    if resume is not None:
        return resume_session(host, resume, options)
    cfg = compose_config(host, options, RUN_FLAGS)
    apply_data_dir(cfg, runner.resolve_benchmarks(host, split_names(cfg.run.plugins)), options.data_dir)
    return start_session(host, cfg, cfg.run.out)


def resume_session(host: PluginHost, root: Path, options: Options) -> tuple[runner.RunSession, list]:
    """Reopen a run folder and plan only its unfinished episodes."""
    store = RunStore(root)
    problem = store.creation_problem()
    if problem:
        store.close()
        raise SuiteError(f"{root} is not a whole run: {problem} (its creation was cut off); start a new run")
    store.lock()
    try:
        return _reopened(host, root, store, options)
    except BaseException:
        store.close()  # a refused resume holds no lock (a caller may keep the error, as a notebook does)
        raise


def _reopened(host: PluginHost, root: Path, store: RunStore, options: Options) -> tuple[runner.RunSession, list]:
    """The session of a locked run folder, its unfinished episodes planned."""
    saved = saved_run_config(host, root / CONFIG_NAME, list(store.meta()["benchmarks"]))
    _tracker_settings(saved)

    def command_line(cfg: DictConfig) -> None:
        apply_options(cfg, options, RUN_FLAGS)

    cfg = from_folder(saved)
    command_line(cfg)
    if options.data_dir:
        raise ConfigError("--data-dir cannot change when a run is resumed; start a new run instead")
    _check_resume_changes(saved, cfg)
    check_endpoint(root, saved, cfg, options.trust_endpoint, command_line)
    meta = store.meta()
    benchmarks = list(meta["benchmarks"])
    check_run_settings(host, cfg, benchmarks)
    check_extras(host, cfg, benchmarks)
    _check_data_unchanged(meta)
    if options.retry_infra:
        reopened = store.reopen(INFRA_OUTCOMES)
        counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(reopened.items())) or "none"
        err_console.print(f"retrying episodes that ended in infra failures: {counts} (earlier attempts are kept: "
                          "table `superseded`, traces *.superseded-N.jsonl)", highlight=False)
    todo = set(store.unfinished())
    tasks = [t for t in runner.load_all_tasks(host, cfg, benchmarks) if t.key in todo]
    runner.check_tasks(host, cfg, tasks)
    missing = todo - {t.key for t in tasks}
    if missing:
        raise SuiteError(f"{len(missing)} unfinished episodes of {root} are no longer in the data, e.g. {min(missing)}")
    cache_scope = meta.get("cache_scope") or uuid.uuid4().hex  # a run made before scopes: its own from now on
    model = _model_client(cfg, host, benchmarks, cache_scope)
    _warn_before(cfg, host, benchmarks, model, tasks)
    store.set_meta(status="running", resumed_at=time.time(), cache_scope=cache_scope)
    info = RunInfo(root.name, root, benchmarks, str(cfg.run.agent), cfg.run.model, int(cfg.run.seed), meta,
                   configmod.redacted(cfg))
    labels = {b: f"{d['kind']}:{d['path']}" for b, d in meta.get("data", {}).items()}
    return runner.RunSession(host, cfg, store, info, labels, model=model,
                             call_workers=_call_workers(cfg, model)), tasks


def _tracker_settings(cfg: DictConfig) -> None:
    """Give the config of a run folder saved before the trackers existed their settings, off, so that a resume may
    switch them on (`run.trackers`, `tracking.*`)."""
    defaults = configmod.defaults([])
    if "trackers" not in cfg.run:
        cfg.run.trackers = defaults.run.trackers
    if "tracking" not in cfg:
        cfg.tracking = defaults.tracking


#: What a resumed run may change: how it runs, never what it measures (the saved config says that). Model params
#: only where the model is reached (endpoint, credentials, timeout), not how it answers.
RESUMABLE_KEYS = ("run.concurrency", "run.max_cost", "run.executor", "run.episode_timeout_s", "run.out",
                  "run.repeat_warning", "run.cost_warning_usd", "run.trackers", "tracking.", "ray.",
                  "report.", "model.cache", "model.call_workers", "model.retries", "model.backoff_", "model.rpm",
                  "model.tpm", "model.price_per_mtok", "model.params.api_base", "model.params.base_url",
                  "model.params.api_key", "model.params.api_version", "model.params.timeout",
                  "model.params.organization", "model.params.extra_headers")


def _check_resume_changes(saved: DictConfig, resumed: DictConfig) -> None:
    """Refuse a resumed config that differs from the saved one in what the run measures."""
    before, after = _flat(OmegaConf.to_container(saved)), _flat(OmegaConf.to_container(resumed))
    changed = sorted(k for k in before.keys() | after.keys()  # a credential the folder holds redacted is given anew
                     if before.get(k) not in (after.get(k), REDACTED) and not k.startswith(RESUMABLE_KEYS))
    if changed:
        raise ConfigError(f"{', '.join(changed)} cannot change when a run is resumed (its finished episodes were run "
                          "with the saved config); start a new run instead")


def _flat(node: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted keys to leaf values (an empty mapping has none)."""
    if isinstance(node, dict):
        return {k: v for key, value in node.items() for k, v in _flat(value, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): node}


def _check_data_unchanged(meta: dict[str, Any]) -> None:
    """Refuse to resume on data that changed since the run started (its hash is in the run metadata)."""
    for bench, data in sorted(meta.get("data", {}).items()):
        path = Path(data["path"])
        if not path.is_dir():
            raise SuiteError(f"the {bench} data of this run is no longer at {path}")
        if data.get("sha256") and datadirs.tree_hash(path) != data["sha256"]:
            raise SuiteError(f"the {bench} data at {path} changed since the run started; resuming would mix "
                             "results on two versions of it (start a new run)")


def make_executor(name: str) -> Any:
    """The executor named by `run.executor` (Ray is imported only when asked for)."""
    if name == "local":
        from suite.executors.local import LocalExecutor

        return LocalExecutor()
    if name == "ray":
        from suite.executors.ray import RayExecutor

        return RayExecutor()
    raise ConfigError(f"unknown executor {name!r}; choose local or ray")


async def execute(session: runner.RunSession, tasks: list[Task]) -> str:
    """Run the tasks with the configured executor; returns the run status."""
    executor = make_executor(str(session.cfg.run.executor))
    session.first_failures = FirstFailures(len(tasks))
    session.results = ResultsFile(session.host, session.store.root, session.cfg.report)
    session.host.broadcast("on_run_start", run=session.info)
    status = "interrupted"
    # what the run was set up with (litellm's modules, the plugins, the tasks) is left out of the garbage collector's
    # full passes while it runs: scanning it stalls every episode for about 0.2 s each time (bench/overhead.py); given
    # back at the end unless the process had frozen objects of its own before (gc has no partial unfreeze)
    frozen_before = gc.get_freeze_count() > 0
    gc.freeze()
    try:
        status = await executor.run(session, tasks)
    finally:
        if not frozen_before:
            gc.unfreeze()
        try:  # on a full disk these writes may fail too: the call workers are stopped all the same
            traces.flush_all()  # the traces of episodes cut off, before anything reads them
            session.store.mark_pending(list(session.in_flight))
            session.store.set_meta(status=status, finished_at=time.time(), stop_cause=session.stop_cause)
            session.results.write()
            session.host.broadcast("on_run_end", run=session.info, status=status)
        finally:
            if session.call_workers is not None:
                session.call_workers.close()
    return status


@contextlib.contextmanager
def progress_shown(session: runner.RunSession, tasks: list) -> Iterator[None]:
    """The run's progress display on standard error while the episodes run."""
    done = session.store.counts().get("done", 0)
    with RunProgress(total=len(tasks), console=err_console, budgets=[t.max_steps for t in tasks],
                     concurrency=int(session.cfg.run.concurrency)) as progress:
        session.progress = progress
        progress.note(f"run {session.store.root}: {len(tasks)} episodes to run ({done} already finished)")
        if session.call_workers is not None:
            progress.note(f"model calls made in {session.call_workers.size} worker process(es) (model.call_workers)")
        yield


def execute_session(session: runner.RunSession, tasks: list, progress: bool = True) -> str:
    """Run the planned episodes on a suite event loop, with a progress display unless `progress` is False; returns
    the run status."""
    with progress_shown(session, tasks) if progress else contextlib.nullcontext():
        try:
            status = run_to_completion(execute(session, tasks))
        except KeyboardInterrupt:
            status = "interrupted"
        except (OSError, sqlite3.Error) as exc:
            if not disk_full(exc):
                raise
            root = session.store.root
            session.store.close()  # the run's lock is given up: it can be resumed at once
            raise SuiteError(f"the disk under {root} is full ({exc}): finished episodes are stored; free space, then "
                             f"`suite run --resume {root}`") from None
    return status
