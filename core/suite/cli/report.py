"""`suite report RUN...`: the cross-benchmark report of one or more runs, in every format."""

from __future__ import annotations

import argparse
from pathlib import Path

from omegaconf import DictConfig

from suite.contract import config as configmod
from suite.contract.errors import ConfigError, PluginError
from suite.contract.settings import check_settings
from suite.launch.consoles import console, err_console
from suite.report import render, summarize
from suite.report.html import build_site
from suite.run.host import PluginHost, build_host, default_config
from suite.store.run_folder import CONFIG_NAME
from suite.store.runsdir import find_run


def command(args: argparse.Namespace) -> int:
    """`suite report RUN...`: the cross-benchmark report."""
    roots = [find_run(r) for r in args.runs]
    cfg = report_settings(roots)
    reference = bool(args.reference if args.reference is not None else cfg.get("reference", False))
    host = host_or_none()
    summary = summarize(host, roots, cfg.bootstrap, cfg.confidence, cfg.seed, reference)
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


def report_settings(roots: list[Path]) -> DictConfig:
    """The report section of the first run folder that saved its config (a run that crashed early may not
    have), else the defaults."""
    saved = next((root / CONFIG_NAME for root in roots if (root / CONFIG_NAME).is_file()), None)
    cfg = default_config([])
    if saved is None:
        return cfg.report
    cfg.report = configmod.load_saved(saved).get("report") or cfg.report
    try:  # a folder's settings are data: a damaged one is a clear line, not a traceback in the statistics
        check_settings(cfg, {})
    except ConfigError as exc:
        raise ConfigError(f"{saved}: {exc}") from None
    return cfg.report


def host_or_none() -> PluginHost | None:
    try:
        return build_host()
    except PluginError as exc:
        err_console.print(f"warning: {exc}; the report shows outcomes only", highlight=False)
        return None
