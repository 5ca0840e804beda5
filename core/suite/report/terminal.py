"""Terminal tables that fit the console: intervals stacked on two lines, column groups split into parts that each
repeat the row's key columns, and no word broken mid-name while anything else can give."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len  # the width on screen: a CJK character or an emoji takes two
from rich.table import Table

from suite.report.escape import terminal

KEY_COLUMNS = 3  # at most this many leading text columns of a detail table identify its rows


@dataclass
class Grid:
    """A table before rendering: cells are text, a `\\n` in a cell marks where it may go on a second line."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    keep: int = 2  # leading columns that identify a row: every part repeats them
    grouped: bool = False  # columns sharing a header's first line (`omniear\nSR`) stay in one part where they fit


def _flat(cell: str) -> str:
    return cell.replace("\n", " ")


def _lines(cell: str) -> list[str]:
    return cell.split("\n") or [""]


def _natural(grid: Grid, index: int, stacked: bool) -> int:
    """A column's width on screen with its padding and border (cells on one line unless `stacked`)."""
    cells = [r[index] if stacked else _flat(r[index]) for r in grid.rows]
    return max(cell_len(line) for text in [grid.columns[index], *cells] for line in _lines(text)) + 3


def _need(grid: Grid, index: int, stacked: bool) -> int:
    """The narrowest a column can be without breaking a word (or, stacked, a line of a cell that has several, such
    as an interval): the width its part must leave it."""
    units = [w for line in _lines(grid.columns[index]) for w in line.split()]
    for row in grid.rows:
        cell = row[index]
        units += _lines(cell) if stacked and "\n" in cell else cell.split()
    return max((cell_len(u) for u in units), default=1)


def _groups(grid: Grid) -> list[list[int]]:
    groups: list[list[int]] = []
    for i in range(grid.keep, len(grid.columns)):
        head = grid.columns[i].split("\n", 1)[0] if grid.grouped and "\n" in grid.columns[i] else None
        if groups and head is not None and grid.columns[groups[-1][0]].split("\n", 1)[0] == head:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _parts(grid: Grid, width: int) -> list[list[int]]:
    """Column indices of each part: whole groups while they fit, a group too wide on its own split by column."""
    def size(cols: list[int]) -> int:
        return sum(_need(grid, i, True) + 3 for i in cols)

    base = size(list(range(grid.keep))) + 1
    chunks: list[list[int]] = [[]]
    used = base
    for group in _groups(grid):
        pieces = [group] if base + size(group) <= width else [[i] for i in group]
        for piece in pieces:
            if chunks[-1] and used + size(piece) > width:
                chunks.append([])
                used = base
            chunks[-1] += piece
            used += size(piece)
    return [list(range(grid.keep)) + chunk for chunk in chunks]


def fit(grid: Grid, width: int) -> list[Table]:
    """The grid as rich tables no wider than `width`: one line per cell if it fits, else intervals stacked and the
    columns split into parts; a column keeps its longest word whole unless the part cannot fit even so."""
    total = sum(_natural(grid, i, False) for i in range(len(grid.columns))) + 1
    stacked = total > width
    if stacked and grid.keep > 1 and _too_wide_beside_keys(grid, width):
        grid = _stack_keys(grid)
    parts = _parts(grid, width) if stacked else [list(range(len(grid.columns)))]
    tables = []
    for number, cols in enumerate(parts, 1):
        title = grid.title if number == 1 else f"{grid.title}, continued ({number}/{len(parts)})"
        table = Table(title=terminal(title), title_justify="left")
        widths = _widths(grid, cols, width, stacked)
        for i in cols:
            table.add_column(terminal(grid.columns[i]), overflow="fold", width=widths.get(i))
        for row in grid.rows:
            table.add_row(*(terminal(row[i] if stacked else _flat(row[i])) for i in cols))
        tables.append(table)
    return tables


def _too_wide_beside_keys(grid: Grid, width: int) -> bool:
    """Whether some column cannot fit beside the row's key columns without breaking a word."""
    base = sum(_need(grid, i, True) + 3 for i in range(grid.keep)) + 1
    return any(base + _need(grid, i, True) + 3 > width for i in range(grid.keep, len(grid.columns)))


def _stack_keys(grid: Grid) -> Grid:
    """The key columns as one, their values on lines of their own (`model` above `agent`), to leave room."""
    k = grid.keep
    return Grid(grid.title, ["\n".join(grid.columns[:k]), *grid.columns[k:]],
                [["\n".join(r[:k]), *r[k:]] for r in grid.rows], keep=1, grouped=grid.grouped)


def _widths(grid: Grid, cols: list[int], width: int, stacked: bool) -> dict[int, int]:
    """Column widths for a part: each column its narrowest whole-word width, then what is left of `width` to the
    columns that lack least of their natural width; none (rich folds as it can) when even that does not fit."""
    need = {i: _need(grid, i, stacked) for i in cols}
    spare = width - sum(n + 3 for n in need.values()) - 1
    if spare < 0:
        return {}
    lack = {i: max(0, _natural(grid, i, stacked) - 3 - need[i]) for i in cols}
    widths = dict(need)
    for i in sorted(cols, key=lambda c: lack[c]):
        extra = min(spare, lack[i])
        widths[i] += extra
        spare -= extra
    return widths


def key_columns(table: dict[str, Any]) -> int:
    """How many leading columns of a detail table identify its rows: text in every row (at most KEY_COLUMNS)."""
    grid = table.get("values", table["rows"])
    keep = 0
    while keep < min(KEY_COLUMNS, len(table["columns"]) - 1) and all(isinstance(r[keep], str) for r in grid):
        keep += 1
    return keep
