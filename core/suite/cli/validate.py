"""`suite validate`: schema-check every task file, then prove every task solvable with the oracle."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from omegaconf import OmegaConf

from suite.cli.output import EXIT_INTERRUPTED, print_table
from suite.launch.compose import planning_config, split_names
from suite.launch.consoles import err_console
from suite.launch.session import execute_session, start_session
from suite.run.host import build_host


def command(args: argparse.Namespace) -> int:
    """`suite validate`: schema-check every task file, then run the oracle on every task."""
    host = build_host()
    cfg, benchmarks = planning_config(host, args, split_names(args.plugins))
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
