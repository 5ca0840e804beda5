"""The paper numbers Vigil ships as reference rows are Table 11 and the prose numbers as the spec read them (none it
marks as inferred or derived)."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.report.reference import load_reference
from suite.testing.reference import markdown_table

SPEC = Path(__file__).resolve().parents[3] / ".." / "shared" / "specs" / "vigil.md"
REFERENCE = Path(__file__).resolve().parents[1] / "reference.json"
COLUMNS = {"B": "B", "W": "W", "Δ": "Δ", "Δ=W−B": "Δ", "FR": "FR", "NR": "NR", "IL": "IL", "Steps": "steps"}


def _shipped(source: str) -> dict[tuple[str, str], float]:
    tables = load_reference(REFERENCE)["tables"]
    return {(e["model"], e["column"]): e["value"] for t in tables if t["source"].startswith(source)
            for e in t["entries"]}


@pytest.fixture(autouse=True)
def _spec() -> None:
    if not SPEC.is_file():
        pytest.skip("../shared/specs is not present")


def test_table_11_as_read() -> None:
    head, rows = markdown_table(SPEC, "| Model | B | W | Δ |")
    expected = {(r[0], COLUMNS[h]): float(c) for r in rows if r[1] for h, c in zip(head[1:], r[1:], strict=True)}
    assert len(expected) == 8 * 7 and _shipped("Table 11") == expected


def test_prose_numbers_leave_out_the_inferred_and_derived() -> None:
    head, rows = markdown_table(SPEC, "| Model (serving) | W | B |")
    expected = {}
    for r in rows:
        for h, c in zip(head[1:6], r[1:6], strict=True):
            try:
                expected[(r[0].rstrip("†"), COLUMNS[h])] = float(c)
            except ValueError:  # "–", "≈…, inferred", "8.9 (derived)", quoted words
                continue
    shipped = _shipped("Section 4")
    assert shipped == expected and ("Gemini-3.1-Pro", "W") in shipped and ("Gemini-3.1-Pro", "B") not in shipped
    assert ("Qwen3.6-27B (thinking)", "Δ") not in shipped  # derived by the spec


def test_the_issue_example_matches() -> None:
    from suite.report.reference import paper_model

    assert paper_model(load_reference(REFERENCE), "gemini/gemini-3.1-pro-preview") == "Gemini-3.1-Pro"


def test_a_run_of_the_papers_model_shows_its_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from suite.cli import main
    from suite.models import register_script

    register_script("gemini-3.1-pro-preview", lambda messages: "report(status=success)")
    out = tmp_path / "run"
    assert main(["run", "--plugins", "vigil", "--model", "scripted/gemini-3.1-pro-preview", "--limit", "1", "--out",
                 str(out), "--no-report", "model.cache=false"]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--reference", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    w = report["rows"][0]["benchmarks"]["vigil"]["metrics"]["W"]
    assert w["paper"]["model"] == "Gemini-3.1-Pro" and w["paper"]["value"] == 57.7
    assert w["paper"]["diff"] == pytest.approx(100 * w["mean"] - 57.7)
    assert "GENERATED pack" in report["reference"]["vigil"]["caveat"]
