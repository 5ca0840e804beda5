"""The LongAct pack on disk: houses and episodes in one JSON file, checked against the JSON Schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suite.errors import DataError
from suite.schemas import read_json, validate
from suite_longact.vocabulary import SCENARIOS

HERE = Path(__file__).parent
SCHEMA = HERE / "schemas" / "pack.schema.json"
PACK_FILE = "episodes.json"
MANIFEST = "PACK.json"


def is_data_dir(path: Path) -> bool:
    """Whether a folder holds a LongAct pack file."""
    return (Path(path) / PACK_FILE).is_file()


def load_pack(data_dir: Path) -> dict[str, Any]:
    """The pack file, validated (a bad file raises DataError naming the JSON pointer)."""
    path = Path(data_dir) / PACK_FILE
    if not path.is_file():
        raise DataError(str(path), "", "a LongAct pack file (episodes.json)")
    data = read_json(path)
    validate(data, SCHEMA, path)
    houses = {h["id"] for h in data["houses"]}
    for i, ep in enumerate(data["episodes"]):
        if ep["house"] not in houses:
            raise DataError(str(path), f"/episodes/{i}/house", f"one of the pack's house ids, not {ep['house']!r}")
        if ep["scenario"] not in SCENARIOS:
            raise DataError(str(path), f"/episodes/{i}/scenario", f"one of {', '.join(SCENARIOS)}")
    return data
