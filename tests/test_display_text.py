"""Names and labels print as they are, CJK and emoji included; only what can drive a terminal or reorder the text
around it (control characters, a line break in a one-line name, bidi overrides and isolates) is escaped (issue 36
item 10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.cli.main import main
from suite.contract.controls import visible

LABEL = "模型🚀\nx\u202eabc"
SHOWN = "模型🚀\\x0ax\\u202eabc"  # one line; the override shown, so `abc` is not drawn right to left


def test_printable_unicode_is_kept_and_what_reorders_text_is_escaped() -> None:
    assert visible("名前 🚀 émigré ﷺ") == "名前 🚀 émigré ﷺ"
    shown = visible("a\u202eb\u2066c\u2069d\u200fe\u2028f\x1b[2Jg")
    assert shown == "a\\u202eb\\u2066c\\u2069d\\u200fe\\u2028f\\x1b[2Jg"
    assert visible("a\nb\tc") == "a\nb\tc" and visible("a\nb\tc", lines=False) == "a\\x0ab\\x09c"


def test_runs_and_report_show_a_label_and_a_run_name_on_one_line_as_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs" / "名前🚀"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "1", "--label", LABEL,
                 "--out", str(out), "--no-report"]) == 0
    capsys.readouterr()
    assert main(["runs", str(tmp_path / "runs")]) == 0
    listed = capsys.readouterr().out
    row = next(line for line in listed.splitlines() if "/名前🚀 " in line)  # the name whole, on the row's line
    assert SHOWN in row and "\u202e" not in listed and "complete" in row
    assert main(["report", str(out)]) == 0
    table = capsys.readouterr().out
    assert f"({SHOWN})" in table  # the agent cell: `oracle (label)`
    assert "\u202e" not in table and "\\u6a21" not in table
