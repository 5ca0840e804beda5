"""Text from users, models and data files made inert in each format: no markup, no extra columns, no formulas."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#&!])")
_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def markdown(text: str) -> str:
    """One line of Markdown showing `text` literally: punctuation that makes links, emphasis, HTML or table cells
    backslash-escaped (`|` included), line breaks as spaces."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).splitlines()))


def terminal(text: str) -> Text:
    """A rich cell that prints `text` as it is (never read as rich markup: no styles, no hyperlinks)."""
    return Text(str(text))


def csv_value(value: Any) -> Any:
    """A CSV field: numbers and booleans as they are, None as empty, text a spreadsheet would run as a formula
    quoted with a leading apostrophe (numbers written as text, such as `-1.5`, are left alone)."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_CSV_FORMULA) and not _is_number(value):
        return "'" + value
    return value


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
