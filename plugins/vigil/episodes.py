"""The pack on disk: `episodes.json` (schema `schemas/episode.schema.json`), `houses/*.json`, `PACK.json`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suite.errors import DataError
from suite.schemas import read_json, validate
from suite_household.scene_io import load_scene
from suite_household.world import Scene
from suite_vigil.vocabulary import FAMILIES

SCHEMA = Path(__file__).parent / "schemas" / "episode.schema.json"
EPISODES = "episodes.json"
PACK_MANIFEST = "PACK.json"


def is_data_dir(path: Path) -> bool:
    """Whether `path` holds a Vigil episode file."""
    return (Path(path) / EPISODES).is_file()


def load_episodes(data_dir: Path) -> list[dict[str, Any]]:
    """Every episode of the data dir, validated, in episode-id order (the paper's deterministic order)."""
    path = Path(data_dir) / EPISODES
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError(path, "/", "a list of episodes")
    for i, ep in enumerate(data):
        validate(ep, SCHEMA, f"{path} (episode {i})")
        family = FAMILIES[ep["family"]]
        if ep["max_steps"] != family.max_steps:
            raise DataError(path, f"/{i}/max_steps", f"{family.max_steps}, the {family.code} step budget (Table 9)")
        if ep["tier"] != family.tier:
            raise DataError(path, f"/{i}/tier", f"{family.tier!r} for family {family.code}")
        if not (Path(data_dir) / "houses" / f"{ep['house']}.json").is_file():
            raise DataError(path, f"/{i}/house", f"a house file houses/{ep['house']}.json")
    return sorted(data, key=lambda e: e["episode_id"])


_HOUSES: dict[tuple[str, str], Scene] = {}


def house(data_dir: str, name: str) -> Scene:
    """A house of the pack (read and validated once per process)."""
    key = (str(data_dir), name)
    if key not in _HOUSES:
        _HOUSES[key] = load_scene(Path(data_dir) / "houses" / f"{name}.json")
    return _HOUSES[key]


def remember_house(data_dir: str, name: str, scene: Scene) -> None:
    """Hand a house just written to `data_dir` to this process (the generator: no need to read it back)."""
    _HOUSES[(str(data_dir), name)] = scene
