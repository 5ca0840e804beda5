"""Command text handling: the alias table, the verb registry and per-verb argument patterns."""

from __future__ import annotations

import re
from dataclasses import dataclass

from suite_omniear.data import AttributeTable

#: First-token aliases rewritten before parsing (the reference bridge's table).
ALIASES: dict[str, str] = {
    **dict.fromkeys(("MOVE_TO", "MOVETO", "GO_TO", "NAVIGATE", "TRAVEL"), "GOTO"),
    **dict.fromkeys(("PICKUP", "PICK_UP", "TAKE", "GET"), "GRAB"),
    **dict.fromkeys(("PUT", "DROP", "SET", "PUT_DOWN"), "PLACE"),
    **dict.fromkeys(("INSPECT", "INSPECT_OBJECT", "EXAMINE", "CHECK", "OBSERVE", "VIEW", "LOOK_AT"), "LOOK"),
    **dict.fromkeys(("SEARCH", "SCAN", "INVESTIGATE"), "EXPLORE"),
    **dict.fromkeys(("END_TASK", "FINISH", "COMPLETE"), "DONE"),
}

_ID = r"(\w+)"
_AGENTS = r"([\w,]+)"
BASIC_PATTERNS: dict[str, str] = {
    "GOTO": rf"GOTO\s+{_ID}",
    "GRAB": rf"GRAB\s+{_ID}",
    "PLACE": rf"PLACE\s+{_ID}(?:\s+(in|on)\s+{_ID})?",
    "EXPLORE": rf"EXPLORE(?:\s+{_ID})?",
    "LOOK": rf"LOOK(?:\s+{_ID})?",
    "DONE": r"DONE",
    "CORP_GRAB": rf"CORP_GRAB\s+{_AGENTS}\s+{_ID}",
    "CORP_GOTO": rf"CORP_GOTO\s+{_AGENTS}\s+{_ID}",
    "CORP_PLACE": rf"CORP_PLACE\s+{_AGENTS}\s+{_ID}\s+(in|on)\s+{_ID}",
}


class ParseError(Exception):
    """A command that cannot be parsed; `status` and `message` are what the agent sees."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Command:
    """A parsed command: the canonical verb, the attribute verb it applies (if any) and its arguments."""

    verb: str
    kind: str  # "basic", "attribute" or "corp_attribute"
    attribute_verb: str
    args: tuple[str | None, ...]


def normalize(command: str, keep: frozenset[str] = frozenset()) -> str:
    """Rewrite an aliased first token (unless in `keep`), re-join with single spaces; empty text raises."""
    parts = command.split()
    if not parts:
        raise ParseError("FAILURE", "Command processing error: list index out of range")
    first = parts[0].upper()
    if first not in keep:
        parts[0] = ALIASES.get(first, parts[0])
    return " ".join(parts)


_COMPILED: dict[str, re.Pattern[str]] = {}
#: Parsed basic-verb commands, shared by every parser without `keep_verbs` (they do not depend on the scene).
_BASIC: dict[str, Command] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    """Compile a verb pattern once per process."""
    compiled = _COMPILED.get(pattern)
    if compiled is None:
        compiled = _COMPILED[pattern] = re.compile(pattern, re.IGNORECASE)
    return compiled


class CommandParser:
    """Parses normalized commands against the basic verbs plus the scene's attribute and CORP_ verbs."""

    def __init__(
        self, scene_abilities: tuple[str, ...], table: AttributeTable, keep_verbs: bool = False
    ) -> None:
        self._patterns: dict[str, tuple[str, str, str]] = {
            v: (p, "basic", "") for v, p in BASIC_PATTERNS.items()
        }
        for ability in scene_abilities:
            if table.get(ability) is None:
                continue
            verb = ability.upper()
            self._patterns.setdefault(verb, (rf"{re.escape(verb)}\s+{_ID}", "attribute", ability))
            corp = f"CORP_{verb}"
            self._patterns.setdefault(
                corp, (rf"{re.escape(corp)}\s+{_AGENTS}\s+{_ID}", "corp_attribute", ability)
            )
        self._keep = (
            frozenset(v for v, p in self._patterns.items() if p[1] == "attribute")
            if keep_verbs
            else frozenset()
        )
        self._cache: dict[str, Command] = {}

    def parse(self, command: str) -> Command:
        """Parse one raw command (already stripped); raise ParseError with the reference's status and text."""
        cached = self._cache.get(command) or (None if self._keep else _BASIC.get(command))
        if cached is not None:
            return cached
        text = normalize(command, self._keep)
        verb = text.split(" ", 1)[0].upper()
        entry = self._patterns.get(verb)
        if entry is None:
            raise ParseError("INVALID", f"Unknown command: {verb}")
        pattern, kind, ability = entry
        match = _compiled(pattern).fullmatch(text)
        if match is None:
            raise ParseError("INVALID", f"Invalid command format: {text}")
        parsed = Command(verb, kind, ability, match.groups())
        if kind == "basic" and not self._keep:
            if len(_BASIC) < 65536:
                _BASIC[command] = parsed
        elif len(self._cache) < 4096:
            self._cache[command] = parsed
        return parsed
