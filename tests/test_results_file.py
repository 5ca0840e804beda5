"""Every run folder holds results.json: the report's JSON object, current while episodes finish and at the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite.cli.main import main


def test_results_json_equals_the_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The file written at the end is the object `suite report RUN --format json` prints."""
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--out", str(out),
                 "--no-report"]) == 0
    written = json.loads((out / "results.json").read_text())
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert written == json.loads(capsys.readouterr().out)
    assert written["rows"][0]["benchmarks"]["counter"]["episodes"] == 3


def test_results_json_is_kept_current_while_episodes_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `report.results_every_s=0` the file is rewritten after every episode, so a run cut short has one."""
    from suite.report import results_file as results

    seen: list[int] = []
    original = results.ResultsFile.write

    def counting(self: results.ResultsFile) -> Path | None:
        path = original(self)
        seen.append(json.loads(path.read_text())["rows"][0]["benchmarks"]["counter"]["episodes"])
        return path

    monkeypatch.setattr(results.ResultsFile, "write", counting)
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "3", "--out", str(out),
                 "--no-report", "--concurrency", "1", "report.results_every_s=0"]) == 0
    assert seen == [1, 2, 3, 3]
