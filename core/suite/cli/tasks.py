"""`suite tasks PLUGIN`: the tasks a plugin would run, and which data they come from."""

from __future__ import annotations

import argparse

from suite.cli.output import print_table
from suite.engine import runner
from suite.engine.host import build_host
from suite.launch.compose import Options, planning_config
from suite.launch.consoles import err_console


def command(args: argparse.Namespace) -> int:
    """`suite tasks PLUGIN`: the tasks a plugin would run."""
    host = build_host()
    cfg, benchmarks = planning_config(host, Options.of(args), [args.plugin])
    choices = runner.resolve_data(host, cfg, benchmarks)
    tasks = runner.load_all_tasks(host, cfg, benchmarks)
    rows = [[t.benchmark, t.id, t.category or "-", t.max_steps or "-"] for t in tasks]
    print_table(f"{len(tasks)} tasks", ["benchmark", "task", "category", "max steps"], rows)
    for bench, choice in choices.items():
        err_console.print(f"{bench}: {choice.kind} data at {choice.path}", highlight=False)
    return 0
