"""`suite report RUN...`: the cross-benchmark report of one or more runs, in every format."""

from __future__ import annotations

import argparse
from pathlib import Path

from suite.contract.errors import ConfigError
from suite.launch.consoles import console, err_console
from suite.launch.reporting import report_summary
from suite.report import render
from suite.report.html import build_site
from suite.store.runsdir import find_run


def command(args: argparse.Namespace) -> int:
    """`suite report RUN...`: the cross-benchmark report."""
    if args.format == "html" and not args.out:
        raise ConfigError("--format html writes a folder: give it with --out DIR")
    out = _out_file(args.out, args.format) if args.format != "html" and args.out else None
    roots = [find_run(r) for r in args.runs]
    host, summary = report_summary(roots, args.reference)
    if args.format == "html":
        page = build_site(host, summary, roots, Path(args.out))
        err_console.print(f"report: {page}", highlight=False)
    elif out is not None:  # the file holds what the terminal would get (a table as plain text, no colours)
        out.write_text(render(summary, args.format), encoding="utf-8")
        err_console.print(f"report: {out}", highlight=False)
    elif args.format == "table":
        render(summary, "table", console)
    else:
        console.file.write(render(summary, args.format))
    return 0


def _out_file(out: str, fmt: str) -> Path:
    """The file `--out` names for a one-file format, checked before the report is computed."""
    path = Path(out)
    if path.is_dir():
        raise ConfigError(f"--out {path} is a folder: --format {fmt} writes a file")
    if not path.parent.is_dir():
        raise ConfigError(f"--out {path}: the folder {path.parent} does not exist")
    return path

