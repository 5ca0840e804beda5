"""`suite audit`: run every declared shortcut baseline over a benchmark's data and hold it to its ceiling.

Each baseline (and the oracle, for reference) is an ordinary run of the core runner in a scratch folder, on the
same seeded (stratified) sample of tasks; a learned baseline is cross-fitted (`suite.validity.learned`), one run per
fold. The audit compares each baseline's headline score, over the whole sample and per stratum, with its chance
level and its ceiling, by the score's 95 % interval (`verdict`). `audit_benchmark` gives the figures as a dict,
`write_pack_audit` stores them in a generated pack's manifest (PACK.json)."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from suite.contract.config import copy_config, plain
from suite.contract.errors import ConfigError, PluginError
from suite.contract.records import INFRA_OUTCOMES
from suite.contract.registry import OVERALL, BenchmarkSpec, ShortcutBaseline
from suite.engine import runner
from suite.engine.host import PluginHost, build_host
from suite.launch.consoles import err_console
from suite.models.event_loops import run_to_completion
from suite.report.compare import metric_value
from suite.validity.baselines import audit_key, baseline_config, baselines_of, check_baseline, metric_of
from suite.validity.learned import agent_name, fitted_agent, plan_folds

AUDIT_FORMAT = "embodied-suite.audit/1"
ORACLE = "oracle"
#: A score this close above its ceiling still passes (float noise of means of 0/1 values).
TOLERANCE = 1e-9
#: the normal quantile of a two-sided 95 % interval
Z95 = 1.959964
#: a row's verdicts: its interval wholly at or below the ceiling, wholly above it, or straddling it
PASS, FAIL, TOO_FEW = "pass", "fail", "too few"


@dataclass
class AuditRun:
    """One baseline's (or the oracle's) finished episodes on the sample."""

    records: list[dict[str, Any]]
    keys: dict[str, str]  # episode id -> audit row key
    seconds: float = 0.0


@dataclass
class Job:
    """One run of the audit: the oracle or a baseline of a benchmark, its config and its scratch folder."""

    bench: str
    baseline: ShortcutBaseline | None  # None: the oracle
    cfg: dict[str, Any]  # the run config as a plain container (it crosses to worker processes)
    folder: Path


def score(spec: BenchmarkSpec, metric_name: str, records: list[dict[str, Any]]) -> tuple[float | None, int]:
    """The metric over `records` in the report's units (percent points for a percent metric; a macro mean over
    `macro_by` groups where the metric has one) and how many records had it; None without any."""
    metric = next(m for m in spec.headline if m.name == metric_name)
    groups: dict[str, list[float]] = defaultdict(list)
    for rec in records:
        value = metric_value(rec, metric_name)
        if value is not None:
            groups[str(rec["metrics"].get(metric.macro_by)) if metric.macro_by else ""].append(value)
    n = sum(len(v) for v in groups.values())
    if not n:
        return None, 0
    mean = sum(sum(v) / len(v) for v in groups.values()) / len(groups)
    return mean * (100 if metric.percent else 1), n


def wilson(percent: float | None, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The 95 % Wilson score interval (percent points) of a rate of 0/1 outcomes that came out `percent` over `n`
    episodes; None without any. A sample with no success still bounds the rate from above (0 of 50: below 7.2 %)."""
    if percent is None or n <= 0:
        return None
    p = min(1.0, max(0.0, percent / 100))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(100 * max(0.0, centre - half), 2), round(100 * min(1.0, centre + half), 2)


def interval(spec: BenchmarkSpec, metric_name: str, records: list[dict[str, Any]]) -> tuple[float, float] | None:
    """The 95 % interval of a percent metric's score over `records`: Wilson's for 0/1 outcomes, else the normal
    one of the per-episode mean (fractions such as a checklist's share of goals met); None for other metrics."""
    metric = next(m for m in spec.headline if m.name == metric_name)
    value, n = score(spec, metric_name, records)
    if not metric.percent or value is None:
        return None
    values = [v for v in (metric_value(r, metric_name) for r in records) if v is not None]
    if all(v in (0, 1) for v in values):
        return wilson(value, n)
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, len(values) - 1))
    half = 100 * Z95 * sd / math.sqrt(len(values))
    return round(max(0.0, value - half), 2), round(min(100.0, value + half), 2)


