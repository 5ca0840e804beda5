"""The paper numbers Vigil ships as reference rows are Table 11 and the prose numbers as the spec read them (none it
marks as inferred or derived): the aggregate ones, the per-family cells the text states, and the +FB deltas."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from suite.report.reference import load_reference
from suite.testing.reference import markdown_table

SPEC = Path(__file__).resolve().parents[3] / ".." / "shared" / "specs" / "vigil.md"
PAPER = Path(__file__).resolve().parents[3] / ".." / "shared" / "seeds" / "000_218613d15521be76.txt"
REFERENCE = Path(__file__).resolve().parents[1] / "suite_vigil" / "reference.json"
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
    shipped = _shipped("Section 4 (")
    assert shipped == expected and ("Gemini-3.1-Pro", "W") in shipped and ("Gemini-3.1-Pro", "B") not in shipped
    assert ("Qwen3.6-27B (thinking)", "Δ") not in shipped  # derived by the spec


def test_the_issue_example_matches() -> None:
    from suite.report.reference import paper_model

    assert paper_model(load_reference(REFERENCE), "gemini/gemini-3.1-pro-preview") == "Gemini-3.1-Pro"


def test_a_run_of_the_papers_model_shows_its_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from suite.cli.main import main
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


def _other(head: str) -> dict[str, str]:
    """The cells of each row of a spec table joined (the "Other" column may hold an escaped `|`), by model."""
    _, rows = markdown_table(SPEC, head)
    return {r[0].rstrip("†"): " | ".join(r[1:]) for r in rows}


def test_per_family_cells_as_the_spec_quotes_them() -> None:
    expected = {}
    for model, other in _other("| Model (serving) | W | B |").items():
        for family, w, b in re.findall(r"(SV|AI) W ([\d.]+) (?:→|/) B ([\d.]+)", other):
            expected[(model, family)] = (float(w), float(b))
    tables = [t for t in load_reference(REFERENCE)["tables"] if t["source"].startswith("Section 4.2")]
    shipped: dict[tuple[str, str], dict[str, float]] = {}
    for e in tables[0]["entries"]:
        shipped.setdefault((e["model"], e["column"]), {})[e["metric"]] = e["value"]
    assert {k: (v["W"], v["B"]) for k, v in shipped.items()} == expected
    assert expected[("Claude-Sonnet-4", "SV")] == (73.6, 45.6) and expected[("Qwen3.6-27B (thinking)", "AI")] == (
        54.4, 28.8)
    assert tables[0]["attach"] == "Vigil W/B (%) per family"


def test_feedback_deltas_as_the_spec_reads_them() -> None:
    head, rows = markdown_table(SPEC, "| Model | ΔW | ΔB | ΔFR | ΔNR |")
    expected = {}
    for r in rows:
        if "," in r[0]:  # a group of models with a range: no single number
            continue
        for h, c in zip(head[1:5], r[1:5], strict=True):
            found = re.fullmatch(r"([+−-]?\d+(?:\.\d+)?)(?: \(.*\))?", c.strip())
            if found:  # the spec's +FB table names Qwen3.6-27B without its serving mode
                model = "Qwen3.6-27B (thinking)" if r[0] == "Qwen3.6-27B" else r[0]
                expected[(model, h)] = float(found.group(1).replace("−", "-"))
    shipped = _shipped("Section 4.3 (prose;")
    assert shipped == expected and shipped[("Claude-Sonnet-4", "ΔFR")] == -23


def test_the_feedback_pairs_absolute_numbers() -> None:
    other = _other("| Model | ΔW | ΔB | ΔFR | ΔNR |")
    steps = re.search(r"mean steps ([\d.]+) → ([\d.]+)", other["Claude-Sonnet-4"]).groups()
    blocked = re.search(r"path_blocked ([\d.]+) → ([\d.]+)", other["InternVL3.5-38B"]).groups()
    assert (_shipped("Section 4.3 (prose), the base run")[("Claude-Sonnet-4", "steps")],
            _shipped("Section 4.3 (prose), the +FB run")[("Claude-Sonnet-4", "steps")]) == tuple(map(float, steps))
    assert (_shipped("Section 4.3 (prose), path_blocked per episode in the base")[("InternVL3.5-38B", "path_blocked")],
            _shipped("Section 4.3 (prose), path_blocked per episode in the +FB")[("InternVL3.5-38B", "path_blocked")]
            ) == tuple(map(float, blocked))


def test_every_new_number_is_in_the_papers_text() -> None:
    if not PAPER.is_file():
        pytest.skip("../shared/seeds is not present")
    text = PAPER.read_text().replace("\\", "")
    for t in load_reference(REFERENCE)["tables"]:
        if t["source"].startswith("Section 4.") and not t["source"].startswith("Section 4 ("):
            for e in t["entries"]:
                assert f"{abs(e['value'])}" in text, (t["source"], e)


def test_the_appendix_and_closure_numbers_are_the_papers_words() -> None:
    """Each number added in round three stands in the paper's text as shipped (the copy's escapes removed)."""
    if not PAPER.is_file():
        pytest.skip("../shared/seeds is not present")
    text = PAPER.read_text(encoding="utf-8").replace("\\", "")
    words = {
        ("RoboBrain2.5-4B", "SV"): ("W = 94.4% on SV", [94.4, 0.0]),
        ("InternVL3.5-38B", "W+"): ("201 NR episodes among its 399", [399]),
        ("InternVL3.5-38B", "NR (W=1)"): ("201 NR episodes among its 399", [201]),
        ("Gemini-3.1-Pro", "NR (W=1)"): ("low NR count (4 episodes)", [4]),
        ("Qwen3-VL-32B (Instruct)", "always-success − B"): ("(+10.0 pp)", [10.0]),
        ("InternVL3.5-38B", "always-success − B"): ("(+11.7 pp)", [11.7]),
        ("Qwen3-VL-8B (Instruct)", "Δ"): ("1.3vs. 1.5 pp", [1.3, 1.5]),
        ("Qwen3-VL-32B (Instruct)", "Δ"): ("Delta=19.6pm 0.7", [20.3, 19.6]),
        ("InternVL3.5-38B", "NR"): ("68.2% NR vs. 66.1%", [66.1, 68.2, 66.2]),
        ("Qwen3-VL-32B (Instruct)", "NR"): ("NR = 45.0", [44.6, 45.0]),
    }
    shipped: dict[tuple[str, str], list[float]] = {}
    for table in load_reference(REFERENCE)["tables"]:
        for e in table["entries"]:
            shipped.setdefault((e["model"], e["column"]), []).append(e["value"])
    for key, (phrase, values) in words.items():
        assert phrase in text, phrase
        assert sorted(shipped[key]) == sorted(values), (key, shipped[key])
