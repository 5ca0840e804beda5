"""Control characters made visible: text from users, models and data files cannot drive a terminal or a viewer.

Every C0 control, DEL and every C1 control (ESC, the start of any ANSI colour, cursor move, title change or OSC-8
hyperlink, included) is written as its `\\xNN` escape; rich itself drops only BEL, BS, VT, FF and CR. The characters
that reorder or break the text around them (bidi embeddings, overrides, isolates and marks, the line and paragraph
separators) are written as their `\\uXXXX` escape: a right-to-left override in a label cannot make a table lie.
Every other character, CJK and emoji included, is shown as it is.
"""

from __future__ import annotations

import logging
from typing import Any

from rich.console import Console
from rich.text import Text

#: every control character mapped to its visible `\xNN` escape
#: and every character that reorders or breaks the text around it, to its `\uXXXX` escape
_CONTROLS = {**{c: f"\\x{c:02x}" for c in (*range(0x00, 0x20), *range(0x7F, 0xA0))},
             **{c: f"\\u{c:04x}" for c in (0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F),
                                             *range(0x2066, 0x206A))}}
_CONTROLS_IN_LINES = {c: e for c, e in _CONTROLS.items() if chr(c) not in "\n\t"}
#: the controls JSON text may hold as they are (DEL and C1): as `\uXXXX` escapes, which read back the same
_JSON_UNESCAPED = {c: f"\\u{c:04x}" for c in range(0x7F, 0xA0)}


def visible(text: str, lines: bool = True) -> str:
    """`text` with every control character written as its `\\xNN` escape (bidi controls and line separators as
    `\\uXXXX`); line breaks and tabs kept when `lines`, escaped too otherwise (a name or label is one line)."""
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
