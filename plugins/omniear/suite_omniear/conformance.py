"""Replay golden reference traces through OmniSim and measure agreement field by field."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from suite_omniear.data import AttributeTable, EvalTask, find_attribute_table, load_attribute_table, load_task
from suite_omniear.sim import OmniSim
from suite_omniear.sim.render import AGENTS_HEADER, ROOMS_HEADER

FIELDS = ("status", "message", "checks_passed", "task_success", "observation", "available_actions")
TRUNCATE = 240
_SOURCE = re.compile(r"(.*?\(ID: [^)]*\))(?:, |$)")


def read_traces(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield the records of a JSON Lines trace file."""
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def expected_observations(record: dict[str, Any]) -> list[str | None]:
    """Per step, the recorded observation (full text, or rebuilt from the line patch), else None."""
    out: list[str | None] = []
    previous: str | None = None
    for step in record["steps"]:
        current: str | None = None
        if "observation" in step:
            current = step["observation"]
        elif "observation_patch" in step and previous is not None:
            lines = previous.split("\n")
            for start, end, new in reversed(step["observation_patch"]):
                lines[start:end] = new
            current = "\n".join(lines)
        out.append(current)
        previous = current
    return out


def _canonical_source_line(line: str) -> str:
    head, sep, sources = line.partition(", Source: ")
    if not sep:
        return line
    return head + sep + ", ".join(sorted(m for m in _SOURCE.findall(sources) if m))


def canonical_observation(text: str) -> list[str]:
    """Observation lines with room blocks sorted (set order upstream) and ability sources sorted."""
    lines = text.split("\n")
    try:
        rooms_at, agents_at = lines.index(ROOMS_HEADER), lines.index(AGENTS_HEADER)
    except ValueError:
        return lines
    blocks: list[list[str]] = [[]]
    for line in lines[rooms_at + 1 : agents_at]:
        if line == "":
            blocks.append([])
        else:
            blocks[-1].append(line)
    rooms = sorted("\n".join(b) for b in blocks if b)
    tail = [_canonical_source_line(line) for line in lines[agents_at:]]
    return lines[: rooms_at + 1] + [line for room in rooms for line in (*room.split("\n"), "")] + tail


def first_difference(expected: str, got: str, canonical: bool = True) -> tuple[str, str]:
    """The first differing line of two texts (observations canonicalized), with its line number."""
    exp = canonical_observation(expected) if canonical else expected.split("\n")
    act = canonical_observation(got) if canonical else got.split("\n")
    for index in range(max(len(exp), len(act))):
        e = exp[index] if index < len(exp) else "<end>"
        g = act[index] if index < len(act) else "<end>"
        if e != g:
            return f"line {index}: {e}", f"line {index}: {g}"
    return "<identical>", "<identical>"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= TRUNCATE else text[:TRUNCATE] + "..."


def _tally() -> dict[str, dict[str, int]]:
    return {f: {"agree": 0, "total": 0} for f in FIELDS}


class _Replay:
    """Compares one trajectory; remembers the first mismatch."""

    def __init__(self, record: dict[str, Any], tallies: list[dict[str, dict[str, int]]]) -> None:
        self.record = record
        self.tallies = tallies
        self.first: dict[str, Any] | None = None

    def compare(self, field: str, step: int, expected: Any, got: Any, same: bool | None = None) -> None:
        agree = (expected == got) if same is None else same
        for tally in self.tallies:
            tally[field]["total"] += 1
            tally[field]["agree"] += int(agree)
        if not agree and self.first is None:
            if field in ("observation", "available_actions"):
                expected, got = first_difference(expected, got, field == "observation")
            self.first = {
                "task_file": self.record["task_file"],
                "kind": self.record["kind"],
                "observation_mode": self.record["observation_mode"],
                "step": step,
                "field": field,
                "expected": _short(expected),
                "got": _short(got),
            }


def _results(outcome: Any, multi: bool) -> tuple[dict[str, str], dict[str, str]]:
    status = {a: r.status for a, r in outcome.results.items()}
    message = {a: r.message for a, r in outcome.results.items()}
    if multi:
        status["overall"], message["overall"] = outcome.overall.status, outcome.overall.message
    return status, message


