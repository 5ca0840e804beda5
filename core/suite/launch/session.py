"""The `suite` subcommands (argument parsing lives in suite.cli)."""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf
from suite import config as configmod
from suite import datadirs, runner, settings
from suite.cli import (
    RUN_FLAGS,
    SELECTION_FLAGS,
    console,
    err_console,
    existing_dir,
    print_json,
    print_records,
    print_table,
    run_async,
)
from suite.errors import ConfigError, PluginError, SuiteError
from suite.extras import Requirement, check_requirements
from suite.infra import summarize_infra
from suite.plugins import PluginHost, build_host
from suite.progress import RunProgress
from suite.records import INFRA_OUTCOMES
from suite.report import render, summarize
from suite.report.html import build_site, open_in_browser
from suite.runinfo import RunInfo
from suite.runsdir import find_run, runs_dir
from suite.store import CONFIG_NAME, DB_NAME, STAGING_PREFIX, RunStore

EXIT_INTERRUPTED = 130
EXIT_STOPPED = 3
EXIT_MODEL_FAILED = 4
EXIT_INFRA_FAILURES = 5


def _split(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def compose_config(host: PluginHost, args: argparse.Namespace, flags: dict[str, str]) -> DictConfig:
    """Defaults, then `key=value` overrides, then flags; unknown keys fail with a suggestion."""
    cfg = configmod.defaults(sorted(host.registry.benchmarks), host)
    _apply_config_files(cfg, args)
    configmod.apply_overrides(cfg, list(getattr(args, "overrides", []) or []))
    _apply_flags(cfg, args, flags)
    return cfg


def _apply_config_files(cfg: DictConfig, args: argparse.Namespace) -> None:
    """`--config FILE` (in the order given) over the defaults."""
    for name in getattr(args, "config_files", None) or []:
        path = Path(name)
        if not path.is_file():
            raise ConfigError(f"--config {name}: no such file")
        configmod.apply_file(cfg, path)


def _apply_flags(cfg: DictConfig, args: argparse.Namespace, flags: dict[str, str]) -> None:
    """Command-line flags over the config (they win over `key=value` overrides)."""
    for attr, key in flags.items():
        value = getattr(args, attr, None)
        if value is not None:
            configmod.set_value(cfg, key, _split(value) if attr == "plugins" else value)


def _apply_data_dir(cfg: DictConfig, benchmarks: list[str], data_dir: str | None) -> None:
    if not data_dir:
        return
    if len(benchmarks) != 1:
        raise ConfigError("--data-dir needs exactly one benchmark; use <benchmark>.data_dir=DIR for several")
    OmegaConf.update(cfg, f"{benchmarks[0]}.data_dir", data_dir, force_add=True)


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

    check_model(str(cfg.run.model), OmegaConf.to_container(cfg.model.params))

    parts = shared_parts(cfg, cache_scope)
    clients = {}
    for bench in benchmarks:
        clients[bench] = client_from_config(cfg, benchmark_model_defaults(cfg.get(bench), bench), parts)
        if clients[bench].wants_valid_reply and host.benchmark(bench).valid_reply is None:
            raise ConfigError(f"{cfg.run.model} answers with a benchmark's valid replies, and {bench} declares none "
                              "(BenchmarkSpec.valid_reply)")
    _check_vision(cfg, host, benchmarks)
    _warn_context(cfg, clients)
    return clients


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
    vision = model_vision(str(cfg.run.model), cfg.model.get("vision", "auto"), OmegaConf.to_container(cfg.model.params))
    if vision.takes_images is None:
        err_console.print(f"warning: cannot tell whether {cfg.run.model} takes images: {vision.how}", highlight=False)
    check_images(str(cfg.run.model), vision, needs)


def check_extras(host: PluginHost, cfg: DictConfig, benchmarks: list[str]) -> None:
    """Refuse, in one line naming the extra, a setting whose optional package is not installed."""
    needed = [Requirement("--executor ray", "ray", "ray")] if str(cfg.run.executor) == "ray" else []
    for bench in benchmarks:
        requires = host.benchmark(bench).requires
        needed += list(requires(cfg.get(bench) or OmegaConf.create({}))) if requires is not None else []
    check_requirements(needed)


def check_run_settings(host: PluginHost, cfg: DictConfig, benchmarks: list[str]) -> None:
    """Check the core's settings and each benchmark's section against their schemas (one line on the first error)."""
    flags = {key: "--" + attr.replace("_", "-") for attr, key in RUN_FLAGS.items()}
    settings.check_settings(cfg, {b: host.benchmark(b).config_schema for b in benchmarks}, flags)


def start_session(
    host: PluginHost, cfg: DictConfig, out: str | None, model: Any = None
) -> tuple[runner.RunSession, list]:
    """Create a new run folder and plan its episodes (`model` replaces the configured client, for replay).

    Every setting, the model and the data are checked before the folder is made."""
    benchmarks = runner.resolve_benchmarks(host, _split(cfg.run.plugins))
    check_extras(host, cfg, benchmarks)
    check_run_settings(host, cfg, benchmarks)
    cache_scope = uuid.uuid4().hex  # the run's replies in the response cache (a resume reuses them)
    model = model or _model_client(cfg, host, benchmarks, cache_scope)
    choices = runner.resolve_data(host, cfg, benchmarks)
    tasks, selection = runner.plan_tasks(host, cfg, benchmarks)
    runner.check_tasks(host, cfg, tasks)
    meta = runner.run_metadata(host, cfg, benchmarks, choices)

    def fill(store: RunStore, root: Path) -> None:
        OmegaConf.update(cfg, "run.out", str(root))  # the saved config says where the run is
        runner.save_config(cfg, store.root)
        store.set_meta(**meta, selection=selection, created_at=time.time(), status="running",
                       planned_episodes=len(tasks), cache_scope=cache_scope)
        store.add_episodes((t.key, t.benchmark, t.id) for t in tasks)

    store = RunStore.create(runner.run_dir_names(out, runs_dir(cfg.run.get("runs_dir"))), fill)
    root = store.root
    info = RunInfo(root.name, root, benchmarks, str(cfg.run.agent), cfg.run.model, int(cfg.run.seed), meta)
    labels = {b: c.label for b, c in choices.items()}
    workers = _call_workers(cfg, model)
    return runner.RunSession(host, cfg, store, info, labels, model=model, call_workers=workers), tasks


def resume_session(host: PluginHost, root: Path, args: argparse.Namespace) -> tuple[runner.RunSession, list]:
    """Reopen a run folder and plan only its unfinished episodes."""
    store = RunStore(root)
    problem = store.creation_problem()
    if problem:
        store.close()
        raise SuiteError(f"{root} is not a whole run: {problem} (its creation was cut off); start a new run")
    store.lock()
    saved = configmod.load_saved(root / CONFIG_NAME)
    cfg = saved.copy()
    _apply_config_files(cfg, args)
    configmod.apply_overrides(cfg, list(args.overrides or []))
    _apply_flags(cfg, args, RUN_FLAGS)
    if args.data_dir:
        raise ConfigError("--data-dir cannot change when a run is resumed; start a new run instead")
    _check_resume_changes(saved, cfg)
    meta = store.meta()
    benchmarks = list(meta["benchmarks"])
    check_run_settings(host, cfg, benchmarks)
    check_extras(host, cfg, benchmarks)
    _check_data_unchanged(meta)
    if args.retry_infra:
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
    store.set_meta(status="running", resumed_at=time.time(), cache_scope=cache_scope)
    info = RunInfo(root.name, root, benchmarks, str(cfg.run.agent), cfg.run.model, int(cfg.run.seed), meta)
    labels = {b: f"{d['kind']}:{d['path']}" for b, d in meta.get("data", {}).items()}
    return runner.RunSession(host, cfg, store, info, labels, model=model,
                             call_workers=_call_workers(cfg, model)), tasks


#: What a resumed run may change: how it runs, never what it measures (the saved config says that). Model params
#: only where the model is reached (endpoint, credentials, timeout), not how it answers.
RESUMABLE_KEYS = ("run.concurrency", "run.max_cost", "run.executor", "run.episode_timeout_s", "run.out", "ray.",
                  "report.", "model.cache", "model.call_workers", "model.retries", "model.backoff_", "model.rpm",
                  "model.tpm", "model.price_per_mtok", "model.params.api_base", "model.params.base_url",
                  "model.params.api_key", "model.params.api_version", "model.params.timeout",
                  "model.params.organization", "model.params.extra_headers")


def _check_resume_changes(saved: DictConfig, resumed: DictConfig) -> None:
    """Refuse a resumed config that differs from the saved one in what the run measures."""
    before, after = _flat(OmegaConf.to_container(saved)), _flat(OmegaConf.to_container(resumed))
    changed = sorted(k for k in before.keys() | after.keys()
                     if before.get(k) != after.get(k) and not k.startswith(RESUMABLE_KEYS))
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


def execute_session(session: runner.RunSession, tasks: list) -> str:
    """Run the planned episodes with a progress display; returns the run status."""
    done = session.store.counts().get("done", 0)
    with RunProgress(total=len(tasks), console=err_console, budgets=[t.max_steps for t in tasks],
                     concurrency=int(session.cfg.run.concurrency)) as progress:
        session.progress = progress
        progress.note(f"run {session.store.root}: {len(tasks)} episodes to run ({done} already finished)")
        if session.call_workers is not None:
            progress.note(f"model calls made in {session.call_workers.size} worker process(es) (model.call_workers)")
        try:
            status = run_async(runner.execute(session, tasks))
        except KeyboardInterrupt:
            status = "interrupted"
    return status


def _finish(session: runner.RunSession, status: str, show_report: bool) -> int:
    root = session.store.root
    unfinished = len(session.store.unfinished())
    infra = summarize_infra(session.store.records())
    session.store.close()
    if status == "interrupted":
        err_console.print(f"interrupted: finished episodes are stored; resume with `suite run --resume {root}`")
        return EXIT_INTERRUPTED
    if session.stop_cause:
        err_console.print(f"stopped: {session.stop_cause}; {unfinished} episode(s) not run stay pending: fix the "
                          f"cause, then `suite run --resume {root} --retry-infra`", highlight=False, markup=False,
                          soft_wrap=True)
        return EXIT_MODEL_FAILED
    if show_report:
        cfg = session.cfg.report
        render(summarize(session.host, [root], cfg.bootstrap, cfg.confidence, cfg.seed, bool(cfg.get("reference"))),
               "table", console)
    if status != "stopped":
        err_console.print(f"run folder: {root}", highlight=False)
    if infra is not None:
        err_console.print(infra.line(root), highlight=False, markup=False, soft_wrap=True)
    if status == "stopped":
        err_console.print(f"stopped: the cost budget was reached; resume with `suite run --resume {root} --max-cost N`")
        return EXIT_STOPPED
    return 0 if infra is None else EXIT_INFRA_FAILURES


def cmd_run(args: argparse.Namespace) -> int:
    """`suite run`: run benchmarks (or resume a run) and print the table."""
    host = build_host()
    if args.retry_infra and not args.resume:
        raise ConfigError("--retry-infra re-runs episodes of an existing run: use it with --resume RUN")
    if args.resume:
        session, tasks = resume_session(host, find_run(args.resume), args)
    else:
        cfg = compose_config(host, args, RUN_FLAGS)
        _apply_data_dir(cfg, runner.resolve_benchmarks(host, _split(cfg.run.plugins)), args.data_dir)
        session, tasks = start_session(host, cfg, cfg.run.out)
    status = execute_session(session, tasks)
    return _finish(session, status, not args.no_report)


def cmd_plugins(args: argparse.Namespace) -> int:
    """`suite plugins`: installed plugins."""
    host = build_host()
    rows = [[i.name, i.version, ", ".join(i.benchmarks) or "-", ", ".join(i.hooks)] for i in host.plugin_info()]
    print_table("Installed plugins", ["plugin", "version", "benchmarks", "hooks"], rows)
    return 0


def _planning_config(host: PluginHost, args: argparse.Namespace, plugins: list[str]) -> tuple[DictConfig, list[str]]:
    cfg = configmod.defaults(sorted(host.registry.benchmarks), host)
    _apply_config_files(cfg, args)
    configmod.apply_overrides(cfg, list(args.overrides or []))
    _apply_flags(cfg, args, SELECTION_FLAGS)
    benchmarks = runner.resolve_benchmarks(host, plugins)
    _apply_data_dir(cfg, benchmarks, args.data_dir)
    check_run_settings(host, cfg, benchmarks)
    return cfg, benchmarks


def cmd_tasks(args: argparse.Namespace) -> int:
    """`suite tasks PLUGIN`: the tasks a plugin would run."""
    host = build_host()
    cfg, benchmarks = _planning_config(host, args, [args.plugin])
    choices = runner.resolve_data(host, cfg, benchmarks)
    tasks = runner.load_all_tasks(host, cfg, benchmarks)
    rows = [[t.benchmark, t.id, t.category or "-", t.max_steps or "-"] for t in tasks]
    print_table(f"{len(tasks)} tasks", ["benchmark", "task", "category", "max steps"], rows)
    for bench, choice in choices.items():
        err_console.print(f"{bench}: {choice.kind} data at {choice.path}", highlight=False)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    """`suite validate`: schema-check every task file, then run the oracle on every task."""
    host = build_host()
    cfg, benchmarks = _planning_config(host, args, _split(args.plugins))
    OmegaConf.update(cfg, "run.agent", "oracle")
    OmegaConf.update(cfg, "run.plugins", benchmarks)
    for bench in benchmarks:
        host.registry.agent("oracle", bench)
    with tempfile.TemporaryDirectory(prefix="suite-validate-") as scratch:  # the oracle run, unless --out keeps it
        session, tasks = start_session(host, cfg, args.out or str(Path(scratch) / "run"))
        err_console.print(f"schema check passed: {len(tasks)} tasks in {', '.join(benchmarks)}", highlight=False)
        status = execute_session(session, tasks)
        records = session.store.records()
        session.store.close()
    if status != "complete":
        return EXIT_INTERRUPTED
    ok = True
    rows = []
    for bench in benchmarks:
        mine = [r for r in records if r["benchmark"] == bench]
        solved = sum(r["outcome"] == "success" for r in mine)
        rows.append([bench, f"{solved}/{len(mine)}", f"{100 * solved / max(1, len(mine)):.1f}%"])
        ok &= solved == len(mine)
        for r in mine:
            if r["outcome"] != "success":
                err_console.print(f"unsolved {r['episode_id']}: {r['outcome']}: {r['failure_reason']}", highlight=False)
    print_table("Oracle validation", ["benchmark", "solved", "rate"], rows)
    if args.out:
        err_console.print(f"oracle run folder: {args.out}", highlight=False)
    return 0 if ok else 1


def cmd_report(args: argparse.Namespace) -> int:
    """`suite report RUN...`: the cross-benchmark report."""
    roots = [find_run(r) for r in args.runs]
    cfg = _report_settings(roots)
    reference = bool(args.reference if args.reference is not None else cfg.get("reference", False))
    host = _host_or_none()
    summary = summarize(host, roots, cfg.bootstrap, cfg.confidence, cfg.seed, reference)
    if args.format == "html":
        if not args.out:
            raise ConfigError("--format html writes a folder: give it with --out DIR")
        page = build_site(host, summary, roots, Path(args.out))
        err_console.print(f"report: {page}", highlight=False)
        return 0
    if args.format == "table":
        render(summary, "table", console)
    else:
        console.file.write(render(summary, args.format))
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    """`suite view RUN...`: build the HTML report (a temporary folder unless --out) and open it in a browser."""
    roots = [find_run(r) for r in args.runs]
    cfg = _report_settings(roots)
    host = _host_or_none()
    summary = summarize(host, roots, cfg.bootstrap, cfg.confidence, cfg.seed, bool(cfg.get("reference", False)))
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="suite-report-"))
    page = build_site(host, summary, roots, out)
    console.print(str(page), highlight=False, soft_wrap=True)  # also when a browser opens it: where to find it again
    if not args.no_open and not open_in_browser(page):
        err_console.print("no browser found: open the page above", highlight=False)
    return 0


