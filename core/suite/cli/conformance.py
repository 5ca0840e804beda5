"""`suite conformance PLUGIN --traces F --data-dir D`: agreement of a simulator with reference traces."""

from __future__ import annotations

import argparse
from pathlib import Path

from suite.cli.output import existing_dir, print_json, print_table
from suite.contract.errors import PluginError
from suite.engine import runner
from suite.engine.host import build_host
from suite.launch.consoles import console


def command(args: argparse.Namespace) -> int:
    """`suite conformance PLUGIN --traces F --data-dir D`: agreement with a reference simulator."""
    host = build_host()
    benches = runner.resolve_benchmarks(host, [args.plugin])
    checkers = [(b, host.registry.conformance[b]) for b in benches if b in host.registry.conformance]
    if not checkers:
        raise PluginError(f"plugin {args.plugin!r} registers no conformance checker")
    full = True
    for bench, checker in checkers:
        result = checker(traces=Path(args.traces), data_dir=existing_dir(args.data_dir))
        fields = [k for k, v in result.items() if isinstance(v, dict) and set(v) == {"agree", "total"}]
        full &= all(result[f]["agree"] == result[f]["total"] for f in fields)
        if args.format == "json":
            print_json(result)
            continue
        rows = [[f, result[f]["agree"], result[f]["total"], _percent(result[f])] for f in fields]
        print_table(f"{bench}: {result['trajectories']} trajectories, {result['steps']} steps",
                    ["field", "agree", "total", "agreement"], rows)
        for cat, per in sorted(result.get("per_category", {}).items()):
            cells = [f"{per[f]['agree']}/{per[f]['total']}" for f in fields if f in per]
            console.print(f"  {cat}: " + "  ".join(f"{f}={c}" for f, c in zip(fields, cells, strict=False)))
        for mm in result.get("mismatches", [])[:20]:
            console.print(f"  mismatch: {mm}", highlight=False, markup=False)
    return 0 if full else 1


def _percent(counts: dict[str, int]) -> str:
    return f"{100 * counts['agree'] / max(1, counts['total']):.2f}%"
