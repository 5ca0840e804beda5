"""`suite validate`: schema-check every task file, then prove every task solvable with the oracle."""

from __future__ import annotations

import argparse

from suite.cli.output import EXIT_INTERRUPTED, print_table
from suite.engine.host import build_host
from suite.launch.compose import Options, split_names
from suite.launch.consoles import err_console
from suite.launch.validation import validate_tasks


def command(args: argparse.Namespace) -> int:
    """`suite validate`: schema-check every task file, then run the oracle on every task."""
    result = validate_tasks(build_host(), Options.of(args), split_names(args.plugins), args.out)
    if result.status != "complete":
        return EXIT_INTERRUPTED
    rows = []
    for bench in result.benchmarks:
        solved, total = result.solved(bench)
        rows.append([bench, f"{solved}/{total}", f"{100 * solved / max(1, total):.1f}%"])
        for r in result.unsolved:
            if r["benchmark"] == bench:
                err_console.print(f"unsolved {r['episode_id']}: {r['outcome']}: {r['failure_reason']}",
                                  highlight=False)
    print_table("Oracle validation", ["benchmark", "solved", "rate"], rows)
    if args.out:
        err_console.print(f"oracle run folder: {args.out}", highlight=False)
    return 0 if result.passed else 1
