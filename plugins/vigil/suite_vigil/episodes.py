"""The pack on disk: `episodes.json` (schema `schemas/episode.schema.json`), `houses/*.json`, `PACK.json`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suite.contract.errors import DataError
from suite.contract.schemas import read_json, validate
from suite_household.obstacles import with_obstacles
from suite_household.scene_io import load_scene
from suite_household.world import Scene

from suite_vigil.vocabulary import FAMILIES

SCHEMA = Path(__file__).parent / "schemas" / "episode.schema.json"
EPISODES = "episodes.json"
PACK_MANIFEST = "PACK.json"
#: episode files already validated in this process, by (path, size, mtime): a run's every config check and
#: `suite audit`'s every baseline load the same file, and its schema check is the slow part of loading it
_VALIDATED: set[tuple[str, int, int]] = set()


def is_data_dir(path: Path) -> bool:
    """Whether `path` holds a Vigil episode file."""
    return (Path(path) / EPISODES).is_file()


def load_episodes(data_dir: Path) -> list[dict[str, Any]]:
    """Every episode of the data dir, validated, in episode-id order (the paper's deterministic order)."""
    return [ep for _, ep in indexed_episodes(data_dir)]


def indexed_episodes(data_dir: Path) -> list[tuple[int, dict[str, Any]]]:
    """Every episode of the data dir, validated, with its index in the file, in episode-id order."""
    path = Path(data_dir) / EPISODES
    stat = path.stat() if path.is_file() else None
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError(path, "/", "a list of episodes")
    stamp = (str(path.resolve()), stat.st_size, stat.st_mtime_ns) if stat else None
    if stamp in _VALIDATED:
        return sorted(enumerate(data), key=lambda pair: pair[1]["episode_id"])
    for i, ep in enumerate(data):
        try:
            validate(ep, SCHEMA, path)
        except DataError as exc:  # the pointer from the file's root, as every other error of the file gives it
            raise DataError(path, f"/{i}{exc.pointer.rstrip('/')}", exc.expected) from None
        family = FAMILIES[ep["family"]]
        if ep["max_steps"] != family.max_steps:
            raise DataError(path, f"/{i}/max_steps", f"{family.max_steps}, the {family.code} step budget (Table 9)")
        if ep["tier"] != family.tier:
            raise DataError(path, f"/{i}/tier", f"{family.tier!r} for family {family.code}")
        if not (Path(data_dir) / "houses" / f"{ep['house']}.json").is_file():
            raise DataError(path, f"/{i}/house", f"a house file houses/{ep['house']}.json")
    if stamp is not None:
        _VALIDATED.add(stamp)
    return sorted(enumerate(data), key=lambda pair: pair[1]["episode_id"])


def named_ids(episode: dict[str, Any]) -> list[tuple[str, str]]:
    """Every object id the episode names, with its JSON pointer inside the episode: preset states, the success
    target and receptacle, preconditions and the constraint's objects."""
    spec = episode["success_spec"]
    named = [(f"/state_overrides/{k}/objectId", o["objectId"]) for k, o in enumerate(episode["state_overrides"])]
    named += [(f"/success_spec/{key}", spec[key]) for key in ("target", "receptacle") if key in spec]
    named += [(f"/success_spec/preconditions/{k}/target", p["target"])
              for k, p in enumerate(spec.get("preconditions", []))]
    constraint = spec.get("constraint") or {}
    named += [(f"/success_spec/constraint/{key}", constraint[key]) for key in ("object", "target") if key in constraint]
    return named


def check_episode_house(data_dir: str | Path, index: int, episode: dict[str, Any]) -> None:
    """Read the episode's house (DataError: the house file and pointer) and check that every id the episode names is
    an object of it (DataError: episodes.json and the pointer)."""
    scene = house(str(data_dir), episode["house"])
    ids = {o.id for o in scene.objects} | {o["objectId"] for o in episode.get("obstacles", ())}
    for pointer, object_id in named_ids(episode):
        if object_id not in ids:
            raise DataError(Path(data_dir) / EPISODES, f"/{index}{pointer}",
                            f"the id of an object of houses/{episode['house']}.json, not {object_id!r}")


_HOUSES: dict[tuple[str, str], Scene] = {}


def house(data_dir: str, name: str) -> Scene:
    """A house of the pack (read and validated once per process)."""
    key = (str(data_dir), name)
    if key not in _HOUSES:
        _HOUSES[key] = load_scene(Path(data_dir) / "houses" / f"{name}.json")
    return _HOUSES[key]


def episode_scene(data_dir: str, episode: dict[str, Any]) -> Scene:
    """The episode's house with the movable obstacles it adds (CR), on the floor where the episode puts them."""
    return with_obstacles(house(data_dir, episode["house"]), episode.get("obstacles") or [])


def remember_house(data_dir: str, name: str, scene: Scene) -> None:
    """Hand a house just written to `data_dir` to this process (the generator: no need to read it back)."""
    _HOUSES[(str(data_dir), name)] = scene
