"""Control characters made visible: text from users, models and data files cannot drive a terminal or a viewer.

Every C0 control, DEL and every C1 control (ESC, the start of any ANSI colour, cursor move, title change or OSC-8
hyperlink, included) is written as its `\\xNN` escape; rich itself drops only BEL, BS, VT, FF and CR.
"""

from __future__ import annotations

import logging
from typing import Any

from rich.console import Console
from rich.text import Text

#: every control character mapped to its visible `\xNN` escape
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x20), *range(0x7F, 0xA0))}
_CONTROLS_IN_LINES = {c: e for c, e in _CONTROLS.items() if chr(c) not in "\n\t"}
#: the controls JSON text may hold as they are (DEL and C1): as `\uXXXX` escapes, which read back the same
_JSON_UNESCAPED = {c: f"\\u{c:04x}" for c in range(0x7F, 0xA0)}


def visible(text: str, lines: bool = True) -> str:
    """`text` with every control character written as its `\\xNN` escape; line breaks and tabs kept when `lines`."""
    return str(text).translate(_CONTROLS_IN_LINES if lines else _CONTROLS)


def json_text(text: str) -> str:
    """JSON text (as `json.dumps` with `ensure_ascii=False` writes it) with DEL and the C1 controls as `\\uXXXX`
    escapes too, so no control character is left in it as a byte (JSON escapes the C0 ones itself)."""
    return text.translate(_JSON_UNESCAPED)


class InertConsole(Console):
    """A rich console that shows the control characters of every string it prints as `\\xNN`, so a label, model
    name, path or reply printed in a message cannot drive the terminal (rich's own styles still print)."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        """Rich's text of `text` (markup read as rich reads it), its control characters made visible first."""
        return super().render_str(visible(text), **kwargs)


class InertFormatter(logging.Formatter):
    """A log formatter whose lines show control characters as `\\xNN` (a warning may quote a label or a path)."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record, its control characters but line breaks and tabs made visible."""
        return visible(super().format(record))
