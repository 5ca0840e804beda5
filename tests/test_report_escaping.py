"""Text from users, models and data files is shown literally in every report format and in `suite runs`."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from suite.cli.main import main
from suite.report import render

LABEL = "[link=https://evil.example]x[/link]|<img src=y onerror=alert(1)>[bold]b[/bold]"


@pytest.fixture
def labelled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--label", LABEL,
                 "--out", str(out), "--no-report"]) == 0
    capsys.readouterr()
    return out


def test_terminal_tables_print_labels_literally(labelled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = json.loads(_report(labelled, "json", capsys))
    console = Console(file=io.StringIO(), width=400, color_system="truecolor", force_terminal=True)
    render(summary, "table", console)
    raw = console.file.getvalue()
    assert "\x1b]8;" not in raw  # no terminal hyperlink
    plain = render(summary, "table")
    assert "[link=https://evil.example]x[/link]" in plain and "[bold]b[/bold]" in plain


def test_runs_list_prints_labels_literally(labelled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", str(labelled.parent)]) == 0
    cells = "".join(capsys.readouterr().out.replace("│", " ").split())  # the label may fold over lines
    assert "[link=https://evil.example]x[/link]" in cells and "[bold]b[/bold]" in cells


def test_markdown_escapes_pipes_and_html(labelled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _report(labelled, "md", capsys)
    headline = text.split("### Headline", 1)[1].split("###", 1)[0]
    header, _, row = headline.strip().splitlines()[1:4]
    assert row.count(" | ") == header.count(" | ")  # the label's `|` adds no column
    assert not re.search(r"(?<!\\)[<>]", text) and "\\<img" in text and "\\[link=" in text


def test_csv_fields_cannot_run_as_formulas() -> None:
    from suite.report.escape import csv_value, markdown

    assert csv_value("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert csv_value("-1.5") == "-1.5" and csv_value(0.25) == 0.25 and csv_value(None) == ""
    assert markdown("a|b\nc") == "a\\|b c"


def test_csv_report_keeps_the_label_in_one_field(labelled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(csv.DictReader(io.StringIO(_report(labelled, "csv", capsys))))
    assert {r["label"] for r in rows} == {LABEL}


def _report(run: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["report", str(run), "--format", fmt]) == 0
    return capsys.readouterr().out
