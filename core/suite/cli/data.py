"""`suite data pull|list|where [PLUGIN]`: official data and generated packs."""

from __future__ import annotations

import argparse

from suite.cli.output import print_records
from suite.contract.errors import ConfigError, SuiteError
from suite.data import datadirs
from suite.engine import runner
from suite.engine.host import build_host
from suite.launch.consoles import console, err_console


def command(args: argparse.Namespace) -> int:
    """`suite data pull|list|where PLUGIN`."""
    host = build_host()
    sources = host.registry.data_sources
    names = runner.resolve_benchmarks(host, [args.plugin]) if args.plugin else sorted(sources)
    if args.action == "pull":
        if not args.plugin:
            raise ConfigError("suite data pull needs a plugin name")
        from suite.data.pull import pull

        for bench in names:
            pull(sources[bench], datadirs.official_cache_dir(bench), err_console)
        return 0
    rows = []
    for bench in names:
        if bench not in sources:
            rows.append([bench, "-", "-", "no data source declared", "-"])
            continue
        src = sources[bench]
        cached = datadirs.official_cache_dir(bench)
        try:
            choice = datadirs.choose(src, None)
            active = f"{choice.kind} ({choice.origin}): {choice.path}"
        except SuiteError as exc:
            active = str(exc)
        pulled = str(cached) if cached.is_dir() else "not pulled"
        rows.append([bench, active, pulled, src.official,
                     f"{src.pack_label} at {src.pack_dir}" if src.pack_dir else "-"])
    if args.action == "where":
        for row in rows:
            console.print(row[1], highlight=False)
        return 0
    print_records("Data", ["benchmark", "in use", "pulled", "official data", "generated pack (offline default)"], rows)
    return 0
