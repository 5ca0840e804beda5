"""The suite's two consoles: standard output for results, standard error for notes, warnings and progress."""

from __future__ import annotations

import sys

from suite.contract.controls import InertConsole

#: Wide output when piped, so tables stay readable in logs; a terminal sets its own width.
#: Control characters in anything printed (labels, model names, paths, replies) are shown as `\xNN` escapes.
console = InertConsole(width=None if sys.stdout.isatty() else 200)
err_console = InertConsole(stderr=True, width=None if sys.stderr.isatty() else 200)
