"""LongAct's panel in the HTML report: the checklist score (GC) after every step of the episode."""

from __future__ import annotations

from typing import Any

from suite.registry import ReportView
from suite.report.html import curve


def _episode(record: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    points = [(e["index"] + 1, (e.get("info") or {}).get("gc")) for e in events if e["type"] == "step"]
    points = [(x, y) for x, y in points if isinstance(y, int | float)]
    if not points:
        return []
    xs, ys = zip(*[(0, 0.0), *points], strict=True)
    return [curve("checklist score curve", xs, ys, "step", "GC (share of checklist items met)")]


def report_view(benchmark: str) -> ReportView:
    """The score curve under the settlement."""
    return ReportView(benchmark, episode=_episode)
