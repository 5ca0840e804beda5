"""Text from users, models and data files made inert in each format: no markup, no extra columns, no formulas, and
no control characters (an ESC, BEL, DEL or C1 byte is shown as its `\\xNN` escape, so no colour, cursor move,
title change or OSC-8 hyperlink reaches a terminal or a file)."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from suite.contract.controls import visible

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#&!])")
_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def markdown(text: str) -> str:
    """One line of Markdown showing `text` literally: punctuation that makes links, emphasis, HTML or table cells
    backslash-escaped (`|` included), line breaks as spaces, control characters as `\\xNN`."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", visible(" ".join(str(text).splitlines())))


def terminal(text: str) -> Text:
    """A rich cell that prints `text` as it is (never read as rich markup: no styles, no hyperlinks, no control
    characters)."""
    return Text(visible(text))


def csv_value(value: Any) -> Any:
    """A CSV field: numbers and booleans as they are, None as empty, text a spreadsheet would run as a formula
    quoted with a leading apostrophe (numbers written as text, such as `-1.5`, are left alone)."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = visible(value)
    if isinstance(value, str) and value.startswith(_CSV_FORMULA) and not _is_number(value):
        return "'" + value
    return value


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