def verdict(value: float | None, ci: tuple[float, float] | None, ceiling: float | None, infra: int = 0) -> str | None:
    """A row's verdict: `fail` when its 95 % interval lies above the ceiling (or an episode ended in an infra
    failure, which would hide its score), `pass` when the interval lies at or below it, `too few` when the interval
    holds the ceiling (too few episodes to tell); without an interval (a metric that is not a percent) the score
    alone decides. None when there is no ceiling or no score."""
    if infra:
        return FAIL
    if ceiling is None or value is None:
        return None
    low, high = ci if ci is not None else (value, value)
    if low > ceiling + TOLERANCE:
        return FAIL
    return PASS if high <= ceiling + TOLERANCE else TOO_FEW


def _rows(spec: BenchmarkSpec, baseline: ShortcutBaseline, metric: str, run: AuditRun,
          oracle: AuditRun | None) -> list[dict[str, Any]]:
    """Per audit key (the whole sample first, then each stratum) the score, its 95 % interval (percent metrics),
    chance, ceiling and oracle."""
    by_key: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in run.records:
        by_key[run.keys.get(rec["episode_id"], OVERALL)].append(rec)
    oracle_by_key: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if oracle is not None:
        for rec in oracle.records:
            oracle_by_key[oracle.keys.get(rec["episode_id"], OVERALL)].append(rec)
    keys = [OVERALL] + sorted(k for k in by_key if k != OVERALL)
    rows = []
    for key in keys:
        records = run.records if key == OVERALL else by_key[key]
        value, n = score(spec, metric, records)
        ceiling, chance = baseline.ceiling_for(key), baseline.chance_for(key)
        oracle_records = [r for r in (oracle.records if key == OVERALL else oracle_by_key[key])
                          if r["episode_id"] in run.keys] if oracle else []
        infra = sum(r["outcome"] in INFRA_OUTCOMES for r in records)
        ci = interval(spec, metric, records)
        judged = verdict(value, ci, ceiling, infra)
        rows.append({"key": key, "episodes": len(records), "n": n, "infra_failures": infra, "score": value,
                     "ci95": list(ci) if ci else None, "chance": chance, "ceiling": ceiling,
                     "oracle": score(spec, metric, oracle_records)[0], "verdict": judged,
                     "passed": {PASS: True, FAIL: False}.get(judged or "")})
    return rows


def _run(host: PluginHost, cfg: DictConfig, bench: str, folder: Path) -> AuditRun:
    """One run of the core runner over the sample (no progress display), its records keyed by audit row."""
    from suite.launch.session import execute, start_session

    started = time.monotonic()
    session, tasks = start_session(host, cfg, str(folder))
    try:
        status = run_to_completion(execute(session, tasks))
        records = session.store.records()
    finally:
        session.store.close()
    if status == "interrupted":
        raise KeyboardInterrupt
    spec = host.benchmark(bench)
    keys = {t.key: audit_key(spec, t) for t in tasks}
    return AuditRun([r for r in records if r["benchmark"] == bench], keys, round(time.monotonic() - started, 1))


def _cross_fit(host: PluginHost, cfg: DictConfig, bench: str, baseline: ShortcutBaseline, folder: Path) -> AuditRun:
    """A learned baseline's runs, one per fold (`suite.validity.learned.plan_folds`): fitted on the other folds, run
    on the fold's sampled tasks in `folder/fold-<k>`; their episodes together, each task scored once."""
    started = time.monotonic()
    merged = AuditRun([], {})
    for fold in plan_folds(host, cfg, bench, baseline):
        with fitted_agent(host, bench, baseline, fold.train) as name:
            fold_cfg = copy_config(cfg)
            OmegaConf.update(fold_cfg, "run.tasks", fold.scored)
            OmegaConf.update(fold_cfg, "run.agent", name)
            run = _run(host, fold_cfg, bench, folder / f"fold-{fold.index}")
        merged = AuditRun(merged.records + run.records, {**merged.keys, **run.keys})
    merged.seconds = round(time.monotonic() - started, 1)  # the fits' time included
    return merged