def replay_record(
    record: dict[str, Any], task: EvalTask, table: AttributeTable, tallies: list[dict[str, dict[str, int]]]
) -> dict[str, Any] | None:
    """Replay one trajectory, adding to the tallies; return its first mismatch or None."""
    sim = OmniSim.from_eval_task(task, table, record["observation_mode"])
    replay = _Replay(record, tallies)
    replay.compare(
        "observation",
        0,
        record["initial_observation"],
        sim.observation(),
        canonical_observation(record["initial_observation"]) == canonical_observation(sim.observation()),
    )
    actions = record["initial_available_actions"]
    replay.compare("available_actions", 0, actions, sim.available_actions())
    replay.compare("checks_passed", 0, record["initial_checks_passed"], list(sim.checks_passed()))
    multi = len(task.task.agents) > 1
    for step, expected_obs in zip(record["steps"], expected_observations(record), strict=True):
        n = step["step"]
        outcome = sim.step(step["commands"])
        status, message = _results(outcome, multi)
        exp_status = {a: r["status"] for a, r in step["results"].items()}
        exp_message = {a: r["message"] for a, r in step["results"].items()}
        if multi:
            exp_status["overall"], exp_message["overall"] = (
                step["overall"]["status"],
                step["overall"]["message"],
            )
        replay.compare("status", n, exp_status, status)
        replay.compare("message", n, exp_message, message)
        replay.compare("checks_passed", n, step["checks_passed"], list(outcome.checks_passed))
        replay.compare("task_success", n, step["task_success"], outcome.task_success)
        if expected_obs is not None:
            got = sim.observation()
            replay.compare(
                "observation",
                n,
                expected_obs,
                got,
                expected_obs == got or canonical_observation(expected_obs) == canonical_observation(got),
            )
        actions = step.get("available_actions", actions)
        replay.compare("available_actions", n, actions, sim.available_actions())
    return replay.first


def run_conformance(
    traces: str | Path, data_dir: str | Path, categories: Iterable[str] | None = None
) -> dict:
    """Replay every trajectory of a golden trace file and report agreement per field and per category."""
    data_dir = Path(data_dir)
    table = load_attribute_table(find_attribute_table(data_dir))
    wanted = set(categories) if categories is not None else None
    totals = _tally()
    per_category: dict[str, dict[str, dict[str, int]]] = {}
    mismatches: list[dict[str, Any]] = []
    tasks: dict[str, EvalTask] = {}
    counts: Counter[str] = Counter()
    for record in read_traces(traces):
        category = record["task_category"]
        if wanted is not None and category not in wanted:
            continue
        task_file = record["task_file"]
        if task_file not in tasks:
            split, _, name = task_file.split("/")
            tasks[task_file] = load_task(data_dir, split, name.split("_")[0])
        tallies = [totals, per_category.setdefault(category, _tally())]
        first = replay_record(record, tasks[task_file], table, tallies)
        counts["trajectories"] += 1
        counts["steps"] += len(record["steps"])
        if first is not None:
            mismatches.append(first)
    return {
        "traces": str(traces),
        "trajectories": counts["trajectories"],
        "steps": counts["steps"],
        **totals,
        "per_category": dict(sorted(per_category.items())),
        "mismatches": mismatches,
    }


def format_conformance(result: dict) -> str:
    """A human-readable summary of a conformance result."""
    lines = [f"{result['traces']}: {result['trajectories']} trajectories, {result['steps']} steps"]
    for field in FIELDS:
        tally = result[field]
        rate = tally["agree"] / tally["total"] if tally["total"] else 1.0
        lines.append(f"  {field:<18} {tally['agree']:>6}/{tally['total']:<6} {rate:7.2%}")
    for mismatch in result["mismatches"][:20]:
        lines.append(
            f"  MISMATCH {mismatch['task_file']} {mismatch['kind']} step {mismatch['step']} "
            f"{mismatch['field']}: expected {mismatch['expected']!r} got {mismatch['got']!r}"
        )
    if len(result["mismatches"]) > 20:
        lines.append(f"  ... {len(result['mismatches']) - 20} more mismatching trajectories")
    return "\n".join(lines)