def _report_settings(roots: list[Path]) -> DictConfig:
    """The report section of the first run folder that saved its config (a run that crashed early may not
    have), else the defaults."""
    saved = next((root / CONFIG_NAME for root in roots if (root / CONFIG_NAME).is_file()), None)
    return (configmod.load_saved(saved) if saved else configmod.defaults([])).report


def _host_or_none() -> PluginHost | None:
    try:
        return build_host()
    except PluginError as exc:
        err_console.print(f"warning: {exc}; the report shows outcomes only", highlight=False)
        return None


def cmd_runs(args: argparse.Namespace) -> int:
    """`suite runs [DIR]`: every run folder under DIR (any depth) with its date, duration, status, headline score
    per benchmark (from its results.json) and progress."""
    root = existing_dir(args.root) if args.root else runs_dir()
    if not root.is_dir():
        raise SuiteError(f"{root}: no such directory (no run has been made there yet)")
    host = None
    rows = []
    for db in sorted(root.rglob(DB_NAME)):
        if any(part.startswith(STAGING_PREFIX) for part in db.relative_to(root).parts):
            continue  # a run folder being created (or whose creation died): not a run
        store = RunStore(db.parent)
        try:
            meta, counts = store.meta(), store.counts()
            spent = sum(s.cost_usd for kinds in store.spend().values() for s in kinds.values())
            status = store.status()
            if status == "crashed":
                status = "crashed (resume it)"
        finally:
            store.close()
        host = host or _host_or_none()
        total = sum(counts.values())
        rows.append([str(db.parent), _started(meta), _duration(meta, status), status, headline_scores(host, db.parent),
                     meta.get("model") or "-", meta.get("agent", "?"), meta.get("label") or "-",
                     f"{counts.get('done', 0)}/{total}", f"{spent:.4f}"])
    if not rows:
        err_console.print(f"no run folders under {root}", highlight=False)
        return 0
    print_table(f"Runs under {root}", ["run", "started (UTC)", "duration", "status", "headline", "model", "agent",
                                       "label", "done", "cost $"], rows)
    return 0