def run_job(host: PluginHost, job: Job) -> AuditRun:
    """One job's run in this process: a cross-fitted one for a learned baseline, else one ordinary run."""
    cfg = OmegaConf.create(job.cfg)
    if job.baseline is not None and job.baseline.learner is not None:
        return _cross_fit(host, cfg, job.bench, job.baseline, job.folder)
    return _run(host, cfg, job.bench, job.folder)


#: the plugin host of an audit worker process (built once per process by `_start_worker`)
_WORKER_HOST: list[PluginHost] = []


def _start_worker() -> None:
    _WORKER_HOST.append(build_host())


def _run_job(bench: str, cfg: dict[str, Any], folder: Path, name: str | None) -> AuditRun:
    """A job in a worker process (its own plugin host: a plugin manager is never pickled, nor is a learner, so
    the baseline is found again by `name` among the worker's)."""
    host = _WORKER_HOST[0]
    baseline = next((b for b in baselines_of(host.benchmark(bench)) if b.name == name), None)
    return run_job(host, Job(bench, baseline, cfg, folder))


def _with_oracle(host: PluginHost, bench: str) -> bool:
    try:
        host.registry.agent(ORACLE, bench)
    except PluginError:
        return False
    return True


def _sample_ids(host: PluginHost, cfg: DictConfig, bench: str) -> list[str] | None:
    """The ids of the seeded (stratified) sample `cfg.run.limit` selects, the same for every baseline (None: every
    task): a baseline restricted to some categories then runs the sample's tasks of those categories."""
    if cfg.run.limit is None:
        return None
    tasks, _ = runner.plan_tasks(host, cfg, [bench])
    return [t.id for t in tasks]


def _runs_any(host: PluginHost, cfg: DictConfig, bench: str, ids: list[str] | None) -> bool:
    """Whether a run config keeps any task of the sample (a category baseline may have none in a small one)."""
    if ids is None:
        return True
    loaded = host.call("load_tasks", bench, config=cfg.get(bench) or OmegaConf.create({}))
    return bool({t.id for t in loaded} & set(ids))


@dataclass
class Plan:
    """What the audit of one benchmark runs: its sample and one job per baseline (and the oracle)."""

    bench: str
    baselines: list[ShortcutBaseline]
    ids: list[str] | None
    available: int
    limit: int | None
    seed: int
    jobs: list[Job]
    data_dir: str | None


def plan_benchmark(host: PluginHost, cfg: DictConfig, bench: str, scratch: Path,
                   names: list[str] | None = None) -> Plan:
    """The sample (`cfg.run.limit` tasks, stratified, seeded; every task without a limit) and the jobs: the
    oracle's where the benchmark has one, then every baseline's (those in `names`, else all) that keeps a task."""
    spec = host.benchmark(bench)
    baselines = baselines_of(spec)
    if names is not None:
        baselines = [b for b in baselines if b.name in names]
    problems = [p for b in baselines for p in check_baseline(spec, b)]
    if problems:
        raise ConfigError(f"{bench}: {problems[0]}")
    base = copy_config(cfg)
    OmegaConf.update(base, "run.plugins", [bench])
    OmegaConf.update(base, "run.repeat_warning", 0)  # a shortcut baseline repeats failed actions by design
    available = len(host.call("load_tasks", bench, config=base.get(bench) or OmegaConf.create({})))
    limit = base.run.limit
    ids = _sample_ids(host, base, bench)
    if ids is not None:
        OmegaConf.update(base, "run.tasks", ids)
        OmegaConf.update(base, "run.limit", None)
    runs: list[Job] = []
    if _with_oracle(host, bench):
        oracle = ShortcutBaseline(ORACLE, "the oracle", agent=ORACLE)
        runs.append(Job(bench, None, plain(baseline_config(base, oracle), resolve=False), scratch / bench / ORACLE))
    kept = []
    for baseline in baselines:
        run_cfg = baseline_config(base, baseline, spec)
        if baseline.limit is not None and baseline.learner is None and (ids is None or len(ids) > baseline.limit):
            OmegaConf.update(run_cfg, "run.limit", baseline.limit)  # a stratified subset of the sample (run.tasks)
        if _runs_any(host, run_cfg, bench, ids):
            kept.append(baseline)
            runs.append(Job(bench, baseline, plain(run_cfg, resolve=False), scratch / bench / baseline.name))
    data = base.get(bench, {}).get("data_dir") if base.get(bench) is not None else None
    return Plan(bench, kept, ids, available, None if limit is None else int(limit), int(base.run.seed), runs,
                str(data) if data else None)


