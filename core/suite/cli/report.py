"""`suite report RUN...`: the cross-benchmark report of one or more runs, in every format."""

from __future__ import annotations

import argparse
from pathlib import Path

from omegaconf import DictConfig

from suite.contract import config as configmod
from suite.contract.errors import ConfigError, PluginError
from suite.launch.consoles import console, err_console
from suite.report import render, summarize
from suite.report.html import build_site
from suite.run.host import PluginHost, build_host, default_config
from suite.store.run_folder import CONFIG_NAME
from suite.store.runsdir import find_run


def command(args: argparse.Namespace) -> int:
    """`suite report RUN...`: the cross-benchmark report."""
    if args.format == "html" and not args.out:
        raise ConfigError("--format html writes a folder: give it with --out DIR")
    out = _out_file(args.out, args.format) if args.format != "html" and args.out else None
    roots = [find_run(r) for r in args.runs]
    cfg = report_settings(roots)
    reference = bool(args.reference if args.reference is not None else cfg.get("reference", False))
    host = host_or_none()
    summary = summarize(host, roots, cfg.bootstrap, cfg.confidence, cfg.seed, reference)
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


def report_settings(roots: list[Path]) -> DictConfig:
    """The report section of the first run folder that saved its config (a run that crashed early may not
    have), else the defaults."""
    saved = next((root / CONFIG_NAME for root in roots if (root / CONFIG_NAME).is_file()), None)
    return (configmod.load_saved(saved) if saved else default_config([])).report


def host_or_none() -> PluginHost | None:
    try:
        return build_host()
    except PluginError as exc:
        err_console.print(f"warning: {exc}; the report shows outcomes only", highlight=False)
        return None
