"""`suite audit`: run every declared shortcut baseline over a benchmark's data; exit 1 when one is above its ceiling
(its 95 % interval wholly above it)."""

from __future__ import annotations

import argparse
from typing import Any

from suite.cli.output import print_json, print_table
from suite.engine.host import build_host
from suite.launch.compose import Options, split_names
from suite.launch.consoles import console, err_console
from suite.validity.auditor import TABLE_HEADER, TOO_FEW, markdown, sample_line, table_rows, whole_pack
from suite.validity.selected import audit_selected


def command(args: argparse.Namespace) -> int:
    """`suite audit`: every declared baseline of the selected benchmarks; exit 1 when one exceeds its ceiling."""
    report = audit_selected(build_host(), Options.of(args), split_names(args.plugins), seed=args.seed,
                            baselines=split_names(args.baselines), limit=args.limit, full=args.full, jobs=args.jobs,
                            out=args.out)
    passed, results = report["passed"], report["benchmarks"]
    if args.format == "json":
        print_json(report)
    elif args.format == "markdown":
        console.print(markdown(results), highlight=False, markup=False, soft_wrap=True)
    else:
        for figures in results:
            console.print(sample_line(figures), highlight=False)
        print_table("Shortcut audit (headline score, percent points, with its 95 % interval)", TABLE_HEADER,
                    table_rows(results))
        failed = [f"{r['benchmark']}/{b['name']}" for r in results for b in r["baselines"] if not b["passed"]]
        line = f"audit failed: {', '.join(failed)} above ceiling" if failed else "audit passed: no baseline above " \
                                                                                 "its ceiling"
        console.print(line + _too_few(results), highlight=False)
    if args.format != "table":
        err_console.print("audit passed" if passed else "audit failed: a baseline is above its ceiling",
                          highlight=False)
    if args.out:
        err_console.print(f"baseline runs kept under {args.out}", highlight=False)
    return 0 if passed else 1


#: the summary's words for rows whose interval holds their ceiling: on a sample (False), over the whole pack (True)
_UNDECIDED = {False: "with too few episodes to tell (the 95 % interval holds the ceiling: --full or a larger --limit)",
              True: "undecided (the 95 % interval holds the ceiling over every task of the pack: a larger pack would "
                    "tell)"}


def _too_few(results: list[dict[str, Any]]) -> str:
    """The summary's note of rows whose interval holds their ceiling ('' when none): they neither pass nor fail; on a
    sample more episodes would tell, over the whole pack none exist (undecided)."""
    counts = {False: 0, True: 0}
    for r in results:
        counts[whole_pack(r)] += sum(row["verdict"] == TOO_FEW for b in r["baselines"] for row in b["rows"])
    return "".join(f"; {n} {'row' if n == 1 else 'rows'} {_UNDECIDED[whole]}" for whole, n in counts.items() if n)
