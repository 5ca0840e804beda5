"""Plans: schema, loader, filters, core repeats, inventories, the generated-pack label and `suite data pull`."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.contract.errors import ConfigError, DataError
from suite.engine.runner import select_tasks
from suite.testing.fake_github import fake_github
from suite_asgard.plans import load_plans, plans_root
from suite_asgard.plugin import PACK_DIR, UPSTREAM, UPSTREAM_COMMIT, available_objects, load_tasks

from .conftest import config, tasks

PLAN = "distribute__Tomato_Plate_Pot_Pan_FloorPlan26_V1 [16]"
PAPER_MIX = {"slice_and_distribute": 27, "putaway_dishes": 15, "cook_egg": 12, "fry_potato_slice": 12, "coffee": 9,
             "set_table": 9, "toast": 6, "microwave_potato": 6, "clean_mirror": 3, "putaway_food": 3,
             "putaway_silverware": 3, "turn_on_tv": 3}


def test_the_real_plans_load_with_their_folder_names_and_limits(real_plans: Path) -> None:
    loaded = tasks(data_dir=str(real_plans))
    assert len(loaded) == 108 and Counter(t.category for t in loaded) == PAPER_MIX
    coffee = next(t for t in loaded if t.id == "coffee__Mug(d)_FloorPlan12_V1 [38]")
    assert coffee.max_steps == 77 and coffee.meta == {"step_count": 38, "soft_limit": 57, "hard_limit": 76}
    assert coffee.data["inventory_source"] == "file" and not coffee.data["generated"]
    assert "Mug_a529cf46" in coffee.data["inventory"] and "PepperShaker_1ef3887f" not in coffee.data["inventory"]
    objects = coffee.data["objects"]
    assert objects == sorted(objects) and {"AppleSliced", "EggCracked"} <= set(objects)
    assert not {"PepperShaker", "StoveKnob"} & set(objects)
    root = real_plans.parents[1]
    assert len(tasks(data_dir=str(root))) == 108
    sanity = tasks(data_dir=str(root), test_set="magt_benchmark_sanity")
    assert [t.id for t in sanity] == ["turn_on_tv__FloorPlan202_V1 [4]", "turn_on_tv__FloorPlan203_V1 [4]"]


def test_the_pack_is_labelled_generated_and_mirrors_the_paper_mix() -> None:
    loaded = tasks()
    assert len(loaded) == 108 and Counter(t.category for t in loaded) == PAPER_MIX
    assert all(t.data["generated"] and t.data["inventory_source"] == "file" for t in loaded)
    assert json.loads((PACK_DIR / "PACK.json").read_text())["kind"] == "generated"


def test_filters_and_repeats() -> None:
    kept = tasks(task_types=["coffee", "turn_on_tv"])
    assert Counter(t.category for t in kept) == {"coffee": 9, "turn_on_tv": 3}
    scene = kept[0].data["plan"].scene
    assert {t.data["plan"].scene for t in tasks(scenes=[scene])} == {scene}
    repeated = select_tasks(tasks(task_types=["turn_on_tv"]), None, None, 0, repeats=3)
    assert len(repeated) == 9 and repeated[0].id.endswith(" #1") and repeated[2].id.endswith(" #3")
    assert [t.meta["repeat"] for t in repeated[:3]] == [1, 2, 3]
    assert len(select_tasks(repeated, repeated[1].id, None, 0)) == 1
    with pytest.raises(ConfigError, match="unknown \\['cofee'\\]"):
        tasks(task_types=["cofee"])


def _copy(dst: Path, *names: str) -> Path:
    for name in names:
        shutil.copytree(PACK_DIR / name, dst / name)
    return dst


def test_schema_errors_name_the_file_and_pointer(tmp_path: Path) -> None:
    folder = _copy(tmp_path, PLAN) / PLAN
    data = json.loads((folder / "plan.json").read_text())
    del data["goal"]["location_goals"]
    (folder / "plan.json").write_text(json.dumps(data))
    with pytest.raises(DataError, match="plan.json: at /goal: 'location_goals' is a required property"):
        tasks(data_dir=str(tmp_path))
    data["goal"]["location_goals"] = []
    data["name"] = "juggle__FloorPlan26_V1"
    (folder / "plan.json").write_text(json.dumps(data))
    with pytest.raises(DataError, match="at /name: a plan name of a known family"):
        tasks(data_dir=str(tmp_path))
    with pytest.raises(DataError, match="plan folders"):
        plans_root(tmp_path / PLAN, "magt_benchmark")


def test_without_an_inventory_file_a_default_room_is_derived(tmp_path: Path) -> None:
    _copy(tmp_path, PLAN)
    task = tasks(data_dir=str(tmp_path))[0]
    assert task.data["inventory_source"] == "derived" and not task.data["generated"]
    assert {"Tomato", "Knife", "Plate", "Pot", "Pan", "DishSponge"} <= set(task.data["objects"])
    assert available_objects(["Apple_1", "Egg", "StoveKnob_2", "Floor"]) == ["Apple", "AppleSliced", "Egg",
                                                                            "EggCracked", "Floor"]


def test_a_copied_pack_is_still_generated(tmp_path: Path) -> None:
    _copy(tmp_path, PLAN)
    shutil.copy(PACK_DIR / "PACK.json", tmp_path)
    shutil.copy(PACK_DIR / "inventories.json", tmp_path)
    task = tasks(data_dir=str(tmp_path))[0]
    assert task.data["generated"] and task.data["inventory_source"] == "file"
    assert [p.id for p in load_plans(tmp_path, "magt_benchmark")] == [PLAN]


@pytest.fixture
def github() -> Iterator[None]:
    plan = f"Generated/magt_benchmark/{PLAN}/plan.json"
    files = {plan: (PACK_DIR / PLAN / "plan.json").read_bytes(),
             "AsgardBench/Data/item_cache.json": (PACK_DIR / "inventories.json").read_bytes(),
             "AsgardBench/Model/model_tester.py": b"not pulled"}
    with fake_github(UPSTREAM, UPSTREAM_COMMIT, files):
        yield


def test_pull_fetches_the_plans_and_the_item_cache_into_the_cache(github: None, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "pull", "asgard"]) == 0
    assert main(["data", "where", "asgard"]) == 0
    where = capsys.readouterr().out.strip().splitlines()[-1]
    assert where.startswith("official (cache): ")
    root = Path(where.split(": ", 1)[1])
    assert (root / "Generated" / "magt_benchmark" / PLAN / "plan.json").is_file()
    assert (root / "AsgardBench" / "Data" / "item_cache.json").is_file()
    assert not (root / "AsgardBench" / "Model").exists()
    loaded = load_tasks("asgard", config(data_dir=str(root)))
    assert [t.id for t in loaded] == [PLAN] and loaded[0].data["inventory_source"] == "file"
