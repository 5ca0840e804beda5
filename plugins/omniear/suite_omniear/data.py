"""Load OmniEAR data: scene and task files joined by file number, and the attribute-action table."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suite.contract.errors import DataError
from suite.contract.schemas import read_json, validate

SCHEMA_DIR = Path(__file__).parent / "schemas"
SCENE_SCHEMA = SCHEMA_DIR / "scene.schema.json"
TASK_SCHEMA = SCHEMA_DIR / "task.schema.json"
SPLITS = ("single-independent", "multi-independent")
TABLE_NAME = "attribute_actions.csv"
TABLE_COLUMNS = ("action_name", "attribute", "value", "requires_tool", "description")
COLLABORATION_CATEGORIES = frozenset(
    {"explicit_collaboration", "implicit_collaboration", "compound_collaboration"}
)
CATEGORIES = (
    "direct_command",
    "attribute_reasoning",
    "tool_use",
    "compound_reasoning",
    "explicit_collaboration",
    "implicit_collaboration",
    "compound_collaboration",
)


@dataclass(frozen=True, slots=True)
class RoomSpec:
    """A room as the scene file declares it."""

    id: str
    name: str
    properties: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ObjectSpec:
    """An object as the scene file declares it (properties and states are the file's, unmodified)."""

    id: str
    name: str
    type: str
    location_id: str
    properties: dict[str, Any]
    states: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SceneSpec:
    """One scene: rooms, objects and the attribute verbs it supports."""

    rooms: tuple[RoomSpec, ...]
    objects: tuple[ObjectSpec, ...]
    abilities: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """One agent's configuration (its id is agent_<n> in list order)."""

    id: str
    name: str
    max_grasp_limit: int
    max_weight: float
    max_size: Any


@dataclass(frozen=True, slots=True)
class Check:
    """One validation check: an object id and the conditions that must all hold."""

    object_id: str
    conditions: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """The task of an eval file: instruction, category, agents and validation checks."""

    description: str
    category: str
    checks: tuple[Check, ...]
    agents: tuple[AgentSpec, ...]
    background: str = ""
    scene_id: str = ""


@dataclass(frozen=True, slots=True)
class EvalTask:
    """A loaded eval task with its scene, file names and the data faults found while loading."""

    split: str
    number: str
    task_file: str
    scene_file: str
    task: TaskSpec
    scene: SceneSpec
    warnings: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The task's id as `<split>/<number>` (e.g. `single-independent/00001`)."""
        return f"{self.split}/{self.number}"


@dataclass(frozen=True, slots=True)
class AttributeAction:
    """One row of the attribute-action table: the verb flips `attribute` when it equals `value`."""

    name: str
    attribute: str
    value: bool
    requires_tool: bool
    description: str


@dataclass(frozen=True)
class AttributeTable:
    """The attribute-action table keyed by verb (lowercase), in file order."""

    actions: dict[str, AttributeAction] = field(default_factory=dict)

    def get(self, verb: str) -> AttributeAction | None:
        """The row for a lowercase verb, or None."""
        return self.actions.get(verb)


def _bool_cell(path: Path, line: int, column: str, text: str) -> bool:
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise DataError(path, f"/{line}/{column}", f"true or false, got {text!r}")
    return value == "true"


def load_attribute_table(path: str | Path) -> AttributeTable:
    """Read an attribute-action CSV (action_name, attribute, value, requires_tool, description)."""
    path = Path(path)
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            if tuple(reader.fieldnames or ()) != TABLE_COLUMNS:
                raise DataError(path, "/0", f"the header {','.join(TABLE_COLUMNS)}")
            actions: dict[str, AttributeAction] = {}
            for line, row in enumerate(reader, start=1):
                name = (row["action_name"] or "").strip().lower()
                if not name or not (row["attribute"] or "").strip():
                    raise DataError(path, f"/{line}", "an action_name and an attribute")
                actions[name] = AttributeAction(
                    name,
                    row["attribute"].strip(),
                    _bool_cell(path, line, "value", row["value"] or ""),
                    _bool_cell(path, line, "requires_tool", row["requires_tool"] or ""),
                    (row["description"] or "").strip(),
                )
    except OSError as exc:
        raise DataError(path, "/", f"a readable attribute-action table ({exc.strerror})") from exc
    return AttributeTable(actions)


def find_attribute_table(data_dir: str | Path) -> Path:
    """Locate `attribute_actions.csv` in the data dir or its parent (the eval dir sits below the table)."""
    data_dir = Path(data_dir)
    for candidate in (data_dir / TABLE_NAME, data_dir.parent / TABLE_NAME):
        if candidate.is_file():
            return candidate
    raise DataError(
        data_dir / TABLE_NAME, "/", f"an attribute-action table ({TABLE_NAME} in the data dir or its parent)"
    )


def scene_from_dict(raw: dict[str, Any]) -> SceneSpec:
    """Build a SceneSpec from an already-validated scene dict."""
    rooms = tuple(RoomSpec(r["id"], r["name"], dict(r.get("properties") or {})) for r in raw["rooms"])
    objects = tuple(
        ObjectSpec(
            o["id"],
            o["name"],
            o["type"],
            o["location_id"],
            dict(o.get("properties") or {}),
            dict(o.get("states") or {}),
        )
        for o in raw["objects"]
    )
    return SceneSpec(rooms, objects, tuple(raw["abilities"]), raw.get("description", ""))


def task_from_dict(raw: dict[str, Any]) -> TaskSpec:
    """Build a TaskSpec from an already-validated task dict (its first entry of `tasks`)."""
    entry = raw["tasks"][0]
    checks = tuple(
        Check(c["id"], tuple((k, v) for k, v in c.items() if k != "id")) for c in entry["validation_checks"]
    )
    agents = tuple(
        AgentSpec(f"agent_{i}", a["name"], a["max_grasp_limit"], a["max_weight"], a.get("max_size"))
        for i, a in enumerate(raw["agents_config"], start=1)
    )
    return TaskSpec(
        entry["task_description"],
        entry["task_category"],
        checks,
        agents,
        raw.get("task_background", ""),
        raw.get("scene_id", ""),
    )


def data_faults(label: str, task: TaskSpec, scene: SceneSpec) -> list[str]:
    """Faults the reference tolerates: checks on missing objects, unresolvable locations, scalar max_size."""
    room_ids = {r.id for r in scene.rooms}
    known = room_ids | {o.id for o in scene.objects}
    faults = []
    for index, check in enumerate(task.checks):
        if check.object_id not in known:
            faults.append(f"{label}: check {index} names {check.object_id!r}, which is not in the scene")
    for obj in scene.objects:
        parent = obj.location_id.split(":", 1)[-1]
        if not parent or parent not in known or parent == obj.id:
            faults.append(
                f"{label}: object {obj.id!r} has an unresolvable location_id {obj.location_id!r} "
                "(placed in the first room)"
            )
    for agent in task.agents:
        if not isinstance(agent.max_size, list):
            faults.append(
                f"{label}: {agent.name} has a scalar max_size {agent.max_size!r} "
                "(the reference simulator refuses to initialise this task)"
            )
    return faults


def load_task(data_dir: str | Path, split: str, number: str) -> EvalTask:
    """Read, validate and join `<split>/task/<number>_task.json` with `<split>/scene/<number>_scene.json`."""
    data_dir = Path(data_dir)
    task_path = data_dir / split / "task" / f"{number}_task.json"
    scene_path = data_dir / split / "scene" / f"{number}_scene.json"
    raw_task = read_json(task_path)
    validate(raw_task, TASK_SCHEMA, task_path)
    if not scene_path.is_file():
        raise DataError(scene_path, "/", f"a scene file for task {task_path.name} (joined by file number)")
    raw_scene = read_json(scene_path)
    validate(raw_scene, SCENE_SCHEMA, scene_path)
    task, scene = task_from_dict(raw_task), scene_from_dict(raw_scene)
    label = f"{split}/{number}"
    return EvalTask(
        split,
        number,
        f"{split}/task/{number}_task.json",
        f"{split}/scene/{number}_scene.json",
        task,
        scene,
        tuple(data_faults(label, task, scene)),
    )


def task_numbers(data_dir: str | Path, split: str) -> list[str]:
    """The file numbers of a split's task files, sorted."""
    folder = Path(data_dir) / split / "task"
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len("_task.json")] for p in folder.glob("*_task.json"))


def load_tasks(data_dir: str | Path, splits: tuple[str, ...] = SPLITS) -> list[EvalTask]:
    """Load every task of the given splits; a data dir without any task file is a DataError."""
    tasks = [
        load_task(data_dir, split, number) for split in splits for number in task_numbers(data_dir, split)
    ]
    if not tasks:
        raise DataError(data_dir, "/", f"task files under {' or '.join(s + '/task/' for s in splits)}")
    return tasks


def load_warnings(tasks: list[EvalTask]) -> list[str]:
    """All data-fault warnings of the loaded tasks, in task order."""
    return [w for t in tasks for w in t.warnings]
