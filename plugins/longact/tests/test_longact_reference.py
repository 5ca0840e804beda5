"""The paper numbers LongAct ships as reference rows are Tables 1 and 2 as the spec read them."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.report.reference import load_reference
from suite.testing.reference import markdown_table
from suite_longact.scoring import TABLE1, TABLE2

SPEC = Path(__file__).resolve().parents[3] / ".." / "shared" / "specs" / "longact.md"
REFERENCE = Path(__file__).resolve().parents[1] / "suite_longact" / "reference.json"
AGENTS = {"Pure VLM": "direct", "HoloMind": "holomind"}


def _number(cell: str) -> float:
    return float(cell.replace("**", "").replace("−", "-"))


def _shipped(source: str, attach: str) -> dict[tuple[str, str, str], float]:
    tables = load_reference(REFERENCE)["tables"]
    return {(t["agent"], e["model"], e["column"]): e["value"] for t in tables
            if t["source"] == source and t["attach"].startswith(attach) for e in t["entries"]}


def _headline(layout: dict[tuple[str, str, str], float]) -> dict[tuple[str, str, str], float]:
    """The layout table's headline columns under the headline metrics' labels."""
    return {(a, m, {"GC Avg": "GC"}.get(c, c)): v for (a, m, c), v in layout.items()
            if c in ("GC Avg", "SR", "Nav", "Manip", "IR")}


@pytest.fixture(autouse=True)
def _spec() -> None:
    if not SPEC.is_file():
        pytest.skip("../shared/specs is not present")


def test_table_1_headline_and_layout_rows_are_the_specs() -> None:
    head, rows = markdown_table(SPEC, "| Setting | Model | GC Avg |")
    expected = {(AGENTS[r[0].rstrip("†")], r[1], h.rstrip(".")): _number(c) for r in rows
                for h, c in zip(head[2:], r[2:], strict=True)}
    assert len(expected) == 7 * 9 and _shipped("Table 1", "LongAct Table 1") == expected
    assert _shipped("Table 1", "headline") == _headline(expected)


def test_table_2_rows_are_the_specs() -> None:
    head, rows = markdown_table(SPEC, "| Model | GC Avg | PP | TO | Sl. | CK |")
    expected = {("holomind" if r[0].startswith("+") else "direct", "Qwen3-VL-32B", h.rstrip(".")): _number(c)
                for r in rows for h, c in zip(head[1:], r[1:], strict=True)}
    assert _shipped("Table 2", "LongAct Table 2") == expected
    assert _shipped("Table 2", "headline") == _headline(expected)


def test_the_columns_are_the_detail_tables() -> None:
    assert {c for (_, _, c) in _shipped("Table 1", "LongAct Table 1")} == {"GC Avg", *TABLE1, "SR", "Nav", "Manip",
                                                                          "IR"}
    assert {c for (_, _, c) in _shipped("Table 2", "LongAct Table 2")} == {"GC Avg", *TABLE2, "SR", "Nav", "Manip",
                                                                          "IR"}


def test_table_4_removal_rows_are_the_specs_under_the_ablate_setting() -> None:
    head, rows = markdown_table(SPEC, "| Method | GC | SR | Steps | IR |")
    removed = {"− HighPlanner": "high_planner", "− EpisMem": "episodic_memory", "− Critic": "critic"}
    tables = {t["config"]["agent.holomind.ablate"]: t for t in load_reference(REFERENCE)["tables"]
              if t["source"] == "Table 4" and t["agent"] == "holomind"}
    assert set(tables) == set(removed.values())
    assert sum(row[0] in removed for row in rows) == 3
    for row in rows[:5]:
        if row[0] not in removed:
            continue
        t = tables[removed[row[0]]]
        nav, manip = row[3].split("/")
        assert {e["column"]: e["value"] for e in t["entries"]} == {
            "GC": float(row[1]), "SR": float(row[2]), "Nav": float(nav), "Manip": float(manip), "IR": float(row[4])}
        assert t["agent"] == "holomind" and t["config"]["split"] == "detailed" and "107" in t["note"]
    for t in load_reference(REFERENCE)["tables"]:
        if t["agent"] == "holomind" and t["source"] != "Table 4":
            assert t["config"]["agent.holomind.ablate"] is None  # the full agent's rows
        assert "300" in t["note"] or "107" in t["note"]  # the paper's episode count beside every row


def _rows_of(title: str) -> list[list[str]]:
    """The spec's markdown table under the heading line that names `title`."""
    lines = SPEC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if title in line)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]


def _values(row: list[str]) -> dict[str, float]:
    nav, manip = row[3].split("/")
    return {"GC": float(row[1]), "SR": float(row[2]), "Nav": float(nav), "Manip": float(manip), "IR": float(row[4])}


def test_table_5_upgrade_rows_and_the_human_tester_are_the_specs() -> None:
    """Table 5: the all-8B base and one module at a time upgraded to 32B, each under its module's model setting;
    Table 4's human tester as its own row (agent human-tester, never matched to a run of the suite's agents)."""
    tables = [t for t in load_reference(REFERENCE)["tables"] if t["source"] == "Table 5"]
    upgraded = {next((k.split(".")[3] for k in t["config"] if k.endswith(".model")), "base"): t for t in tables}
    names = {"Qwen3-VL-8B": "base", "+ HighPlanner↑": "high_planner", "+ LowPlanner↑": "low_planner",
             "+ Critic↑": "critic", "+ Executor↑": "executor"}
    rows = {r[0]: r for r in _rows_of("**Table 5.")}
    assert set(upgraded) == set(names.values())
    for label, key in names.items():
        assert {e["column"]: e["value"] for e in upgraded[key]["entries"]} == _values(rows[label])
        assert {e["model"] for e in upgraded[key]["entries"]} == {"Qwen3-VL-8B"}
    human = next(t for t in load_reference(REFERENCE)["tables"] if t["agent"] == "human-tester")
    assert {e["column"]: e["value"] for e in human["entries"]} == _values(
        next(r for r in _rows_of("**Table 4.") if r[0] == "Human-tester"))
