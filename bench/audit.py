"""Pack build time and shortcut-audit time per benchmark.

`python bench/audit.py [--json] [--plugins a,b] [--build] [--full] [--jobs N] [--keep DIR]`: for each benchmark,
`suite audit` over its default sample (each benchmark's `audit_limit`, or every task; `--full`: every task) as a
child process, timed on the wall and in CPU seconds (its worker processes included); with `--build`, also its pack
generator writing a fresh pack into a temporary folder (minutes each); with `--keep`, each audit's whole JSON
report is written to DIR/<plugin>.json. The machine's load is printed beside the figures (wall seconds on a
shared machine measure the load as much as the audit). Every declared baseline runs, the learned ones (cross-fitted
over their folds, issue 34) included. The target: the audit of all five under 20 minutes on 2 cores (issue 34).
`--json` prints one object whose `seconds` is the whole wall time, `per_benchmark_seconds` each plugin's, and
`verdicts` per benchmark and baseline the verdict of every row (`pass`, `fail`, `too few`), by its category."""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PLUGINS = ("vigil", "longact", "agentvqa", "asgard", "omniear")
#: Each plugin's pack generator, run with `--out DIR` (and its defaults: the shipped pack's seed and size).
GENERATORS = {
    "vigil": ["-m", "suite_vigil.packgen.generate"],
    "longact": ["-m", "suite_longact.pack.generate"],
    "agentvqa": ["-m", "suite_agentvqa.packgen", "--no-audit"],
    "asgard": ["-m", "suite_asgard.pack.generate"],
    "omniear": ["-m", "suite_omniear.pack.generate"],
}
TARGET_S = 20 * 60


def _child_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> dict[str, Any]:
    """Run a command to its end: wall and CPU seconds, its exit code, and its stdout."""
    cpu, start = _child_cpu_s(), time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return {"wall_s": round(time.monotonic() - start, 1), "cpu_s": round(_child_cpu_s() - cpu, 1),
            "exit_code": done.returncode, "stdout": done.stdout, "stderr_tail": done.stderr[-400:]}


def audit_one(plugin: str, full: bool, jobs: int | None = None, keep: Path | None = None) -> dict[str, Any]:
    """`suite audit` of one plugin: time, exit code, and per baseline its whole-sample score, interval and
    verdict."""
    command = [sys.executable, "-m", "suite.cli.main", "audit", "--plugins", plugin, "--format", "json"]
    command += (["--full"] if full else []) + ([f"--jobs={jobs}"] if jobs else [])
    result = timed(command)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{plugin}.json").write_text(result["stdout"], encoding="utf-8")
    figures: dict[str, Any] = {}
    try:
        report = json.loads(result["stdout"])
    except json.JSONDecodeError:
        report = None
    if report:
        for bench in report["benchmarks"]:
            figures[bench["benchmark"]] = {
                "episodes": bench["sample"]["episodes"], "available": bench["sample"].get("available"),
                "limit": bench["sample"]["limit"], "oracle": bench["oracle"], "passed": bench["passed"],
                "baselines": {b["name"]: {"kind": b.get("kind"), "n": b["rows"][0]["n"],
                                          "score": b["rows"][0]["score"], "ci95": b["rows"][0].get("ci95"),
                                          "passed": b["passed"],
                                          "verdicts": {row["key"]: row.get("verdict") for row in b["rows"]}}
                              for b in bench["baselines"]}}
    return {"audit_wall_s": result["wall_s"], "audit_cpu_s": result["cpu_s"], "audit_exit_code": result["exit_code"],
            "figures": figures, **({} if report else {"error": result["stderr_tail"]})}


def build_one(plugin: str) -> dict[str, Any]:
    """The plugin's pack generator into a temporary folder: time and exit code."""
    with tempfile.TemporaryDirectory(prefix=f"bench-pack-{plugin}-") as out:
        result = timed([sys.executable, *GENERATORS[plugin], "--out", str(Path(out) / "pack")])
    return {"build_wall_s": result["wall_s"], "build_cpu_s": result["cpu_s"], "build_exit_code": result["exit_code"]}


def main(argv: list[str] | None = None) -> int:
    """Measure and print (one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plugins", default=",".join(PLUGINS), help="comma-separated plugins (default: all five)")
    parser.add_argument("--build", action="store_true", help="also time each pack generator (minutes each)")
    parser.add_argument("--full", action="store_true", help="audit every task instead of the default samples")
    parser.add_argument("--jobs", type=int, help="suite audit --jobs (default: its own, one per core)")
    parser.add_argument("--keep", type=Path, help="write each audit's JSON report to KEEP/<plugin>.json")
    args = parser.parse_args(argv)
    plugins = [p.strip() for p in args.plugins.split(",") if p.strip()]
    per: dict[str, Any] = {}
    load_before = os.getloadavg()
    for plugin in plugins:
        per[plugin] = audit_one(plugin, args.full, args.jobs, args.keep)
        if args.build:
            per[plugin].update(build_one(plugin))
    total = round(sum(p["audit_wall_s"] for p in per.values()), 1)
    verdicts = {bench: {name: b["verdicts"] for name, b in f["baselines"].items()}
                for p in per.values() for bench, f in p["figures"].items()}
    out = {"seconds": total, "per_benchmark_seconds": {k: p["audit_wall_s"] for k, p in per.items()},
           "verdicts": verdicts, "benchmarks": per, "audit_wall_s": total,
           "audit_cpu_s": round(sum(p["audit_cpu_s"] for p in per.values()), 1),
           "target_s": TARGET_S, "within_target": total <= TARGET_S, "cores": len(os.sched_getaffinity(0)),
           "load_avg_before": [round(x, 2) for x in load_before],
           "load_avg_after": [round(x, 2) for x in os.getloadavg()], "full": args.full,
           "passed": all(p.get("audit_exit_code") == 0 for p in per.values())}
    if args.json:
        print(json.dumps(out, indent=2, sort_keys=True))
        return 0
    for plugin, figures in per.items():
        build = f", build {figures['build_wall_s']} s wall" if "build_wall_s" in figures else ""
        rows = [v for f in figures["figures"].values() for b in f["baselines"].values() for v in b["verdicts"].values()]
        tally = ", ".join(f"{rows.count(v)} {v}" for v in ("pass", "too few", "fail") if rows.count(v))
        print(f"{plugin}: audit {figures['audit_wall_s']} s wall / {figures['audit_cpu_s']} s CPU "
              f"(exit {figures['audit_exit_code']}){build}; rows: {tally or 'none'}")
    print(f"all: {total} s wall / {out['audit_cpu_s']} s CPU (target {TARGET_S} s wall) on {out['cores']} cores, "
          f"load average before {out['load_avg_before']}, after {out['load_avg_after']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
