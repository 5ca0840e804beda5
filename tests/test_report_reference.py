"""`suite report --reference`: the papers' numbers as `paper: <model>` rows in every format, never among the user's
rows or comparisons, with the difference for a model the paper reports and a caveat for other data."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from suite.cli.main import main
from suite.contract.errors import DataError
from suite.models import register_script
from suite.report import render, summarize
from suite.report.reference import add_reference, load_reference


@pytest.fixture
def gpt4o_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """An OmniEAR run of a model named like the paper's GPT-4o (a scripted one that always answers DONE)."""
    register_script("gpt-4o", lambda messages: "DONE")
    out = tmp_path / "run"
    assert main(["run", "--plugins", "omniear", "--model", "scripted/gpt-4o", "--limit", "2", "--out", str(out),
                 "--no-report", "model.cache=false"]) == 0
    capsys.readouterr()
    return out


def _report(run: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main(["report", str(run), *extra]) == 0
    return capsys.readouterr().out


def test_json_holds_the_paper_rows_apart_with_the_difference(gpt4o_run: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    report = json.loads(_report(gpt4o_run, capsys, "--format", "json", "--reference"))
    section = report["reference"]["omniear"]
    assert len(section["entries"]) == 140 and all(e["reference"] is True for e in section["entries"])
    gpt = next(e for e in section["entries"] if e["model"] == "GPT-4o" and e["column"] == "direct command")
    assert gpt["value"] == 96.6 and gpt["source"] == {
        "paper": "OmniEAR: Benchmarking Agent Reasoning in Embodied Tasks", "table": "Table 1",
        "arxiv": "2508.05614", "arxiv_version": None}
    assert section["matches"] == {"0": "GPT-4o"} and "GENERATED pack" in section["caveat"]
    manifest = json.loads((Path(report["runs"][0]["data"]["omniear"]["path"]) / "PACK.json").read_text())
    # the caveat names the pack's version: its generator, seed and data hash, from the run's metadata
    assert f"generator {manifest['generator']}" in section["caveat"]
    assert f"seed {manifest['seed']}, data sha256 {report['runs'][0]['data']['omniear']['sha256'][:12]}" \
        in section["caveat"]
    assert len(report["rows"]) == 1 and report["comparisons"] == []  # never a row of its own or a comparison
    table = report["details"]["omniear"][0]
    assert table["reference_rows"][0][:2] == ["paper: GPT-4o", "partial observability"]
    assert table["reference_rows"][0][2] == "96.6 / 12.9"
    user = dict(zip(table["columns"], table["values"][0], strict=True))
    diffs = dict(zip(table["columns"], table["reference_diff"][0], strict=True))
    paper = {e["column"]: e["value"] for e in section["entries"] if e["model"] == "GPT-4o" and e["metric"] == "success"}
    shown = [c for c, v in user.items() if isinstance(v, dict)]
    assert shown and all(diffs[c] == pytest.approx(user[c]["sr"] - paper[c]) for c in shown)


def test_every_format_shows_the_paper_rows_only_when_asked(gpt4o_run: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert "paper:" not in _report(gpt4o_run, capsys)
    table = _report(gpt4o_run, capsys, "--reference")
    assert "paper: GPT-4o" in table and "(paper -" in table and "CAVEAT omniear" in table
    assert "arXiv 2508.05614" in table
    assert "paper: GPT-4o" in _report(gpt4o_run, capsys, "--format", "md", "--reference")
    rows = list(csv.DictReader(io.StringIO(_report(gpt4o_run, capsys, "--format", "csv", "--reference"))))
    paper = [r for r in rows if r["reference"] == "True"]
    assert len(paper) == 140 and {r["ci_low"] for r in paper} == {""}  # no intervals
    assert next(r for r in paper if r["model"] == "paper: GPT-4o")["paper_value"] == "96.6"
    assert [r["model"] for r in rows if r["reference"] == "False"] == ["scripted/gpt-4o"] * 4


def test_the_config_key_turns_them_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "1", "--out", str(out),
                 "--no-report", "report.reference=true"]) == 0
    capsys.readouterr()
    assert "paper: GPT-4o" in _report(out, capsys)


def test_headline_rows_and_differences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A reference table attached to the headline gives a `paper:` row there and the difference beside the value."""
    register_script("counter-paper-model", lambda messages: "ACTION: DONE")
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--model", "scripted/counter-paper-model", "--limit", "4",
                 "--out", str(out), "--no-report", "model.cache=false"]) == 0
    capsys.readouterr()
    path = tmp_path / "reference.json"
    path.write_text(json.dumps({
        "format": "embodied-suite.reference/1", "benchmark": "counter",
        "paper": {"title": "A paper", "arxiv": "2501.00001", "arxiv_version": "v2"},
        "data": {"kind": "official", "description": "the official tasks"},
        "models": {"Counter-Paper-Model": []},
        "tables": [{"source": "Table 3", "condition": "default", "attach": "headline", "entries": [
            {"model": "Counter-Paper-Model", "metric": "success", "column": "SR", "value": 40.0},
            {"model": "Counter-Paper-Model", "metric": "steps", "column": "steps", "value": 3.5}]},
                   {"source": "Table 4", "condition": "with a helper agent", "attach": "headline", "agent": "helper",
                    "entries": [{"model": "Counter-Paper-Model", "metric": "success", "column": "SR",
                                 "value": 90.0}]}]}))
    summary = summarize(None, [out])
    host = SimpleNamespace(registry=SimpleNamespace(benchmarks={"counter": SimpleNamespace(reference=path)}, agents={}))
    summary["rows"][0]["benchmarks"]["counter"]["metrics"] = {
        "success": {"label": "SR", "percent": True, "n": 4, "small_n": True, "mean": 0.25, "ci_low": 0.0,
                    "ci_high": 0.5},
        "steps": {"label": "steps", "percent": False, "n": 4, "small_n": True, "mean": 1.0, "ci_low": 1.0,
                  "ci_high": 1.0}}
    add_reference(host, summary)
    success = summary["rows"][0]["benchmarks"]["counter"]["metrics"]["success"]
    # the Table 4 row is the helper agent's: this direct run is compared with Table 3 only
    assert success["paper"] == {"model": "Counter-Paper-Model", "condition": "default", "value": 40.0, "diff": -15.0}
    text = render(summary, "table")
    assert "paper: Counter-Paper-Model" in text and "(paper -15.0)" in text and "(paper -2.5)" in text
    assert "arXiv 2501.00001v2" in text


def test_a_broken_reference_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "reference.json"
    path.write_text(json.dumps({"format": "embodied-suite.reference/1", "benchmark": "x",
                                "paper": {"title": "t", "arxiv": None, "arxiv_version": None},
                                "data": {"kind": "official", "description": "d"}, "models": {"A": []},
                                "tables": [{"source": "T1", "condition": "c", "attach": "headline",
                                            "entries": [{"model": "B", "metric": "m", "column": "c", "value": 1}]}]}))
    with pytest.raises(DataError, match="/tables/0/entries/0/model"):
        load_reference(path)
    path.write_text(path.read_text().replace('"value": 1', '"value": "1"'))
    with pytest.raises(DataError, match="/tables/0/entries/0/value"):
        load_reference(path)


def test_no_difference_to_a_paper_run_with_other_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_script("gpt-4o", lambda messages: "DONE")
    out = tmp_path / "global"
    assert main(["run", "--plugins", "omniear", "--model", "scripted/gpt-4o", "--limit", "1", "--out", str(out),
                 "--no-report", "model.cache=false", "omniear.observation_mode=global"]) == 0
    capsys.readouterr()
    report = json.loads(_report(out, capsys, "--format", "json", "--reference"))
    section = report["reference"]["omniear"]
    assert not any(e["comparable"] for e in section["entries"])
    assert any("observation_mode=explore" in n and "observation_mode=global" in n for n in section["notes"])
    assert all(d is None for row in report["details"]["omniear"][0]["reference_diff"] for d in row)


def test_settings_outside_the_benchmark_section_and_tables_of_one_source(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A table's `config` may name a setting by its dotted path from the config's root (an agent's setting, such as
    LongAct's `agent.holomind.ablate`); two tables of one source with other settings are judged apart."""
    register_script("counter-paper-model", lambda messages: "ACTION: DONE")
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--model", "scripted/counter-paper-model", "--limit", "2",
                 "--out", str(out), "--no-report", "model.cache=false", "--seed", "3"]) == 0
    capsys.readouterr()
    path = tmp_path / "reference.json"

    def table(seed: int, value: float) -> dict:
        return {"source": "Table 4", "condition": f"seed {seed}", "attach": "headline", "config": {"run.seed": seed},
                "entries": [{"model": "Counter-Paper-Model", "metric": "success", "column": "SR", "value": value}]}

    path.write_text(json.dumps({
        "format": "embodied-suite.reference/1", "benchmark": "counter",
        "paper": {"title": "A paper", "arxiv": "2501.00001", "arxiv_version": "v2"},
        "data": {"kind": "official", "description": "the official tasks"},
        "models": {"Counter-Paper-Model": []}, "tables": [table(3, 40.0), table(9, 90.0)]}))
    summary = summarize(None, [out])
    host = SimpleNamespace(registry=SimpleNamespace(benchmarks={"counter": SimpleNamespace(reference=path)},
                                                    agents={}))
    summary["rows"][0]["benchmarks"]["counter"]["metrics"] = {
        "success": {"label": "SR", "percent": True, "n": 2, "small_n": True, "mean": 0.5, "ci_low": 0.0,
                    "ci_high": 1.0}}
    add_reference(host, summary)
    entries = summary["reference"]["counter"]["entries"]
    assert [e["comparable"] for e in entries] == [True, False]
    assert summary["rows"][0]["benchmarks"]["counter"]["metrics"]["success"]["paper"]["condition"] == "seed 3"
    assert any("run.seed=9" in n and "run.seed=3" in n for n in summary["reference"]["counter"]["notes"])
