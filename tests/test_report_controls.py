"""Control characters in a label or a model name (ANSI colours, OSC-8 hyperlinks, BEL, C1, DEL) reach no output as
bytes: `suite report` in every format, `suite runs`, `suite export`, the end-of-run report and warnings show them
as `\\xNN` escapes."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from suite.cli.main import main
from suite.contract.controls import visible
from suite.report import render
from suite.store.run_folder import RunStore

#: red text, a terminal hyperlink, a bell, a C1 CSI, DEL and a carriage return
PAYLOAD = "\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x07 bell\x07 c1\x9b2J del\x7f cr\r!"
MODEL = "scripted/\x1b]0;title\x07m\x1b[2J"
#: any control character but a line break or a tab
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _clean(text: str) -> None:
    text = text.replace("\r\n", "\n")  # a CSV's row ends (RFC 4180)
    assert not CONTROL.search(text), repr(CONTROL.search(text).group())
    assert "\\x1b" in text or "\\u001b" in text  # the escape shown (JSON: as its \u escape)


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """An oracle run labelled with the payload, then given a model name that carries escapes."""
    out = tmp_path / "run"
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--label", PAYLOAD,
                 "--out", str(out)]) == 0
    captured = capsys.readouterr()
    for text in captured:  # the end-of-run report and every message of the run
        assert not CONTROL.search(text), repr(text)
    assert visible(PAYLOAD) in "".join(captured.out.replace("│", " ").split()).replace(" ", "") or \
        "\\x1b[31mred" in captured.out
    store = RunStore(out)
    store.set_meta(model=MODEL)
    store.db.execute("UPDATE episodes SET record = json_set(record, '$.failure_reason', ?)", (PAYLOAD,))
    store.close()
    return out


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
def test_every_report_format_shows_control_characters_as_escapes(run: Path, fmt: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run), "--format", fmt]) == 0
    out, err = capsys.readouterr()
    _clean(out)
    assert not CONTROL.search(err)
    if fmt == "csv":
        (row, *_) = list(csv.DictReader(io.StringIO(out)))
        assert row["label"] == visible(PAYLOAD) and row["model"] == visible(MODEL)
    if fmt == "json":  # JSON keeps the text exactly, as \u escapes
        assert json.loads(out)["rows"][0]["label"] == PAYLOAD


def test_a_colour_terminal_gets_no_escape_from_the_payload(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    console = Console(file=io.StringIO(), width=400, color_system="truecolor", force_terminal=True)
    render(summary, "table", console)
    raw = console.file.getvalue()
    for sequence in ("\x1b]8;", "\x1b]0;", "\x1b[31m", "\x1b[2J", "\x07", "\x9b", "\x7f", "\r"):
        assert sequence not in raw, repr(sequence)


def test_runs_list_and_export_show_control_characters_as_escapes(run: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", str(run.parent)]) == 0
    _clean(capsys.readouterr().out)
    assert main(["export", str(run), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    _clean(out)
    assert {r["failure_reason"] for r in csv.DictReader(io.StringIO(out))} == {visible(PAYLOAD)}
    assert main(["export", str(run)]) == 0  # JSON Lines: every control character as a \u escape
    out = capsys.readouterr().out
    _clean(out)
    assert {json.loads(line)["failure_reason"] for line in out.splitlines()} == {PAYLOAD}


def test_messages_and_warnings_show_control_characters_as_escapes(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    from suite.launch.consoles import err_console

    err_console.print(f"run folder: {PAYLOAD}", highlight=False)
    assert main(["report", str(tmp_path / PAYLOAD.replace("/", "_"))]) != 0  # names the missing folder
    err = capsys.readouterr().err
    assert not CONTROL.search(err) and visible("\x1b[31mred") in err


def test_visible_keeps_text_and_escapes_each_control_character() -> None:
    assert visible("a\tb\nc") == "a\tb\nc" and visible("a\tb\nc", lines=False) == "a\\x09b\\x0ac"
    assert visible("\x00\x1b\x7f\x85\x9f é ✓") == "\\x00\\x1b\\x7f\\x85\\x9f é ✓"