def _started(meta: dict[str, Any]) -> str:
    """When the run was created, UTC to the minute."""
    created = meta.get("created_at")
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(created)) if created else "-"


def _duration(meta: dict[str, Any], status: str) -> str:
    """From creation to the last end (a resumed run: to its latest end); `-` while it runs."""
    created, finished = meta.get("created_at"), meta.get("finished_at")
    if not created or not finished or status == "running":
        return "-"
    seconds = max(0, int(finished - created))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def headline_scores(host: PluginHost | None, root: Path) -> str:
    """Each benchmark's first headline metric as the run's results.json has it (`-` before it has one)."""
    import json

    from suite.results import RESULTS_NAME

    try:
        summary = json.loads((root / RESULTS_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "-"
    parts = []
    for row in summary.get("rows", [])[:1]:
        for bench, cell in sorted(row.get("benchmarks", {}).items()):
            metrics = cell.get("metrics") or {}
            spec = host.registry.benchmarks.get(bench) if host else None
            name = next((m.name for m in spec.headline if m.name in metrics), None) if spec else None
            name = name or next(iter(metrics), None)
            if name is None or metrics[name].get("mean") is None:
                continue
            metric = metrics[name]
            value = 100 * metric["mean"] if metric.get("percent") else metric["mean"]
            parts.append(f"{bench} {metric.get('label', name)} {value:.1f}")
    return ";\n".join(parts) or "-"  # a cell may break after each benchmark


def cmd_export(args: argparse.Namespace) -> int:
    """`suite export RUN...`: per-episode records as JSON Lines or CSV."""
    from suite.export import episode_rows, to_csv, to_jsonl

    rows = list(episode_rows([find_run(r) for r in args.runs]))
    text = to_csv(rows) if args.format == "csv" else to_jsonl(rows)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        err_console.print(f"{len(rows)} episodes written to {args.out}", highlight=False)
    else:
        console.file.write(text)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """`suite replay RUN`: re-run every episode with the recorded replies; exit 1 on any difference (episodes that
    ended in model_error are counted apart, as not replayable)."""
    from suite.replay import replay_run

    result = replay_run(find_run(args.run), args.out)
    diffs = result.differences
    for diff in diffs[:20]:
        err_console.print(f"differs: {diff}", highlight=False, markup=False)
    shown = f" ({min(20, len(diffs))} shown above)" if diffs else ""
    apart = (f", {len(result.not_replayable)} not replayable (ended in model_error: no reply was recorded for the "
             "call that failed)" if result.not_replayable else "")
    console.print(f"{result.identical}/{result.total} trajectories identical, {len(diffs)} differ{shown}{apart}",
                  highlight=False, markup=False)
    return 1 if diffs else 0


def cmd_data(args: argparse.Namespace) -> int:
    """`suite data pull|list|where PLUGIN`."""
    host = build_host()
    sources = host.registry.data_sources
    names = runner.resolve_benchmarks(host, [args.plugin]) if args.plugin else sorted(sources)
    if args.action == "pull":
        if not args.plugin:
            raise ConfigError("suite data pull needs a plugin name")
        from suite.pull import pull

        for bench in names:
            pull(sources[bench], datadirs.official_cache_dir(bench), err_console)
        return 0
    rows = []
    for bench in names:
        if bench not in sources:
            rows.append([bench, "-", "-", "no data source declared", "-"])
            continue
        src = sources[bench]
        cached = datadirs.official_cache_dir(bench)
        try:
            choice = datadirs.choose(src, None)
            active = f"{choice.kind} ({choice.origin}): {choice.path}"
        except SuiteError as exc:
            active = str(exc)
        pulled = str(cached) if cached.is_dir() else "not pulled"
        rows.append([bench, active, pulled, src.official,
                     f"{src.pack_label} at {src.pack_dir}" if src.pack_dir else "-"])
    if args.action == "where":
        for row in rows:
            console.print(row[1], highlight=False)
        return 0
    print_records("Data", ["benchmark", "in use", "pulled", "official data", "generated pack (offline default)"], rows)
    return 0


def cmd_conformance(args: argparse.Namespace) -> int:
    """`suite conformance PLUGIN --traces F --data-dir D`: agreement with a reference simulator."""
    host = build_host()
    benches = runner.resolve_benchmarks(host, [args.plugin])
    checkers = [(b, host.registry.conformance[b]) for b in benches if b in host.registry.conformance]
    if not checkers:
        raise PluginError(f"plugin {args.plugin!r} registers no conformance checker")
    full = True
    for bench, checker in checkers:
        result = checker(traces=Path(args.traces), data_dir=existing_dir(args.data_dir))
        fields = [k for k, v in result.items() if isinstance(v, dict) and set(v) == {"agree", "total"}]
        full &= all(result[f]["agree"] == result[f]["total"] for f in fields)
        if args.format == "json":
            print_json(result)
            continue
        rows = [[f, result[f]["agree"], result[f]["total"], _percent(result[f])] for f in fields]
        print_table(f"{bench}: {result['trajectories']} trajectories, {result['steps']} steps",
                    ["field", "agree", "total", "agreement"], rows)
        for cat, per in sorted(result.get("per_category", {}).items()):
            cells = [f"{per[f]['agree']}/{per[f]['total']}" for f in fields if f in per]
            console.print(f"  {cat}: " + "  ".join(f"{f}={c}" for f, c in zip(fields, cells, strict=False)))
        for mm in result.get("mismatches", [])[:20]:
            console.print(f"  mismatch: {mm}", highlight=False, markup=False)
    return 0 if full else 1




def cmd_audit(args: argparse.Namespace) -> int:
    """`suite audit`: run every declared shortcut baseline; exit 1 when one scores above its ceiling."""
    from suite.audit import run_audit

    return run_audit(args)


def _percent(counts: dict[str, int]) -> str:
    return f"{100 * counts['agree'] / max(1, counts['total']):.2f}%"
