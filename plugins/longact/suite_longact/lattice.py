"""The 0.25 m lattice both the oracle and HoloMind walk on: breadth-first paths and the heading of a leg."""

from __future__ import annotations

Cell = tuple[int, int]
#: the yaw (degrees) of a leg from one lattice point to its neighbour (yaw 0 looks along +z)
HEADING = {(1, 0): 90, (-1, 0): 270, (0, 1): 0, (0, -1): 180}


def path_to(parent: dict[Cell, Cell | None], cell: Cell) -> list[Cell]:
    """The path from a breadth-first search's start to `cell`, from its parent links."""
    out = [cell]
    while parent[out[-1]] is not None:
        out.append(parent[out[-1]])  # type: ignore[arg-type]
    return out[::-1]


def heading(a: Cell, b: Cell) -> int:
    """The yaw of the leg from `a` to its neighbour `b`."""
    return HEADING[(b[0] - a[0], b[1] - a[1])]