def execute_jobs(host: PluginHost, jobs: list[Job], workers: int = 1) -> list[AuditRun]:
    """Run the jobs, in this process (`workers` 1) or in that many worker processes at once, in job order."""
    if workers <= 1 or len(jobs) <= 1:
        results = []
        for job in jobs:
            results.append(run_job(host, job))
            _done(job, results[-1])
        return results
    context = multiprocessing.get_context("spawn")  # never fork a process that may hold threads and locks
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context, initializer=_start_worker) as pool:
        futures = {pool.submit(_run_job, job.bench, job.cfg, job.folder,
                               job.baseline.name if job.baseline else None): job for job in jobs}
        try:
            for future in as_completed(futures):
                _done(futures[future], future.result())
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        return [f.result() for f in futures]


def _done(job: Job, run: AuditRun) -> None:
    name = job.baseline.name if job.baseline else ORACLE
    err_console.print(f"{job.bench}/{name}: {len(run.records)} episodes in {run.seconds:.1f} s", highlight=False)


def figures_of(host: PluginHost, plan: Plan, runs: list[AuditRun]) -> dict[str, Any]:
    """The audit figures of one benchmark from its jobs' runs: per baseline its rows and whether it passed."""
    spec = host.benchmark(plan.bench)
    oracle = next((r for j, r in zip(plan.jobs, runs, strict=True) if j.baseline is None), None)
    figures = []
    for job, run in zip(plan.jobs, runs, strict=True):
        baseline = job.baseline
        if baseline is None:
            continue
        metric = metric_of(spec, baseline)
        rows = _rows(spec, baseline, metric, run, oracle)
        figures.append({"name": baseline.name, "description": baseline.description, "metric": metric,
                        "agent": baseline.agent if baseline.learner is None else agent_name(baseline),
                        "model": baseline.model, "config": dict(baseline.config),
                        "blind": not baseline.sees_frames, "kind": baseline.kind, "seconds": run.seconds,
                        **({"reads": list(baseline.reads), "folds": baseline.folds} if baseline.learner else {}),
                        "passed": all(r["passed"] is not False for r in rows), "rows": rows})
    episodes = len(plan.ids) if plan.ids is not None else plan.available
    return {"benchmark": plan.bench, "data_dir": plan.data_dir,
            "sample": {"limit": plan.limit, "seed": plan.seed, "episodes": episodes, "available": plan.available},
            "oracle": score(spec, spec.headline[0].name, oracle.records)[0] if oracle else None,
            "baselines": figures, "passed": all(f["passed"] for f in figures),
            "seconds": round(sum(r.seconds for r in runs), 1)}


def audit_benchmark(host: PluginHost, cfg: DictConfig, bench: str, scratch: Path,
                    names: list[str] | None = None, workers: int = 1) -> dict[str, Any]:
    """Run the oracle and every baseline of `bench` (those in `names`, else all) on the sample `cfg.run` selects
    and return the figures: per baseline its rows (whole sample, then strata) and whether it passed."""
    plan = plan_benchmark(host, cfg, bench, scratch, names)
    return figures_of(host, plan, execute_jobs(host, plan.jobs, workers))


