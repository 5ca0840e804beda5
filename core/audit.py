"""`suite audit`: run every declared shortcut baseline over a benchmark's data and hold it to its ceiling.

Each baseline (and the oracle, for reference) is an ordinary run of the core runner in a scratch folder, on the
same seeded (stratified) sample of tasks; the audit compares each baseline's headline score, over the whole
sample and per stratum, with its chance level and its ceiling. `audit_benchmark` gives the figures as a dict,
`write_pack_audit` stores them in a generated pack's manifest (PACK.json)."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf
from suite import runner
from suite.baselines import audit_key, baseline_config, baselines_of, check_baseline, metric_of
from suite.errors import ConfigError, PluginError
from suite.plugins import PluginHost
from suite.records import INFRA_OUTCOMES
from suite.registry import OVERALL, BenchmarkSpec, ShortcutBaseline
from suite.report.compare import metric_value

AUDIT_FORMAT = "embodied-suite.audit/1"
ORACLE = "oracle"
#: A score this close above its ceiling still passes (float noise of means of 0/1 values).
TOLERANCE = 1e-9


@dataclass
class AuditRun:
    """One baseline's (or the oracle's) finished episodes on the sample."""

    records: list[dict[str, Any]]
    keys: dict[str, str]  # episode id -> audit row key


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


def _rows(spec: BenchmarkSpec, baseline: ShortcutBaseline | None, metric: str, run: AuditRun,
          oracle: AuditRun | None) -> list[dict[str, Any]]:
    """Per audit key (the whole sample first, then each stratum) the score beside chance, ceiling and oracle."""
    by_key: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in run.records:
        by_key[run.keys.get(rec["episode_id"], OVERALL)].append(rec)
    oracle_by_key: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in oracle.records if oracle else []:
        oracle_by_key[oracle.keys.get(rec["episode_id"], OVERALL)].append(rec)
    keys = [OVERALL] + sorted(k for k in by_key if k != OVERALL)
    rows = []
    for key in keys:
        records = run.records if key == OVERALL else by_key[key]
        value, n = score(spec, metric, records)
        ceiling = baseline.ceiling_for(key) if baseline else None
        chance = baseline.chance_for(key) if baseline else None
        oracle_records = (oracle.records if key == OVERALL else oracle_by_key[key]) if oracle else []
        infra = sum(r["outcome"] in INFRA_OUTCOMES for r in records)
        passed = None if ceiling is None or value is None else value <= ceiling + TOLERANCE
        rows.append({"key": key, "episodes": len(records), "n": n, "infra_failures": infra, "score": value,
                     "chance": chance, "ceiling": ceiling, "oracle": score(spec, metric, oracle_records)[0],
                     "passed": passed if not infra or baseline is None else False})
    return rows


def _run(host: PluginHost, cfg: DictConfig, bench: str, folder: Path) -> AuditRun:
    """One run of the core runner over the sample (progress on stderr), its records keyed by audit row."""
    from suite.commands import execute_session, start_session

    session, tasks = start_session(host, cfg, str(folder))
    status = execute_session(session, tasks)
    records = session.store.records()
    session.store.close()
    if status == "interrupted":
        raise KeyboardInterrupt
    spec = host.benchmark(bench)
    keys = {t.key: audit_key(spec, t) for t in tasks}
    return AuditRun([r for r in records if r["benchmark"] == bench], keys)


def _with_oracle(host: PluginHost, bench: str) -> bool:
    try:
        host.registry.agent(ORACLE, bench)
    except PluginError:
        return False
    return True


def audit_benchmark(host: PluginHost, cfg: DictConfig, bench: str, scratch: Path,
                    names: list[str] | None = None) -> dict[str, Any]:
    """Run the oracle and every baseline of `bench` (those in `names`, else all) on the sample `cfg.run` selects
    and return the figures: per baseline its rows (whole sample, then strata) and whether it passed."""
    spec = host.benchmark(bench)
    baselines = baselines_of(spec)
    if names is not None:
        baselines = [b for b in baselines if b.name in names]
    problems = [p for b in baselines for p in check_baseline(spec, b)]
    if problems:
        raise ConfigError(f"{bench}: {problems[0]}")
    base = OmegaConf.create(OmegaConf.to_container(cfg))
    OmegaConf.update(base, "run.plugins", [bench])
    started = time.monotonic()
    oracle = None
    if _with_oracle(host, bench):
        oracle = _run(host, baseline_config(base, ShortcutBaseline(ORACLE, "the oracle", agent=ORACLE)), bench,
                      scratch / bench / ORACLE)
    figures = []
    episodes = len(oracle.keys) if oracle else 0
    for baseline in baselines:
        metric = metric_of(spec, baseline)
        run = _run(host, baseline_config(base, baseline), bench, scratch / bench / baseline.name)
        rows = _rows(spec, baseline, metric, run, oracle)
        episodes = episodes or len(run.keys)
        figures.append({"name": baseline.name, "description": baseline.description, "metric": metric,
                        "agent": baseline.agent, "model": baseline.model, "config": dict(baseline.config),
                        "passed": all(r["passed"] is not False for r in rows), "rows": rows})
    data = base.get(bench, {}).get("data_dir") if base.get(bench) is not None else None
    return {"benchmark": bench, "data_dir": str(data) if data else None,
            "sample": {"limit": base.run.limit, "seed": int(base.run.seed), "episodes": episodes},
            "oracle": score(spec, spec.headline[0].name, oracle.records)[0] if oracle else None,
            "baselines": figures, "passed": all(f["passed"] for f in figures),
            "seconds": round(time.monotonic() - started, 1)}


def write_pack_audit(manifest: Path, figures: dict[str, Any]) -> None:
    """Store a benchmark's audit figures under the key `audit` of its pack manifest (PACK.json), compactly: per
    baseline the whole-sample and per-stratum scores with their chance levels and ceilings."""
    data = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
    data["audit"] = {
        "format": AUDIT_FORMAT, "sample": figures["sample"], "oracle": _round(figures["oracle"]),
        "passed": figures["passed"],
        "baselines": {f["name"]: {"metric": f["metric"], "passed": f["passed"], "rows": {
            r["key"]: {"n": r["n"], "score": _round(r["score"]), "chance": r["chance"], "ceiling": r["ceiling"]}
            for r in f["rows"]}} for f in figures["baselines"]},
    }
    manifest.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def pack_audit(host: PluginHost, cfg: DictConfig, bench: str, data_dir: Path,
               names: list[str] | None = None) -> dict[str, Any]:
    """Audit the pack at `data_dir` (every task, in a temporary folder) and write the figures into its manifest."""
    source = host.registry.data_sources.get(bench)
    manifest = data_dir / (source.pack_manifest if source else "PACK.json")
    run_cfg = OmegaConf.create(OmegaConf.to_container(cfg))
    OmegaConf.update(run_cfg, f"{bench}.data_dir", str(data_dir), force_add=True)
    OmegaConf.update(run_cfg, "run.limit", None)
    with tempfile.TemporaryDirectory(prefix="suite-audit-") as scratch:
        figures = audit_benchmark(host, run_cfg, bench, Path(scratch), names)
    write_pack_audit(manifest, figures)
    return figures


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def table_rows(figures: list[dict[str, Any]]) -> list[list[str]]:
    """The audit's table: one row per benchmark, baseline and category."""
    rows = []
    for bench in figures:
        for baseline in bench["baselines"]:
            for row in baseline["rows"]:
                verdict = {True: "ok", False: "FAIL", None: "-"}[row["passed"]]
                if row["infra_failures"]:
                    verdict += f" ({row['infra_failures']} infra)"
                rows.append([bench["benchmark"], baseline["name"], "all" if row["key"] == OVERALL else row["key"],
                             str(row["n"]), _cell(row["score"]), _cell(row["chance"]), _cell(row["ceiling"]),
                             _cell(row["oracle"]), verdict])
    return rows


