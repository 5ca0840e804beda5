"""AsgardBench's panel in the HTML report: the two images of a turn, the view before it and the view after it."""

from __future__ import annotations

from typing import Any

from suite.registry import ReportView
from suite.report.html import images


def _step(step: dict[str, Any], previous: dict[str, Any]) -> list[dict[str, Any]]:
    before, after = previous.get("images") or [], step.get("images") or []
    if not (before or after):
        return []
    refs = [{**before[-1], "label": "before this turn"}] if before else []
    refs += [{**after[-1], "label": "after this turn"}] if after else []
    return [images("the turn's two images", refs)]


def report_view(benchmark: str) -> ReportView:
    """The before and after images of every turn."""
    return ReportView(benchmark, step=_step)
