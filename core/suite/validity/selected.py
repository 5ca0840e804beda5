"""`suite audit` as the CLI and the Python API run it: every declared shortcut baseline of the selected benchmarks over
their (sampled) data, as one JSON object."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from suite.contract.errors import ConfigError
from suite.engine import runner
from suite.engine.host import PluginHost
from suite.launch.compose import Options, planning_config
from suite.validity.auditor import AUDIT_FORMAT, default_jobs, execute_jobs, figures_of, plan_benchmark
from suite.validity.baselines import baselines_of


def audit_selected(host: PluginHost, options: Options, plugins: list[str], *, seed: int = 0,
                   baselines: list[str] | None = None, limit: int | None = None, full: bool = False,
                   jobs: int | None = None, out: str | None = None) -> dict[str, Any]:
    """The audit's figures (`--format json`'s object: `format`, `passed`, `benchmarks`); the baseline runs are kept
    only under `out`."""
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be a positive number of tasks, not {limit}")
    if limit is not None and full:
        raise ConfigError("--limit and --full contradict each other: give one")
    cfg, benchmarks = planning_config(host, options, plugins)
    OmegaConf.update(cfg, "run.seed", seed)
    OmegaConf.update(cfg, "run.tasks", None)
    OmegaConf.update(cfg, "run.repeats", 1)
    runner.resolve_data(host, cfg, benchmarks)
    names = baselines or None
    for bench in benchmarks:
        known = {b.name for b in baselines_of(host.benchmark(bench))}
        if names and not set(names) & known:
            raise ConfigError(f"{bench} declares none of the baselines {', '.join(names)}; it has {', '.join(known)}")
    if jobs is not None and jobs < 1:
        raise ConfigError(f"--jobs must be a positive number of processes, not {jobs}")
    with tempfile.TemporaryDirectory(prefix="suite-audit-") as tmp:
        scratch = Path(out) if out else Path(tmp)
        plans = []
        for bench in benchmarks:
            bench_limit = limit if limit is not None or full else host.benchmark(bench).audit_limit
            OmegaConf.update(cfg, "run.limit", bench_limit)
            plans.append(plan_benchmark(host, cfg, bench, scratch, names))
        runs = iter(execute_jobs(host, [job for plan in plans for job in plan.jobs], jobs or default_jobs()))
        results = [figures_of(host, plan, [next(runs) for _ in plan.jobs]) for plan in plans]
    return {"format": AUDIT_FORMAT, "passed": all(r["passed"] for r in results), "benchmarks": results}
