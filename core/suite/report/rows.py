"""Which runs share a report row: the same model, agent and label, on the same data for every benchmark they share."""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

from suite.report.compare import RowKey


def data_identity(data: dict[str, Any] | None) -> dict[str, str]:
    """The identity of a data source as run metadata stores it: its kind and content hash (the path if unhashed)."""
    data = data or {}
    return {"kind": str(data.get("kind", "unknown")), "id": str(data.get("sha256") or data.get("path") or "unknown"),
            "path": str(data.get("path", ""))}


@dataclass
class Row:
    """A report row: runs of one model, agent and label whose data agree on every benchmark they share."""

    key: RowKey
    data: dict[str, dict[str, str]] = field(default_factory=dict)
    tag: str | None = None

    def accepts(self, key: tuple[str, str, str], data: dict[str, dict[str, str]]) -> bool:
        """Whether a run with this identity and data may join the row (pooling never mixes two data sources)."""
        return self.key[:3] == key and all(self.data[b]["id"] == d["id"] for b, d in data.items() if b in self.data)


def place(rows: list[Row], key: tuple[str, str, str], data: dict[str, dict[str, str]]) -> Row:
    """The row a run joins: the first one that accepts it, or a new one (its key numbered apart)."""
    for row in rows:
        if row.accepts(key, data):
            row.data.update(data)
            return row
    same = sum(r.key[:3] == key for r in rows)
    row = Row((*key, str(same)), dict(data))
    rows.append(row)
    return row


def mixed_benchmarks(rows: list[Row]) -> dict[str, list[dict[str, str]]]:
    """Benchmarks whose rows ran on more than one data source, with those sources (in order of appearance)."""
    seen: dict[str, dict[str, dict[str, str]]] = {}
    for row in rows:
        for bench, data in row.data.items():
            seen.setdefault(bench, {}).setdefault(data["id"], data)
    return {b: list(ids.values()) for b, ids in seen.items() if len(ids) > 1}


def tag_rows(rows: list[Row]) -> list[str]:
    """Letter the rows' data (A, B, ...) when the report mixes data sources; one note line per mixed benchmark."""
    mixed = mixed_benchmarks(rows)
    if not mixed:
        return []
    letters: dict[tuple[tuple[str, str], ...], str] = {}
    for row in rows:
        signature = tuple(sorted((b, d["id"]) for b, d in row.data.items() if b in mixed))
        row.tag = letters.setdefault(signature, string.ascii_uppercase[len(letters) % 26])
    notes = []
    for bench, sources in sorted(mixed.items()):
        names = "; ".join(f"{_kind(d)} {d['id'][:12]} (data {', '.join(_letters(rows, bench, d))})" for d in sources)
        notes.append(f"MIXED DATA: {bench} ran on {len(sources)} data sources ({names}); rows on different data are "
                     "kept apart and never paired")
    return notes


def _kind(data: dict[str, str]) -> str:
    return "GENERATED pack" if data["kind"] == "generated" else f"{data['kind']} data"


def _letters(rows: list[Row], bench: str, data: dict[str, str]) -> list[str]:
    return sorted({r.tag for r in rows if r.tag and r.data.get(bench, {}).get("id") == data["id"]})
