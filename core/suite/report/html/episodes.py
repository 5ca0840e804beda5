"""The episode data of the HTML report: a compact index of every episode, and each episode's record and steps,
read one episode at a time from the run store (written in parts by `suite.report.html.chunks`)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from suite.contract.registry import ReportView
from suite.store.run_folder import RunStore, distinct_runs
from suite.store.traces import read_trace_messages

if TYPE_CHECKING:
    from suite.engine.host import PluginHost

log = logging.getLogger("suite.report")

#: the columns of `SUITE.index.rows` (one row per finished episode; the viewer filters on them; `files`: the data
#: files holding the episode's parts, in part order)
INDEX_COLUMNS = ["benchmark", "model", "agent", "outcome", "failure_category", "task_id", "steps", "cost_usd",
                 "episode_id", "row", "files"]


def frame_url(run_dir: Path, image: dict[str, Any], site: Path) -> dict[str, Any]:
    """An image reference of a trace as a URL relative to the site (frames stay in the run folder)."""
    path = image.get("path")
    if not path:
        return {"url": None, "label": image.get("label")}
    target = (run_dir / path).resolve()
    try:
        rel = Path(os.path.relpath(target, site.resolve())).as_posix()
    except ValueError:  # another drive: an absolute file URL
        return {"url": target.as_uri(), "label": image.get("label")}
    return {"url": quote(rel), "label": image.get("label")}


def _with_urls(panels: list[dict[str, Any]], run_dir: Path, site: Path) -> list[dict[str, Any]]:
    """Panels with their images' run-folder paths turned into URLs relative to the site."""
    for panel in panels:
        if panel.get("kind") == "images":
            panel["images"] = [frame_url(run_dir, i, site) for i in panel.get("images") or []]
    return panels


def _step_panels(views: list[ReportView], step: dict[str, Any], previous: dict[str, Any]) -> list[dict[str, Any]]:
    panels = []
    for view in views:
        if view.step is None:
            continue
        try:
            panels += view.step(step, previous)
        except Exception as exc:  # a plugin's panel never breaks the report
            log.warning("report view of %s failed on a step: %s", view.benchmark, exc)
    return panels


def episode_data(run_dir: Path, store: RunStore, record: dict[str, Any], views: list[ReportView],
                 site: Path) -> dict[str, Any]:
    """One episode for the viewer: its record, start observation, every step with its prompt (message hashes into
    `messages`, which holds each distinct message once), reply, action, feedback, usage and frames, the
    settlement, and the plugin's panels (views get the trace's events with prompts by hash)."""
    path = store.trace_path(record["episode_id"])
    events, texts = read_trace_messages(path) if path.is_file() else ([], {})
    start = next((e for e in events if e["type"] == "start"), {})
    end = next((e for e in events if e["type"] == "end"), {})
    steps, previous = [], start
    for event in (e for e in events if e["type"] == "step"):
        steps.append({
            "index": event.get("index"), "prompt": event.get("prompt"), "messages": event.get("messages"),
            "reply": event.get("reply"),
            "action": event.get("action"), "feedback": event.get("feedback"), "done": event.get("done"),
            "usage": event.get("usage"), "agent_s": event.get("agent_s"), "env_s": event.get("env_s"),
            "note": event.get("note"), "info": event.get("info"), "observation": event.get("observation"),
            "images": [frame_url(run_dir, i, site) for i in event.get("images") or []],
            "panels": _with_urls(_step_panels(views, event, previous), run_dir, site),
            **({"calls": event["calls"]} if event.get("calls") else {}),  # an agent's several model calls
        })
        previous = event
    panels = []
    for view in views:
        if view.episode is not None:
            try:
                panels += view.episode(record, events)
            except Exception as exc:
                log.warning("report view of %s failed on %s: %s", view.benchmark, record["episode_id"], exc)
    return {
        "record": record, "run": str(run_dir), "trace_found": path.is_file(),
        "messages": {key: json.loads(text) for key, text in texts.items()},
        "start": {"observation": start.get("observation"), "category": start.get("category"),
                  "max_steps": start.get("max_steps"),
                  "images": [frame_url(run_dir, i, site) for i in start.get("images") or []]},
        "steps": steps,
        "end": {k: end.get(k) for k in ("end_reason", "error", "settlement", "duration_s")},
        "panels": _with_urls(panels, run_dir, site),
    }


def run_rows(summary: dict[str, Any]) -> dict[str, int]:
    """The report row of each run folder (by its path as the summary names it)."""
    rows = {}
    for i, row in enumerate(summary["rows"]):
        for run in row.get("runs", []):
            rows[summary["runs"][run]["path"]] = i
    return rows


def iter_episodes(host: PluginHost | None, summary: dict[str, Any], run_dirs: list[Path], site: Path):
    """(index row, episode data) for every finished episode of the runs, in run order."""
    views = host.registry.report_views if host else {}
    rows = run_rows(summary)
    for run_dir in distinct_runs(run_dirs):
        store = RunStore(run_dir)
        try:
            row = rows.get(str(run_dir), -1)
            for record in store.iter_records():
                label = summary["rows"][row] if row >= 0 else {}
                agent = record["agent"] + (f" ({label['label']})" if label.get("label") else "")
                index = [record["benchmark"], record.get("model"), agent, record["outcome"],
                         record.get("failure_category"), record["task_id"], record["steps"], record["cost_usd"],
                         record["episode_id"], row]
                yield index, episode_data(run_dir, store, record, views.get(record["benchmark"], []), site)
        finally:
            store.close()
