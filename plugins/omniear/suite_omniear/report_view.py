"""OmniEAR's panel in the HTML report: how each step changed the text observation."""

from __future__ import annotations

from typing import Any

from suite.contract.registry import ReportView
from suite.report.html import observation_diff

TITLE = "what this step changed"


def _step(step: dict[str, Any], previous: dict[str, Any]) -> list[dict[str, Any]]:
    panel = observation_diff(previous.get("observation"), step.get("observation"), TITLE)
    if panel["lines"]:
        return [panel]
    # a change the observation text does not show (a state the agents have not explored): the simulator's word
    said = step.get("feedback") or "nothing"
    return [{"kind": "text", "title": TITLE,
             "text": f"no line of the observation changed; the environment reported: {said}"}]


def report_view(benchmark: str) -> ReportView:
    """The observation diff under every step, or what the environment reported where the text did not change."""
    return ReportView(benchmark, step=_step)
