"""Per-episode records of one or more runs, as JSON Lines or CSV, for analyses of one's own."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any

from suite.contract.controls import json_text
from suite.contract.records import EpisodeRecord
from suite.report.escape import csv_value
from suite.store.run_folder import RunStore, distinct_runs


def episode_rows(run_dirs: list[Path]) -> Iterator[dict[str, Any]]:
    """Every finished episode's record, with the run folder it came from under `run`."""
    for run_dir in distinct_runs(run_dirs):
        store = RunStore(run_dir)
        try:
            for record in store.records():
                yield {"run": str(run_dir), **record}
        finally:
            store.close()


def to_jsonl(rows: list[dict[str, Any]]) -> str:
    """One JSON object per line."""
    return "".join(json_text(json.dumps(row, sort_keys=True, ensure_ascii=False)) + "\n" for row in rows)


def to_csv(rows: list[dict[str, Any]]) -> str:
    """One row per episode: the record's fields, then one `metric.<name>` column per metric any episode has
    (lists and objects as JSON text, absent as an empty cell)."""
    fields = ["run", *(f.name for f in dataclass_fields(EpisodeRecord) if f.name != "metrics")]
    metrics = sorted({name for row in rows for name in row["metrics"]})
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*fields, *(f"metric.{m}" for m in metrics)])
    for row in rows:
        values = [row.get(f) for f in fields] + [row["metrics"].get(m) for m in metrics]
        writer.writerow([_cell(v) for v in values])
    return out.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, list | dict):
        value = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return csv_value(value)
