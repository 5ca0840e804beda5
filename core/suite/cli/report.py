"""`suite report RUN...`: the cross-benchmark report of one or more runs, in every format."""

from __future__ import annotations

import argparse
from pathlib import Path

from suite.contract.errors import ConfigError
from suite.launch.consoles import console, err_console
from suite.launch.reporting import host_or_none, report_settings, report_summary
from suite.report import render
from suite.report.html import build_site
from suite.store.runsdir import find_run

__all__ = ["command", "host_or_none", "report_settings"]


def command(args: argparse.Namespace) -> int:
    """`suite report RUN...`: the cross-benchmark report."""
    roots = [find_run(r) for r in args.runs]
    host, summary = report_summary(roots, args.reference)
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
