"""`suite export`: every finished episode of one or more runs as JSON Lines or CSV."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.store.run_folder import RunStore


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    roots = [tmp_path / "a", tmp_path / "b"]
    for root, limit in zip(roots, ("3", "2"), strict=True):
        assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", limit, "--out", str(root),
                     "--no-report"]) == 0
    return roots


def test_jsonl_holds_each_stored_record_with_its_run(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["export", *map(str, runs)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    expected = [{"run": str(root), **rec} for root in runs for rec in RunStore(root).records()]
    assert lines == expected and len(lines) == 5


def test_csv_has_one_column_per_metric_and_writes_to_a_file(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "episodes.csv"
    assert main(["export", str(runs[0]), "--format", "csv", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    records = RunStore(runs[0]).records()
    assert [r["episode_id"] for r in rows] == [r["episode_id"] for r in records]
    assert list(rows[0])[:3] == ["run", "episode_id", "benchmark"]
    for row, rec in zip(rows, records, strict=True):
        assert row["outcome"] == rec["outcome"] and row["steps"] == str(rec["steps"])
        assert {k.removeprefix("metric."): v for k, v in row.items() if k.startswith("metric.")} == {
            k: str(v) for k, v in rec["metrics"].items()}
        assert row["failure_reason"] == ""  # None is an empty cell


def test_a_folder_named_twice_is_exported_once(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["export", str(runs[0]), str(runs[0] / ".." / runs[0].name)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
