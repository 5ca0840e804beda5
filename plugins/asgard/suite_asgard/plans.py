"""Plan files (`<plan folder>/plan.json`): typed records, the loader, and where plans live in a data dir."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from suite.contract.errors import DataError
from suite.contract.schemas import read_json, validate
from suite_household.catalog import TYPES
from suite_household.generator import floorplan_room_type

from suite_asgard.vocabulary import step_limits, task_type

SCHEMA = Path(__file__).parent / "schemas" / "plan.schema.json"
PLAN_FILE = "plan.json"
#: Where `suite data pull asgard` puts the benchmark's plans inside the data dir (as in the repository).
GENERATED = "Generated"
#: The file that marks a data dir as our generated pack (wherever it is copied).
PACK_MANIFEST = "PACK.json"


@dataclass(frozen=True)
class SetupAction:
    """A variation condition applied to a named object before the episode (`dirty`, `fill`, `empty`, `clean`)."""

    action: str
    object_name: str
    argument: str | None = None

    @property
    def object_type(self) -> str:
        """The type part of the object name (`Mug_a529cf46` -> `Mug`)."""
        return self.object_name.split("_", 1)[0]


@dataclass(frozen=True)
class StateGoal:
    """An object property that must hold (`Mug.isDirty == False`)."""

    object_type: str
    state: str
    value: bool

    def label(self) -> str:
        """A short readable form."""
        return f"{self.object_type}.{self.state}={self.value}"


@dataclass(frozen=True)
class LocationGoal:
    """An object of a type that must be in or on a container of a type."""

    object_type: str
    destination_type: str

    def label(self) -> str:
        """A short readable form."""
        return f"{self.object_type} in {self.destination_type}"


@dataclass(frozen=True)
class ContentsGoal:
    """A container whose contents must be exactly these types (each at least once)."""

    container_type: str
    contents: tuple[str, ...]

    def label(self) -> str:
        """A short readable form."""
        return f"{self.container_type} holds only {'+'.join(self.contents)}"


@dataclass(frozen=True)
class Goals:
    """Every goal of a plan (the five categories of the paper's A.4)."""

    state: tuple[StateGoal, ...]
    location: tuple[LocationGoal, ...]
    put_away: tuple[str, ...]
    actions: tuple[str, ...]
    contents: tuple[ContentsGoal, ...]


@dataclass(frozen=True)
class Pose:
    """The plan's initial agent pose (AI2-THOR coordinates of the real FloorPlan)."""

    x: float
    y: float
    z: float
    rotation: float
    horizon: float
    standing: bool


@dataclass(frozen=True)
class Plan:
    """One task instance: its scene, variation, goals and reference solution length N."""

    id: str
    name: str
    task_description: str
    scene: str
    step_count: int
    seed: int
    setup_actions: tuple[SetupAction, ...]
    target_types: tuple[str, ...]
    target_containers: tuple[str, ...]
    goals: Goals
    pose: Pose
    task_type: str

    @property
    def limits(self) -> tuple[int, int]:
        """(soft, hard) step limits."""
        return step_limits(self.step_count)


def _types(spec: dict[str, Any] | None) -> tuple[str, ...]:
    return tuple((spec or {}).get("types") or ())


def plan_from_dict(data: dict[str, Any], folder: str, source: str | Path) -> Plan:
    """A Plan from the parsed JSON of `plan.json` in `folder` (validated against the schema)."""
    validate(data, SCHEMA, source)
    kind = task_type(data["name"])
    if kind is None:
        raise DataError(source, "/name", "a plan name of a known family (coffee__, cook__, distribute__, putaway__, "
                        f"settable__, clean_mirror__, turn_on_tv__), not {data['name']!r}")
    check_named_types(data, source)
    goal = data["goal"]
    target = data["object_setup"]["target_setup"]
    pose = data["initial_pose"]
    return Plan(
        id=folder,
        name=data["name"],
        task_description=data["task_description"],
        scene=data["scene"],
        step_count=int(data["step_count"]),
        seed=int(data["randomization"]["seed"]),
        setup_actions=tuple(SetupAction(a["action"], a["object_name"], a.get("argument"))
                            for a in data["setup_actions"]),
        target_types=_types(target.get("object_specifier")),
        target_containers=_types(target.get("container_specifier")),
        goals=Goals(
            state=tuple(StateGoal(g["object_type"], g["state"], bool(g["value"])) for g in goal["state_goals"]),
            location=tuple(LocationGoal(g["object_type"], g["destination_type"]) for g in goal["location_goals"]),
            put_away=tuple(g["object_type"] for g in goal["put_away_goals"]),
            actions=tuple(name for name, wanted in goal["action_goals"].items() if wanted),
            contents=tuple(ContentsGoal(g["container_type"], tuple(g["contents"])) for g in goal["contents_goals"]),
        ),
        pose=Pose(pose["position"]["x"], pose["position"]["y"], pose["position"]["z"], float(pose["rotation"]),
                  float(pose["horizon"]), bool(pose["isStanding"])),
        task_type=kind,
    )


def named_types(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Every object type a plan names, with its JSON pointer: its setup actions' objects, its targets and its goals."""
    goal = data["goal"]
    named = [(f"/setup_actions/{i}/object_name", object_type(a["object_name"]))
             for i, a in enumerate(data["setup_actions"])]
    target = data["object_setup"]["target_setup"]
    for key in ("object_specifier", "container_specifier"):
        named += [(f"/object_setup/target_setup/{key}/types/{i}", t) for i, t in enumerate(_types(target.get(key)))]
    for i, g in enumerate(goal["state_goals"]):
        named.append((f"/goal/state_goals/{i}/object_type", g["object_type"]))
    for i, g in enumerate(goal["location_goals"]):
        named += [(f"/goal/location_goals/{i}/{key}", g[key]) for key in ("object_type", "destination_type")]
    named += [(f"/goal/put_away_goals/{i}/object_type", g["object_type"]) for i, g in enumerate(goal["put_away_goals"])]
    for i, g in enumerate(goal["contents_goals"]):
        named.append((f"/goal/contents_goals/{i}/container_type", g["container_type"]))
        named += [(f"/goal/contents_goals/{i}/contents/{k}", t) for k, t in enumerate(g["contents"])]
    return named


def check_named_types(data: dict[str, Any], source: str | Path) -> None:
    """Every type the plan names is one the simulator knows (an unknown one would be dropped from the scene, and a goal
    over it hold vacuously), and its scene is an iTHOR FloorPlan of a known room type."""
    try:
        floorplan_room_type(data["scene"])
    except KeyError:
        raise DataError(source, "/scene", f"an iTHOR FloorPlan (1-30 kitchens, 201-230 living rooms, 301-330 bedrooms, "
                        f"401-430 bathrooms), not {data['scene']!r}") from None
    for pointer, name in named_types(data):
        if name not in TYPES:
            raise DataError(source, pointer, f"an object type the simulator knows, not {name!r}")


def object_type(name: str) -> str:
    """The type of an object name (`Mug_a529cf46` -> `Mug`, `Mug` -> `Mug`)."""
    return name.rsplit("_", 1)[0] if "_" in name else name


def load_plan(folder: Path) -> Plan:
    """Read and validate `folder/plan.json`; the folder name (spaces, brackets, `[N]`) is the task id."""
    path = folder / PLAN_FILE
    return plan_from_dict(read_json(path), folder.name, path)


def _holds_plans(path: Path) -> bool:
    return path.is_dir() and any((p / PLAN_FILE).is_file() for p in path.iterdir() if p.is_dir())


def plans_root(data_dir: Path, test_set: str) -> Path:
    """The folder of plan folders: the data dir itself, or `Generated/<test_set>` (or `<test_set>`) inside it."""
    for candidate in (data_dir, data_dir / GENERATED / test_set, data_dir / test_set):
        if _holds_plans(candidate):
            return candidate
    raise DataError(data_dir, "/", f"plan folders (<name>/plan.json), directly or under {GENERATED}/{test_set}/")


def load_plans(data_dir: Path, test_set: str) -> list[Plan]:
    """Every plan under the data dir, sorted by folder name."""
    root = plans_root(Path(data_dir), test_set)
    return [load_plan(p) for p in sorted(root.iterdir()) if (p / PLAN_FILE).is_file()]


def is_data_dir(path: Path, test_set: str = "magt_benchmark") -> bool:
    """Whether the folder holds AsgardBench plans (for the data-source lookup)."""
    try:
        plans_root(Path(path), test_set)
    except DataError:
        return False
    return True
