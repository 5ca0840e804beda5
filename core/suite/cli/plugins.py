"""`suite plugins`: the installed plugins, their versions, benchmarks and hooks."""

from __future__ import annotations

import argparse

from suite.cli.output import print_table
from suite.engine.host import build_host


def command(args: argparse.Namespace) -> int:
    """`suite plugins`: installed plugins."""
    host = build_host()
    rows = [[i.name, i.version, ", ".join(i.benchmarks) or "-", ", ".join(i.hooks)] for i in host.plugin_info()]
    print_table("Installed plugins", ["plugin", "version", "benchmarks", "hooks"], rows)
    return 0
