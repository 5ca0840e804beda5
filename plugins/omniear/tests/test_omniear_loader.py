"""The loader: schema validation errors, tolerated data faults, the attribute table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from suite.contract.errors import DataError
from suite_omniear.data import find_attribute_table, load_attribute_table, load_task, load_tasks

SCENE = {
    "description": "a flat",
    "rooms": [{"id": "kitchen", "name": "Kitchen", "properties": {}, "connected_to_room_ids": []}],
    "objects": [
        {
            "id": "cup_1",
            "name": "Cup",
            "type": "ITEM",
            "location_id": "on:kitchen",
            "properties": {"weight": 0.3},
            "states": {},
        }
    ],
    "abilities": ["open"],
}
TASK = {
    "task_background": "b",
    "agents_config": [{"name": "robot_1", "max_grasp_limit": 1, "max_weight": 10.0, "max_size": [1, 1, 1]}],
    "tasks": [
        {
            "task_description": "Put the cup on the kitchen.",
            "task_category": "direct_command",
            "validation_checks": [{"id": "cup_1", "location_id": "on:kitchen"}],
        }
    ],
    "scene_id": "00001",
}


def write(root: Path, task: Any = TASK, scene: Any = SCENE, split: str = "single-independent") -> Path:
    for kind, content in (("task", task), ("scene", scene)):
        folder = root / split / kind
        folder.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content)
        (folder / f"00001_{kind}.json").write_text(text, encoding="utf-8")
    return root


def test_loads_and_joins_by_file_number(tmp_path: Path) -> None:
    task = load_task(write(tmp_path), "single-independent", "00001")
    assert task.key == "single-independent/00001"
    assert task.task.agents[0].id == "agent_1" and task.task.agents[0].name == "robot_1"
    assert task.task.checks[0].object_id == "cup_1"
    assert task.task.checks[0].conditions == (("location_id", "on:kitchen"),)
    assert task.scene.objects[0].location_id == "on:kitchen"
    assert task.warnings == ()


def test_missing_required_field_names_file_pointer_and_expectation(tmp_path: Path) -> None:
    bad = {k: v for k, v in TASK.items() if k != "tasks"}
    with pytest.raises(DataError) as err:
        load_task(write(tmp_path, task=bad), "single-independent", "00001")
    assert err.value.path.endswith("single-independent/task/00001_task.json")
    assert err.value.pointer == "/"
    assert "'tasks' is a required property" in err.value.expected


def test_wrong_type_points_at_the_value(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(TASK))
    bad["agents_config"][0]["max_weight"] = "heavy"
    with pytest.raises(DataError) as err:
        load_task(write(tmp_path, task=bad), "single-independent", "00001")
    assert err.value.pointer == "/agents_config/0/max_weight"
    assert "'heavy' is not of type 'number'" in str(err.value)


def test_bad_object_type_in_scene(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(SCENE))
    bad["objects"][0]["type"] = "TOY"
    with pytest.raises(DataError) as err:
        load_task(write(tmp_path, scene=bad), "single-independent", "00001")
    assert err.value.path.endswith("00001_scene.json") and err.value.pointer == "/objects/0/type"


def test_syntax_error_and_missing_scene(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="valid JSON"):
        load_task(write(tmp_path / "a", task="{nope"), "single-independent", "00001")
    root = write(tmp_path / "b")
    (root / "single-independent" / "scene" / "00001_scene.json").unlink()
    with pytest.raises(DataError, match="a scene file for task 00001_task.json"):
        load_task(root, "single-independent", "00001")


def test_scalar_max_size_loads_with_a_warning(tmp_path: Path) -> None:
    task = json.loads(json.dumps(TASK))
    task["agents_config"][0]["max_size"] = 1.5
    loaded = load_task(write(tmp_path, task=task), "single-independent", "00001")
    assert loaded.task.agents[0].max_size == 1.5
    assert loaded.warnings == (
        "single-independent/00001: robot_1 has a scalar max_size 1.5 "
        "(the reference simulator refuses to initialise this task)",
    )


def test_tolerated_faults_warn_naming_the_task(tmp_path: Path) -> None:
    task = json.loads(json.dumps(TASK))
    task["tasks"][0]["validation_checks"].append({"id": "ghost_1", "is_open": True})
    scene = json.loads(json.dumps(SCENE))
    scene["objects"].append(
        {"id": "pen_1", "name": "Pen", "type": "ITEM", "location_id": "", "properties": {}, "states": {}}
    )
    loaded = load_task(write(tmp_path, task=task, scene=scene), "single-independent", "00001")
    assert len(loaded.warnings) == 2
    assert all(w.startswith("single-independent/00001: ") for w in loaded.warnings)
    assert "'ghost_1', which is not in the scene" in loaded.warnings[0]
    assert "'pen_1' has an unresolvable location_id ''" in loaded.warnings[1]


def test_load_tasks_needs_task_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="task files under"):
        load_tasks(tmp_path)
    write(tmp_path, split="multi-independent")
    assert [t.key for t in load_tasks(tmp_path)] == ["multi-independent/00001"]


def test_attribute_table_parsing_and_lookup(tmp_path: Path) -> None:
    (tmp_path / "eval").mkdir()
    csv_path = tmp_path / "attribute_actions.csv"
    csv_path.write_text(
        "action_name,attribute,value,requires_tool,description\n"
        'polish,is_polished,false,true,"Make it shine, with a cloth."\n',
        encoding="utf-8",
    )
    assert find_attribute_table(tmp_path / "eval") == csv_path
    row = load_attribute_table(csv_path).get("polish")
    assert (row.attribute, row.value, row.requires_tool) == ("is_polished", False, True)
    assert row.description == "Make it shine, with a cloth."


def test_attribute_table_errors(tmp_path: Path) -> None:
    bad_header = tmp_path / "a.csv"
    bad_header.write_text("verb,attribute\nx,y\n", encoding="utf-8")
    with pytest.raises(DataError, match="the header action_name"):
        load_attribute_table(bad_header)
    bad_bool = tmp_path / "b.csv"
    bad_bool.write_text(
        "action_name,attribute,value,requires_tool,description\nx,is_x,maybe,false,d\n", encoding="utf-8"
    )
    with pytest.raises(DataError) as err:
        load_attribute_table(bad_bool)
    assert err.value.pointer == "/1/value"
    with pytest.raises(DataError, match="an attribute-action table"):
        find_attribute_table(tmp_path / "nowhere")
