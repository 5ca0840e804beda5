"""What several subcommands print: tables that fit the terminal, records, JSON, and the exit codes of a run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from suite.contract.errors import SuiteError
from suite.launch.consoles import console

EXIT_INTERRUPTED = 130
EXIT_STOPPED = 3
EXIT_MODEL_FAILED = 4
EXIT_INFRA_FAILURES = 5


def print_table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    """Print a simple table to stdout: every cell literal (never rich markup), split to fit the terminal."""
    from suite.report.terminal import Grid, fit

    for table in fit(Grid(title, columns, [[str(c) for c in row] for row in rows], keep=1), console.width):
        console.print(table)


def print_records(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    """Print rows as one table where it fits the terminal, else as one block per row (`column: value` lines), so no
    column lands in a second table away from its row's name."""
    from suite.report.escape import terminal
    from suite.report.terminal import Grid, fit

    tables = fit(Grid(title, columns, [[str(c) for c in row] for row in rows], keep=1), console.width)
    if len(tables) == 1:
        console.print(tables[0])
        return
    import textwrap

    console.print(terminal(title), highlight=False)
    for row in rows:
        console.print(terminal(str(row[0])), highlight=False)
        for column, value in zip(columns[1:], row[1:], strict=True):
            text = textwrap.fill(f"{column}: {value}", width=console.width, initial_indent="  ",
                                 subsequent_indent="      ", break_long_words=False, break_on_hyphens=False)
            console.print(terminal(text), highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Print JSON to stdout (for scripts)."""
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n")


def existing_dir(path: str) -> Path:
    """A path that must be an existing directory."""
    p = Path(path)
    if not p.is_dir():
        raise SuiteError(f"{path}: no such directory")
    return p
