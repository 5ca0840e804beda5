"""Vigil's panel in the HTML report: when the goal first held, and the agent's report against it."""

from __future__ import annotations

from typing import Any

from suite.contract.registry import ReportView

SHOWN = ("report_step", "closure_lag", "status", "raw_status", "summary", "match", "W", "B",
         "outcome_category", "end")


def _episode(record: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    metrics = record.get("metrics") or {}
    first = next((e["index"] + 1 for e in events if e["type"] == "step" and (e.get("info") or {}).get("goal")), None)
    items = [["goal first satisfied after step", metrics.get("first_goal_step", first)]]
    items += [[key, metrics.get(key)] for key in SHOWN]
    return [{"kind": "kv", "title": "goal and report", "items": items}]


def _step(step: dict[str, Any], previous: dict[str, Any]) -> list[dict[str, Any]]:
    now, before = (step.get("info") or {}).get("goal"), (previous.get("info") or {}).get("goal")
    if now and not before:
        return [{"kind": "text", "title": "goal", "text": "the goal holds after this step"}]
    return []


def report_view(benchmark: str) -> ReportView:
    """The goal's first step and the report under the settlement; a mark on each step where the goal starts to
    hold."""
    return ReportView(benchmark, episode=_episode, step=_step)
