"""OmniEAR's panel in the HTML report: how each step changed the text observation."""

from __future__ import annotations

from typing import Any

from suite.registry import ReportView
from suite.report.html import observation_diff


def _step(step: dict[str, Any], previous: dict[str, Any]) -> list[dict[str, Any]]:
    return [observation_diff(previous.get("observation"), step.get("observation"), "what this step changed")]


def report_view(benchmark: str) -> ReportView:
    """The observation diff under every step."""
    return ReportView(benchmark, step=_step)
