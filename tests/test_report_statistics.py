"""The report says how its intervals were computed, marks those from too few episodes, and how tasks were sampled;
CSV and JSON carry numbers as numbers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from suite.cli.main import main


@pytest.fixture
def small_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--seed", "0", "--out", str(out),
                 "--no-report"]) == 0
    capsys.readouterr()
    return out


def _report(run: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["report", str(run), "--format", fmt]) == 0
    return capsys.readouterr().out


def test_intervals_from_few_episodes_are_marked_with_method_and_n(small_run: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    report = json.loads(_report(small_run, "json", capsys))
    success = report["rows"][0]["benchmarks"]["counter"]["metrics"]["success"]
    assert (success["n"], success["small_n"], success["ci_low"], success["ci_high"]) == (3, True, 1.0, 1.0)
    assert report["ci"] == {"method": "expanded percentile bootstrap over tasks", "resamples": 1000,
                            "confidence": 0.95, "seed": 0, "min_reliable_n": 10}
    table = _report(small_run, "table", capsys)
    assert "95% CI, expanded percentile bootstrap over tasks of 1000 resamples" in table
    assert "100.0 (n=3) [100.0, 100.0]" in table  # a zero-width interval at n = 3 does not look certain
    assert "(n=K) marks an interval over fewer than 10 tasks" in table


def test_the_report_says_how_tasks_were_sampled(small_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = _report(small_run, "table", capsys)
    assert "tasks: counter: 3 of 12 tasks (a seeded random sample: --limit 3, seed 0), 1 repeat each" in table
    assert json.loads(_report(small_run, "json", capsys))["runs"][0]["selection"]["counter"] == {
        "available": 12, "selected": 3, "limit": 3, "tasks": None, "seed": 0, "repeats": 1}


def test_csv_has_typed_columns_and_the_data_source(small_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(csv.DictReader(io.StringIO(_report(small_run, "csv", capsys))))
    assert [r["metric"] for r in rows] == ["success", "steps"]
    success = rows[0]
    assert (float(success["mean"]), float(success["ci_low"]), float(success["ci_high"]), int(success["n"])) == (
        1.0, 1.0, 1.0, 3)
    assert success["data_kind"] == "generated" and len(success["data_sha256"]) == 64
    assert success["ci_method"] == "expanded percentile bootstrap over tasks" and success["small_n"] == "True"
    assert int(success["tokens"]) == 0 and float(success["cost_usd"]) == 0.0


def test_json_detail_tables_carry_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "omniear"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "2", "--out", str(out),
                 "--no-report"]) == 0
    capsys.readouterr()
    table = json.loads(_report(out, "json", capsys))["details"]["omniear"][0]
    cells = [c for c in table["values"][0][2:] if isinstance(c, dict)]
    assert cells and all(isinstance(c["sr"], float) and isinstance(c["n"], int) for c in cells)
    assert isinstance(table["values"][0][-1], float)  # the multi-agent average
    assert isinstance(table["rows"][0][2], str)  # `rows` keeps the text as the tables show it


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json", "latex"])
def test_out_writes_the_report_in_the_chosen_format(small_run: Path, tmp_path: Path, fmt: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    printed = _report(small_run, fmt, capsys)
    out = tmp_path / f"report.{fmt}"
    assert main(["report", str(small_run), "--format", fmt, "--out", str(out)]) == 0
    streams = capsys.readouterr()
    assert streams.out == "" and f"report: {out}" in streams.err
    written = out.read_bytes().decode("utf-8")  # as written: CSV keeps its \r\n line ends
    if fmt == "table":  # plain text: the same tables, no colour codes
        assert "Headline metrics" in written and "\x1b" not in written
    else:
        assert written == printed


def test_out_that_cannot_be_written_is_refused_in_one_line(small_run: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(small_run), "--format", "csv", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert main(["report", str(small_run), "--out", str(tmp_path / "missing" / "r.txt")]) == 2
    assert "does not exist" in capsys.readouterr().err
