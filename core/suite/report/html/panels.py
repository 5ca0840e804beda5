"""Panels plugins give the HTML report's episode view (plain data; docs/report.md lists the kinds)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any


def observation_diff(before: str | None, after: str | None, title: str = "observation change") -> dict[str, Any]:
    """A `diff` panel: the lines of a text observation removed (`-`) and added (`+`) since the previous one."""
    lines = [[line[0], line[2:]] for line in difflib.ndiff((before or "").splitlines(), (after or "").splitlines())
             if line[:1] in "+-"]
    return {"kind": "diff", "title": title, "lines": lines}


def images(title: str, refs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """An `images` panel of trace image references (`path` relative to the run folder, `label`)."""
    return {"kind": "images", "title": title, "images": [dict(r) for r in refs]}


def curve(title: str, x: Sequence[float], y: Sequence[float], x_label: str = "", y_label: str = "") -> dict[str, Any]:
    """A `curve` panel: a line plot of y over x."""
    return {"kind": "curve", "title": title, "x": list(x), "y": list(y), "x_label": x_label, "y_label": y_label}
