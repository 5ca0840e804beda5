"""The LongAct pack on disk: houses and episodes in one JSON file, checked against the JSON Schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suite.contract.errors import DataError
from suite.contract.schemas import read_json, validate
from suite_household.catalog import TYPES
from suite_household.world import Scene

from suite_longact.houses import episode_scene, fingerprint, house_scene
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
    for i, house in enumerate(data["houses"]):
        for room, extras in house["extras"].items():
            for k, object_type in enumerate(extras):
                if object_type not in TYPES:
                    raise DataError(str(path), f"/houses/{i}/extras/{room}/{k}",
                                    f"a known object type, not {object_type!r}")
    for i, ep in enumerate(data["episodes"]):
        if ep["house"] not in houses:
            raise DataError(str(path), f"/episodes/{i}/house", f"one of the pack's house ids, not {ep['house']!r}")
        if ep["scenario"] not in SCENARIOS:
            raise DataError(str(path), f"/episodes/{i}/scenario", f"one of {', '.join(SCENARIOS)}")
        covered = sum(goal["items"] for goal in ep["goals"])
        if covered != len(ep["checklist"]):
            raise DataError(str(path), f"/episodes/{i}/goals", f"goals whose items add up to the checklist's "
                            f"{len(ep['checklist'])} items, not {covered}")
    return data


def check_episode_house(path: Path, episode_index: int, house_index: int, episode: dict[str, Any],
                        house: dict[str, Any], cache: dict[str, Scene]) -> None:
    """Build the episode's house from its seed (it must match its fingerprint) and check that every id its setup
    and checklist name is an object of it; a DataError names the pack file and the pointer."""
    ep_at, house_at = f"/episodes/{episode_index}", f"/houses/{house_index}"
    try:
        base = cache.get(house["id"]) or house_scene(house)
    except (RuntimeError, ValueError, KeyError) as exc:
        raise DataError(str(path), house_at, f"a house the household generator can build ({exc})") from None
    if house["id"] not in cache:
        got = fingerprint(base)
        if got != house["fingerprint"]:
            raise DataError(str(path), f"{house_at}/fingerprint", f"the fingerprint of the house its seed, rooms and "
                            f"extras build, {got} (the generator changed, or so did the entry: regenerate the pack "
                            "with python -m suite_longact.pack.generate)")
        cache[house["id"]] = base
    ids = {o.id for o in base.objects}
    for k, op in enumerate(episode["setup"]):
        for key in ("object", "into"):
            if key in op and op[key] not in ids:
                raise DataError(str(path), f"{ep_at}/setup/{k}/{key}", f"the id of an object of house "
                                f"{house['id']}, not {op[key]!r}")
    for k, item in enumerate(episode["checklist"]):
        if item["object_id"] not in ids:
            raise DataError(str(path), f"{ep_at}/checklist/{k}/object_id", f"the id of an object of house "
                            f"{house['id']}, not {item['object_id']!r}")
        targets = item["target"] if item["attr"] == "position" else []
        for t, target in enumerate(targets):
            if target not in ids:
                raise DataError(str(path), f"{ep_at}/checklist/{k}/target/{t}", f"the id of a receptacle of house "
                                f"{house['id']}, not {target!r}")
    try:
        episode_scene(house, episode["setup"], cache)
    except (RuntimeError, ValueError, KeyError) as exc:
        raise DataError(str(path), f"{ep_at}/setup", f"a setup the house can take ({exc})") from None