def run_audit(args: argparse.Namespace) -> int:
    """`suite audit`: every declared baseline of the selected benchmarks; exit 1 when one exceeds its ceiling."""
    from suite import commands
    from suite.cli import console, err_console, print_json, print_table
    from suite.plugins import build_host

    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be a positive number of tasks, not {args.limit}")
    if args.limit is not None and args.full:
        raise ConfigError("--limit and --full contradict each other: give one")
    host = build_host()
    cfg, benchmarks = commands._planning_config(host, args, commands._split(args.plugins))
    OmegaConf.update(cfg, "run.seed", args.seed)
    OmegaConf.update(cfg, "run.tasks", None)
    OmegaConf.update(cfg, "run.repeats", 1)
    runner.resolve_data(host, cfg, benchmarks)
    names = commands._split(args.baselines) or None
    for bench in benchmarks:
        known = {b.name for b in baselines_of(host.benchmark(bench))}
        if names and not set(names) & known:
            raise ConfigError(f"{bench} declares none of the baselines {', '.join(names)}; it has {', '.join(known)}")
    results = []
    with tempfile.TemporaryDirectory(prefix="suite-audit-") as tmp:
        scratch = Path(args.out) if args.out else Path(tmp)
        for bench in benchmarks:
            limit = args.limit if args.limit is not None or args.full else host.benchmark(bench).audit_limit
            OmegaConf.update(cfg, "run.limit", limit)
            results.append(audit_benchmark(host, cfg, bench, scratch, names))
    passed = all(r["passed"] for r in results)
    if args.format == "json":
        print_json({"format": AUDIT_FORMAT, "passed": passed, "benchmarks": results})
    else:
        print_table("Shortcut audit (headline score, percent points)",
                    ["benchmark", "baseline", "category", "n", "score", "chance", "ceiling", "oracle", "verdict"],
                    table_rows(results))
        failed = [f"{r['benchmark']}/{b['name']}" for r in results for b in r["baselines"] if not b["passed"]]
        line = f"audit failed: {', '.join(failed)} above ceiling" if failed else "audit passed: no baseline above " \
                                                                                 "its ceiling"
        console.print(line, highlight=False)
    if args.out:
        err_console.print(f"baseline runs kept under {args.out}", highlight=False)
    return 0 if passed else 1
