"""Corrupted data is found before the first episode: one line naming the file and the JSON pointer, exit 2, no run
folder (issue 20 item 5). Each case copies a one-episode slice of a generated pack and corrupts one thing."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main

REPO = Path(__file__).resolve().parent.parent
VIGIL = REPO / "plugins" / "vigil" / "suite_vigil" / "pack" / "data"
LONGACT = REPO / "plugins" / "longact" / "suite_longact" / "pack" / "data"
ASGARD = REPO / "plugins" / "asgard" / "suite_asgard" / "pack" / "data"
AGENTVQA = REPO / "plugins" / "agentvqa" / "suite_agentvqa" / "pack"

def _vigil_slice(root: Path) -> tuple[dict[str, Any], Path]:
    """The pack's first episode with a preset state and its house, in `root`; returns the episode and house file."""
    episode = next(e for e in json.loads((VIGIL / "episodes.json").read_text()) if e["state_overrides"])
    (root / "houses").mkdir(parents=True)
    house = root / "houses" / f"{episode['house']}.json"
    house.write_bytes((VIGIL / "houses" / house.name).read_bytes())
    return episode, house


def _longact_slice() -> dict[str, Any]:
    """A one-episode LongAct pack: the first episode that moves an object at setup and has a position item."""
    pack = json.loads((LONGACT / "episodes.json").read_text())
    episode = next(e for e in pack["episodes"] if any(op["op"] == "move" for op in e["setup"])
                   and e["checklist"][0]["attr"] != "position"
                   and any(item["attr"] == "position" for item in e["checklist"]))
    house = next(h for h in pack["houses"] if h["id"] == episode["house"])
    return {"format": pack["format"], "houses": [house], "episodes": [episode]}


def _position_item(pack: Any) -> int:
    return next(k for k, item in enumerate(pack["episodes"][0]["checklist"]) if item["attr"] == "position")


def _move_op(pack: Any) -> int:
    return next(k for k, op in enumerate(pack["episodes"][0]["setup"]) if op["op"] == "move")


@dataclass(frozen=True)
class Change:
    """A corruption of a JSON file: of its bytes (`raw`), or a value set at a path of its data (`at`, `value`)."""

    raw: Callable[[bytes], bytes] | None = None
    at: tuple[Any, ...] = ()
    value: Any = None

    def apply(self, path: Path) -> None:
        """Corrupt the file in place."""
        if self.raw is not None:
            path.write_bytes(self.raw(path.read_bytes()))
            return
        data = json.loads(path.read_text(encoding="utf-8"))
        node = data
        for key in self.at[:-1]:
            node = node[key(data) if callable(key) else key]
        last = self.at[-1]
        node[last(data) if callable(last) else last] = self.value
        path.write_text(json.dumps(data), encoding="utf-8")


def _set(*at: Any, value: Any) -> Change:
    return Change(at=at, value=value)


