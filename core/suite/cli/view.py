"""`suite view RUN...`: build the HTML report (a temporary folder unless --out) and open it in a browser."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from suite.launch.consoles import console, err_console
from suite.launch.reporting import host_or_none, report_settings
from suite.report import summarize
from suite.report.html import build_site, open_in_browser
from suite.store.runsdir import find_run


def command(args: argparse.Namespace) -> int:
    """`suite view RUN...`: build the HTML report (a temporary folder unless --out) and open it in a browser."""
    roots = [find_run(r) for r in args.runs]
    cfg = report_settings(roots)
    host = host_or_none()
    summary = summarize(host, roots, cfg.bootstrap, cfg.confidence, cfg.seed, bool(cfg.get("reference", False)))
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="suite-report-"))
    page = build_site(host, summary, roots, out)
    console.print(str(page), highlight=False, soft_wrap=True)  # also when a browser opens it: where to find it again
    if not args.no_open and not open_in_browser(page):
        err_console.print("no browser found: open the page above", highlight=False)
    return 0
