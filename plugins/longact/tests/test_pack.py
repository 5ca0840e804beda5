"""The shipped pack: the whole file against its schema, its shape, and a few episodes solved by the oracle."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest
from suite.contract.errors import DataError
from suite.engine.host import build_host
from suite.engine.loop import TraceSink, run_episode
from suite_household.world import World
from suite_longact.checklist import Item, holds
from suite_longact.data import MANIFEST, PACK_FILE, load_pack
from suite_longact.houses import episode_scene
from suite_longact.oracle import OracleAgent
from suite_longact.pack.ambiguity import MAX_BOUND, reader_bound
from suite_longact.plugin import PACK_DIR
from suite_longact.vocabulary import SCENARIOS

from .conftest import config, pack_tasks


def test_whole_pack_matches_the_schema_and_the_paper_shape() -> None:
    pack = load_pack(PACK_DIR)
    eps = pack["episodes"]
    assert len(eps) == 300
    assert Counter(e["scenario"] for e in eps) == {s: 75 for s in SCENARIOS}
    goals = sum(len(e["goals"]) for e in eps) / len(eps)
    assert 8 <= goals <= 10  # "an average of 9 goals"
    kinds = Counter(i["attr"] for e in eps for i in e["checklist"])
    assert set(kinds) == {"position", "isOpen", "isToggled", "isSliced", "isCooked", "isFilledWithLiquid"}
    assert all(e["instructions"]["detailed"] != e["instructions"]["concise"] for e in eps)
    assert sum(any(op["op"] == "move" for op in e["setup"]) for e in eps) > 50  # hidden in closed containers
    assert min(e["oracle_steps"] for e in eps) >= 200  # genuinely long


def test_the_manifest_records_a_pack_no_shortcut_scores_on() -> None:
    manifest = json.loads((PACK_DIR / MANIFEST).read_text())
    audit = manifest["audit"]
    for name in ("flipper", "random-walker", "stop-at-once"):
        assert audit[name]["gc_se"] <= audit[name]["ceiling_gc_se"], name
    assert audit["stop-at-once"]["items_holding_at_step_0"] == 0
    assert audit["type-reader bound"]["gc_se"] <= 100 * MAX_BOUND and manifest["generator_version"] == "3"
    assert manifest["templates_never_fired"] == []
    assert len(manifest["houses_by_room_count"]) >= 3 and len(manifest["houses_by_rooms"]) >= 8
    assert manifest["object_types_in_checklists"] >= 40
    targets = manifest["state_items_by_target"]
    assert all(targets.get(f"{a}={v}", 0) > 0 for a in ("isOpen", "isToggled") for v in (True, False))
    assert sum(int(k) * v for k, v in manifest["houses_by_episode_count"].items()) == manifest["episodes"]


def test_no_item_holds_at_step_0() -> None:
    pack = load_pack(PACK_DIR)
    houses = {h["id"]: h for h in pack["houses"]}
    cache: dict = {}
    for ep in pack["episodes"][::15]:
        world = World(episode_scene(houses[ep["house"]], ep["setup"], cache))
        assert not any(holds(world, Item.from_dict(it)) for it in ep["checklist"]), ep["id"]
        # every goal's look-alikes are kept, and a reader of the goals' types alone stays under its bound
        named = {it["object_id"] for it in ep["checklist"]}
        for it in ep["checklist"]:
            same = {o.id for o in world.objects.values() if o.type == it["object_type"]} - named
            assert sorted(same) == it.get("keep", []), (ep["id"], it["object_id"])
        assert reader_bound(world, ep["checklist"]) <= MAX_BOUND, ep["id"]


def test_a_bad_pack_names_the_pointer(tmp_path) -> None:
    data = json.loads((PACK_DIR / PACK_FILE).read_text())
    data["episodes"][3]["checklist"][0]["attr"] = "isDirty"
    (tmp_path / PACK_FILE).write_text(json.dumps(data))
    with pytest.raises(DataError, match="/episodes/3/checklist/0"):
        load_pack(tmp_path)


@pytest.mark.parametrize("index", [0, 150])
def test_oracle_solves_pack_episodes(index: int) -> None:
    task = pack_tasks()[index]
    host = build_host()
    result = asyncio.run(run_episode(host, task, OracleAgent(), config(), TraceSink()))
    assert result.settlement.outcome == "success", result.settlement.failure_reason
    assert len(result.trajectory.steps) == task.meta["oracle_steps"]
    m = result.settlement.metrics
    assert m["gc"] == 1.0 and m["nav_steps"] > 0 and m["manip_steps"] > 0 and m["ir"] is not None


def test_concise_split_and_scenario_filter() -> None:
    tasks = pack_tasks(split="concise", scenarios=["dining_kitchen"])
    assert len(tasks) == 75 and all(t.category == "dining_kitchen" for t in tasks)
    assert tasks[0].data["instruction"] == tasks[0].data["episode"]["instructions"]["concise"]