# (case, which file, change to its JSON or its bytes, the pointer the error names)
VIGIL_HOUSE = [
    ("truncated", Change(raw=lambda b: b[: len(b) // 2]), "/"),
    ("random bytes", Change(raw=lambda b: bytes(range(256)) * 4), "/"),
    ("NaN", Change(raw=lambda b: b.replace(b'"center": [', b'"center": [NaN, ', 1)), "/"),
    ("zero rooms", _set("rooms", value=[]), "/rooms"),
    ("zero objects", _set("objects", value=[]), "/objects"),
    ("wrong type", _set("objects", 0, "center", value="here"), "/objects/0/center"),
    ("1e300 coordinate", _set("objects", 0, "center", 0, value=1e300), "/objects/0/center/0"),
]
VIGIL_EPISODE = [
    ("missing target", _set(0, "success_spec", "target", value="Apple|+99.00|+00.00|+99.00"),
     "/0/success_spec/target"),
    ("missing preset object", _set(0, "state_overrides", 0, "objectId", value="Drawer|+99.00|+00.00|+99.00"),
     "/0/state_overrides/0/objectId"),
    ("1e300 start position", _set(0, "agent_init", "position", "x", value=1e300), "/0/agent_init/position/x"),
    ("rotation 1e30", _set(0, "agent_init", "rotation", value=1e30), "/0/agent_init/rotation"),
    ("wrong type", _set(0, "max_steps", value="five"), "/0/max_steps"),
]
LONGACT_CASES = [
    ("truncated", Change(raw=lambda b: b[: len(b) // 2]), "/"),
    ("wrong fingerprint", _set("houses", 0, "fingerprint", value="0123456789abcdef"), "/houses/0/fingerprint"),
    ("huge seed", _set("houses", 0, "seed", value=2 ** 70), "/houses/0/seed"),
    ("negative seed", _set("houses", 0, "seed", value=-5), "/houses/0/seed"),
    ("one-room house", _set("houses", 0, "rooms", value=["Kitchen"]), "/houses/0"),
    ("unknown object type", _set("houses", 0, "extras", "Kitchen", value=["Unobtainium"]),
     "/houses/0/extras/Kitchen/0"),
    ("setup naming a missing object", _set("episodes", 0, "setup", _move_op, "object",
                                           value="Book|+99.00|+00.00|+99.00"),
     "/episodes/0/setup/{move}/object"),
    ("setup into a missing receptacle", _set("episodes", 0, "setup", _move_op, "into",
                                             value="Shelf|+99.00|+00.00|+99.00"),
     "/episodes/0/setup/{move}/into"),
    ("goals cover 99 items", _set("episodes", 0, "goals", 0, "items", value=99), "/episodes/0/goals"),
    ("checklist naming a missing object", _set("episodes", 0, "checklist", 0, "object_id",
                                               value="Mug|+99.00|+00.00|+99.00"),
     "/episodes/0/checklist/0/object_id"),
    ("checklist naming a missing receptacle", _set("episodes", 0, "checklist", _position_item, "target",
                                                   value=["Sofa|+99.00|+00.00|+99.00"]),
     "/episodes/0/checklist/{position}/target/0"),
]


ASGARD_CASES = [
    ("truncated", Change(raw=lambda b: b[: len(b) // 2]), "/"),
    ("1e300 start position", _set("initial_pose", "position", "x", value=1e300), "/initial_pose/position/x"),
    ("rotation 1e30", _set("initial_pose", "rotation", value=1e30), "/initial_pose/rotation"),
    ("setup naming an unknown object", _set("setup_actions", 0, "object_name", value="Nothing_12345678"),
     "/setup_actions/0/object_name"),
    ("goal over an unknown type", _set("goal", "state_goals", 0, "object_type", value="Unobtainium"),
     "/goal/state_goals/0/object_type"),
    ("unknown scene", _set("scene", value="FloorPlan999"), "/scene"),
]


def _refused(bench: str, data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp_path / "run"
    assert main(["run", "--plugins", bench, "--agent", "oracle", "--data-dir", str(data), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert not out.exists()
    return err[0]


@pytest.mark.parametrize(("case", "change", "pointer"), VIGIL_HOUSE, ids=[c[0] for c in VIGIL_HOUSE])
def test_a_corrupt_vigil_house_file_is_refused_before_the_run(case: str, change: Change, pointer: str,
                                                             tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    episode, house = _vigil_slice(data)
    (data / "episodes.json").write_text(json.dumps([episode]), encoding="utf-8")
    change.apply(house)
    line = _refused("vigil", data, tmp_path, capsys)
    assert line.startswith(f"error: {house}: at {pointer}: "), line


@pytest.mark.parametrize(("case", "change", "pointer"), VIGIL_EPISODE, ids=[c[0] for c in VIGIL_EPISODE])
def test_a_corrupt_vigil_episode_is_refused_before_the_run(case: str, change: Change, pointer: str,
                                                          tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    episode, _ = _vigil_slice(data)
    episodes = data / "episodes.json"
    episodes.write_text(json.dumps([episode]), encoding="utf-8")
    change.apply(episodes)
    line = _refused("vigil", data, tmp_path, capsys)
    assert line.startswith(f"error: {episodes}: at {pointer}: "), line


@pytest.mark.parametrize(("case", "change", "pointer"), LONGACT_CASES, ids=[c[0] for c in LONGACT_CASES])
def test_a_corrupt_longact_pack_is_refused_before_the_run(case: str, change: Change, pointer: str,
                                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    pack = _longact_slice()
    pointer = pointer.format(move=_move_op(pack), position=_position_item(pack))
    path = data / "episodes.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    change.apply(path)
    line = _refused("longact", data, tmp_path, capsys)
    assert line.startswith(f"error: {path}: at {pointer}"), line


@pytest.mark.parametrize(("case", "change", "pointer"), ASGARD_CASES, ids=[c[0] for c in ASGARD_CASES])
def test_a_corrupt_asgard_plan_is_refused_before_the_run(case: str, change: Change, pointer: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data = _asgard_slice(tmp_path / "data")
    plan = next(data.glob("*/plan.json"))
    change.apply(plan)
    line = _refused("asgard", data, tmp_path, capsys)
    assert line.startswith(f"error: {plan}: at {pointer}: "), line


def _asgard_slice(root: Path) -> Path:
    """The pack's first coffee plan (it has a setup action and state goals) and the inventories, in `root`."""
    folder = next(p for p in sorted(ASGARD.iterdir()) if p.name.startswith("coffee__Mug"))
    (root / folder.name).mkdir(parents=True)
    (root / folder.name / "plan.json").write_bytes((folder / "plan.json").read_bytes())
    (root / "inventories.json").write_bytes((ASGARD / "inventories.json").read_bytes())
    return root


IMAGE_CASES = [
    ("truncated", Change(raw=lambda b: b[: len(b) // 2])),
    ("random bytes", Change(raw=lambda b: bytes(range(256)) * 4)),
]


def _agentvqa_slice(root: Path) -> Path:
    """The pack's first question and its one image, in `root`; returns the image."""
    record = json.loads((AGENTVQA / "records.jsonl").read_text(encoding="utf-8").splitlines()[0])
    (image,) = record["media"]["images"]
    (root / image).parent.mkdir(parents=True)
    (root / image).write_bytes((AGENTVQA / image).read_bytes())
    (root / "records.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    return root / image


@pytest.mark.parametrize(("case", "change"), IMAGE_CASES, ids=[c[0] for c in IMAGE_CASES])
def test_a_corrupt_agentvqa_image_is_refused_before_the_run(case: str, change: Change, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    image = _agentvqa_slice(tmp_path / "data")
    change.apply(image)
    line = _refused("agentvqa", tmp_path / "data", tmp_path, capsys)
    assert line.startswith(f"error: {image}: at /: an image file Pillow can read"), line


def test_the_uncorrupted_slices_run(tmp_path: Path) -> None:
    """The slices themselves are good data: each runs to success with the oracle."""
    vigil = tmp_path / "vigil"
    episode, _ = _vigil_slice(vigil)
    (vigil / "episodes.json").write_text(json.dumps([episode]), encoding="utf-8")
    longact = tmp_path / "longact"
    longact.mkdir()
    (longact / "episodes.json").write_text(json.dumps(_longact_slice()), encoding="utf-8")
    _agentvqa_slice(tmp_path / "agentvqa")
    for bench, data in (("vigil", vigil), ("longact", longact), ("asgard", _asgard_slice(tmp_path / "asgard")),
                        ("agentvqa", tmp_path / "agentvqa")):
        assert main(["run", "--plugins", bench, "--agent", "oracle", "--data-dir", str(data), "--out",
                     str(tmp_path / f"run-{bench}"), "--no-report"]) == 0
