"""Plugins' panels in the HTML report's episode view: OmniEAR's observation diff, LongAct's score curve;
a failing view is skipped, never breaking the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.contract.registry import Registry, ReportView
from suite.report.html import observation_diff
from suite.report.html.chunks import read_episode
from suite.report.html.episodes import _step_panels
from suite_longact.report_view import report_view as longact_view
from suite_omniear.report_view import report_view as omniear_view
from suite_vigil.report_view import report_view as vigil_view


def _episode(site: Path, n: int) -> dict:
    return read_episode(site, n)


def test_omniear_steps_show_what_they_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run, site = tmp_path / "run", tmp_path / "site"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "1", "--out", str(run),
                 "--no-report"]) == 0
    assert main(["report", str(run), "--reference", "--format", "html", "--out", str(site)]) == 0
    steps = _episode(site, 0)["steps"]
    assert steps and all(s["panels"][0]["title"] == "what this step changed" for s in steps)
    assert any(line[0] == "+" for s in steps for line in s["panels"][0].get("lines", []))
    # a step whose observation text stays the same is never an empty panel: it says what the environment reported
    same = [s for s in steps if s["panels"][0]["kind"] == "text"]
    assert all(s["feedback"] in s["panels"][0]["text"] for s in same)


def test_omniear_step_without_a_text_change_shows_the_feedback() -> None:
    view = omniear_view("omniear")
    step = {"observation": "room\nbox: closed", "feedback": "SUCCESS - opened box_1"}
    (panel,) = view.step(step, {"observation": "room\nbox: closed"})
    assert panel == {"kind": "text", "title": "what this step changed",
                     "text": "no line of the observation changed; the environment reported: SUCCESS - opened box_1"}
    (panel,) = view.step({**step, "observation": "room\nbox: open"}, {"observation": "room\nbox: closed"})
    assert panel["lines"] == [["-", "box: closed"], ["+", "box: open"]]


def test_observation_diff_lists_removed_and_added_lines() -> None:
    panel = observation_diff("a\nb\nc", "a\nc\nd")
    assert panel["lines"] == [["-", "b"], ["+", "d"]]


def test_longact_curve_follows_the_checklist_score() -> None:
    events = [{"type": "start"}, {"type": "step", "index": 0, "info": {"gc": 0.25}},
              {"type": "step", "index": 1, "info": {}}, {"type": "step", "index": 2, "info": {"gc": 0.5}}]
    (panel,) = longact_view("longact").episode({}, events)
    assert (panel["kind"], panel["x"], panel["y"]) == ("curve", [0, 1, 3], [0.0, 0.25, 0.5])


def test_vigil_shows_when_the_goal_first_held_and_the_report() -> None:
    view = vigil_view("vigil")
    events = [{"type": "step", "index": 0, "info": {"goal": False}},
              {"type": "step", "index": 1, "info": {"goal": True}}]
    record = {"metrics": {"first_goal_step": 2, "report_step": 4, "status": "success", "summary": "done <b>"}}
    (panel,) = view.episode(record, events)
    items = dict(panel["items"])
    assert (items["goal first satisfied after step"], items["report_step"], items["summary"]) == (2, 4, "done <b>")
    assert view.step(events[1], events[0])[0]["text"] == "the goal holds after this step"
    assert view.step(events[1], events[1]) == []


def test_a_failing_view_is_skipped(caplog: pytest.LogCaptureFixture) -> None:
    registry = Registry(current_plugin="mine")

    def broken(step: dict, previous: dict) -> list:
        raise KeyError("observation")

    registry.add_report_view(ReportView("bench", step=broken))
    (view,) = registry.report_views["bench"]
    assert view.plugin == "mine"
    assert _step_panels([view], {}, {}) == [] and "failed" in caplog.text


def test_site_carries_every_model_call_of_a_step(tmp_path: Path) -> None:
    """A step's `calls` (an agent calling models several times, such as HoloMind's modules) reach the viewer in
    order; steps without calls carry none."""
    run, site = tmp_path / "run", tmp_path / "site"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "1", "--out", str(run),
                 "--no-report"]) == 0
    (trace,) = (run / "traces").iterdir()
    calls = [{"module": "planner", "model": "m", "messages": [0, 2], "reply": "plan", "verdict": None},
             {"module": "critic", "model": "m", "messages": [2, 3], "reply": "ok", "verdict": "accept"}]
    lines = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    first = next(e for e in lines if e["type"] == "step")
    first["calls"] = calls
    trace.write_text("".join(json.dumps(e) + "\n" for e in lines), encoding="utf-8")
    assert main(["report", str(run), "--format", "html", "--out", str(site)]) == 0
    steps = _episode(site, 0)["steps"]
    assert steps[0]["calls"] == calls and all("calls" not in s for s in steps[1:])