def write_pack_audit(manifest: Path, figures: dict[str, Any]) -> None:
    """Store a benchmark's audit figures under the key `audit` of its pack manifest (PACK.json), compactly: per
    baseline the whole-sample and per-stratum scores with their chance levels and ceilings."""
    data = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
    data["audit"] = {
        "format": AUDIT_FORMAT, "sample": figures["sample"], "oracle": _round(figures["oracle"]),
        "passed": figures["passed"],
        "baselines": {f["name"]: {"metric": f["metric"], "kind": f["kind"], "passed": f["passed"], "rows": {
            r["key"]: {"n": r["n"], "score": _round(r["score"]), "ci95": r.get("ci95"), "chance": r["chance"],
                       "ceiling": r["ceiling"], "verdict": r["verdict"]}
            for r in f["rows"]}} for f in figures["baselines"]},
    }
    manifest.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def pack_audit(host: PluginHost, cfg: DictConfig, bench: str, data_dir: Path,
               names: list[str] | None = None) -> dict[str, Any]:
    """Audit the pack at `data_dir` (every task, in a temporary folder) and write the figures into its manifest."""
    source = host.registry.data_sources.get(bench)
    manifest = data_dir / (source.pack_manifest if source else "PACK.json")
    run_cfg = copy_config(cfg)
    OmegaConf.update(run_cfg, f"{bench}.data_dir", str(data_dir), force_add=True)
    OmegaConf.update(run_cfg, "run.limit", None)
    with tempfile.TemporaryDirectory(prefix="suite-audit-") as scratch:
        figures = audit_benchmark(host, run_cfg, bench, Path(scratch), names)
    write_pack_audit(manifest, figures)
    return figures


def default_jobs() -> int:
    """The worker processes an audit uses by default: one per available core, at most 4."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _interval(ci: list[float] | None) -> str:
    return "-" if not ci else f"{ci[0]:.1f}-{ci[1]:.1f}"


def whole_pack(bench: dict[str, Any]) -> bool:
    """Whether a benchmark's audit ran every task its data has (more episodes do not exist)."""
    return bool(bench["sample"]["episodes"] >= bench["sample"]["available"])


def sample_line(bench: dict[str, Any]) -> str:
    """What the sample of a benchmark's audit is, in words (a reader sees what a sample can claim)."""
    sample = bench["sample"]
    if whole_pack(bench):
        return f"{bench['benchmark']}: every task ({sample['episodes']})"
    return (f"{bench['benchmark']}: a seeded stratified sample of {sample['episodes']} of {sample['available']} tasks "
            f"(seed {sample['seed']}; --full runs every task)")


def table_rows(figures: list[dict[str, Any]]) -> list[list[str]]:
    """The audit's table: one row per benchmark, baseline and category."""
    rows = []
    for bench in figures:
        # a row whose interval holds the ceiling over every task the pack has is undecided: no more episodes exist
        labels = {PASS: "ok", FAIL: "FAIL", TOO_FEW: "undecided" if whole_pack(bench) else "too few", None: "-"}
        for baseline in bench["baselines"]:
            for row in baseline["rows"]:
                shown = labels[row["verdict"]]
                if row["infra_failures"]:
                    shown += f" ({row['infra_failures']} infra)"
                rows.append([bench["benchmark"], baseline["name"], "all" if row["key"] == OVERALL else row["key"],
                             str(row["n"]), _cell(row["score"]), _interval(row.get("ci95")), _cell(row["chance"]),
                             _cell(row["ceiling"]), _cell(row["oracle"]), shown])
    return rows


TABLE_HEADER = ["benchmark", "baseline", "category", "n", "score", "95% CI", "chance", "ceiling", "oracle", "verdict"]


def markdown(figures: list[dict[str, Any]]) -> str:
    """The audit as Markdown: per benchmark the sample in words, then its table (a plugin README's "Shortcut
    audit" section is this text)."""
    out = []
    for bench in figures:
        rows = table_rows([bench])
        out += [f"{sample_line(bench)}; oracle {_cell(bench['oracle'])}.", "",
                "| " + " | ".join(TABLE_HEADER[1:]) + " |", "|" + "---|" * (len(TABLE_HEADER) - 1)]
        out += ["| " + " | ".join(row[1:]) + " |" for row in rows]
        out.append("")
    return "\n".join(out)
