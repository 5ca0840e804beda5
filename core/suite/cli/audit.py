"""`suite audit`: run every declared shortcut baseline over a benchmark's data; exit 1 when one is above its ceiling
(its 95 % interval wholly above it)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from suite.audit.auditor import (
    AUDIT_FORMAT,
    TABLE_HEADER,
    TOO_FEW,
    default_jobs,
    execute_jobs,
    figures_of,
    markdown,
    plan_benchmark,
    sample_line,
    table_rows,
)
from suite.audit.baselines import baselines_of
from suite.cli.output import print_json, print_table
from suite.contract.errors import ConfigError
from suite.launch.compose import planning_config, split_names
from suite.launch.consoles import console, err_console
from suite.run import runner
from suite.run.host import build_host


def command(args: argparse.Namespace) -> int:
    """`suite audit`: every declared baseline of the selected benchmarks; exit 1 when one exceeds its ceiling."""
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be a positive number of tasks, not {args.limit}")
    if args.limit is not None and args.full:
        raise ConfigError("--limit and --full contradict each other: give one")
    host = build_host()
    cfg, benchmarks = planning_config(host, args, split_names(args.plugins))
    OmegaConf.update(cfg, "run.seed", args.seed)
    OmegaConf.update(cfg, "run.tasks", None)
    OmegaConf.update(cfg, "run.repeats", 1)
    runner.resolve_data(host, cfg, benchmarks)
    names = split_names(args.baselines) or None
    for bench in benchmarks:
        known = {b.name for b in baselines_of(host.benchmark(bench))}
        if names and not set(names) & known:
            raise ConfigError(f"{bench} declares none of the baselines {', '.join(names)}; it has {', '.join(known)}")
    if args.jobs is not None and args.jobs < 1:
        raise ConfigError(f"--jobs must be a positive number of processes, not {args.jobs}")
    workers = args.jobs or default_jobs()
    with tempfile.TemporaryDirectory(prefix="suite-audit-") as tmp:
        scratch = Path(args.out) if args.out else Path(tmp)
        plans = []
        for bench in benchmarks:
            limit = args.limit if args.limit is not None or args.full else host.benchmark(bench).audit_limit
            OmegaConf.update(cfg, "run.limit", limit)
            plans.append(plan_benchmark(host, cfg, bench, scratch, names))
        runs = iter(execute_jobs(host, [job for plan in plans for job in plan.jobs], workers))
        results = [figures_of(host, plan, [next(runs) for _ in plan.jobs]) for plan in plans]
    passed = all(r["passed"] for r in results)
    if args.format == "json":
        print_json({"format": AUDIT_FORMAT, "passed": passed, "benchmarks": results})
    elif args.format == "markdown":
        console.print(markdown(results), highlight=False, markup=False, soft_wrap=True)
    else:
        for figures in results:
            console.print(sample_line(figures), highlight=False)
        print_table("Shortcut audit (headline score, percent points, with its 95 % interval)", TABLE_HEADER,
                    table_rows(results))
        failed = [f"{r['benchmark']}/{b['name']}" for r in results for b in r["baselines"] if not b["passed"]]
        line = f"audit failed: {', '.join(failed)} above ceiling" if failed else "audit passed: no baseline above " \
                                                                                 "its ceiling"
        console.print(line + _too_few(results), highlight=False)
    if args.format != "table":
        err_console.print("audit passed" if passed else "audit failed: a baseline is above its ceiling",
                          highlight=False)
    if args.out:
        err_console.print(f"baseline runs kept under {args.out}", highlight=False)
    return 0 if passed else 1


def _too_few(results: list[dict[str, Any]]) -> str:
    """The summary's note of rows whose interval holds their ceiling ('' when none): they neither pass nor fail."""
    count = sum(row["verdict"] == TOO_FEW for r in results for b in r["baselines"] for row in b["rows"])
    rows = "row" if count == 1 else "rows"
    return (f"; {count} {rows} with too few episodes to tell (the 95 % interval holds the ceiling: --full or a "
            "larger --limit)") if count else ""
