"""What checking the data before a run costs: each generated pack's `load_tasks` (every task) and its benchmark's
`check_tasks` on every task (a full run) and on two (`--limit 2`), in CPU seconds of this process.

`--json` prints one JSON object: per benchmark `load_tasks_s`, `check_all_s`, `check_two_s` and `tasks`.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from omegaconf import OmegaConf
from suite.engine import runner
from suite.engine.host import build_host, default_config

BENCHMARKS = ("agentvqa", "asgard", "longact", "vigil")


def _cpu(fn: Any) -> tuple[float, Any]:
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def measure(bench: str) -> dict[str, float | int]:
    """CPU seconds of `load_tasks` on the whole pack, then `check_tasks` on its first two tasks and on all of them
    (each in a fresh cache of what the checks build, so neither reuses the other's work)."""
    host = build_host()
    cfg = default_config(sorted(host.registry.benchmarks))
    runner.resolve_data(host, cfg, [bench])
    section = cfg.get(bench) or OmegaConf.create({})
    load_s, tasks = _cpu(lambda: list(host.call("load_tasks", bench, config=section)))
    check = host.benchmark(bench).check_tasks
    _clear_caches()
    two_s, _ = _cpu(lambda: check(tasks[:2], section)) if check else (0.0, None)
    _clear_caches()
    all_s, _ = _cpu(lambda: check(tasks, section)) if check else (0.0, None)
    return {"tasks": len(tasks), "load_tasks_s": round(load_s, 3), "check_two_s": round(two_s, 3),
            "check_all_s": round(all_s, 3)}


def _clear_caches() -> None:
    """Forget the houses a check built or read (they are kept for the episodes of the same process)."""
    from suite_longact.houses import BUILT
    from suite_vigil import episodes

    BUILT.clear()
    episodes._HOUSES.clear()


def main() -> None:
    """Print the figures (or one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    figures = {bench: measure(bench) for bench in BENCHMARKS}
    if args.json:
        print(json.dumps(figures, sort_keys=True))
        return
    for bench, f in figures.items():
        print(f"{bench}: load_tasks {f['load_tasks_s']} s for {f['tasks']} tasks; check_tasks {f['check_two_s']} s "
              f"for 2, {f['check_all_s']} s for all (CPU)")


if __name__ == "__main__":
    main()
