"""`suite export RUN...`: every finished episode's record of one or more runs, as JSON Lines or CSV."""

from __future__ import annotations

import argparse
from pathlib import Path

from suite.launch.consoles import console, err_console
from suite.report.export import episode_rows, to_csv, to_jsonl
from suite.store.runsdir import find_run


def command(args: argparse.Namespace) -> int:
    """`suite export RUN...`: per-episode records as JSON Lines or CSV."""

    rows = list(episode_rows([find_run(r) for r in args.runs]))
    text = to_csv(rows) if args.format == "csv" else to_jsonl(rows)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        err_console.print(f"{len(rows)} episodes written to {args.out}", highlight=False)
    else:
        console.file.write(text)
    return 0
