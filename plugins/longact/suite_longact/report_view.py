"""LongAct's panels in the HTML report: the checklist score (GC) after every step of the episode, and for agents
that call models several times a step (HoloMind's modules) a timeline of those calls."""

from __future__ import annotations

from typing import Any

from suite.contract.registry import ReportView
from suite.report.html import curve


def _calls(event: dict[str, Any]) -> list[dict[str, Any]]:
    calls = event.get("calls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _episode(record: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    panels = []
    points = [(e["index"] + 1, (e.get("info") or {}).get("gc")) for e in events if e["type"] == "step"]
    points = [(x, y) for x, y in points if isinstance(y, int | float)]
    if points:
        xs, ys = zip(*[(0, 0.0), *points], strict=True)
        panels.append(curve("checklist score curve", xs, ys, "step", "GC (share of checklist items met)"))
    timeline = [[f"step {e['index'] + 1}", f"{c.get('module')}: {c.get('verdict') or '-'}"]
                for e in events if e["type"] == "step" for c in _calls(e)]
    if timeline:
        panels.append({"kind": "kv", "title": f"module calls ({len(timeline)}), step by step", "items": timeline})
    return panels


def report_view(benchmark: str) -> ReportView:
    """The score curve and the module-call timeline under the settlement (each step's calls are in the viewer's own
    calls box, which every benchmark gets)."""
    return ReportView(benchmark, episode=_episode)
