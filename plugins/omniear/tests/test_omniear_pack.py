"""The shipped generated pack: reproducible from its seed, small, in the official format, oracle-solvable."""

from __future__ import annotations

import json
from pathlib import Path

from suite_omniear.data import CATEGORIES, find_attribute_table, load_attribute_table, load_tasks
from suite_omniear.oracle import run_oracle
from suite_omniear.pack import generate
from suite_omniear.pack.catalog import VERBS
from suite_omniear.sim import OmniSim

PACK = Path(generate.__file__).parent / "data"


def shipped_files() -> dict[str, bytes]:
    return {p.relative_to(PACK).as_posix(): p.read_bytes() for p in sorted(PACK.rglob("*")) if p.is_file()}


def test_regenerating_with_the_seed_is_byte_identical(tmp_path: Path) -> None:
    manifest = json.loads((PACK / "PACK.json").read_text(encoding="utf-8"))
    assert manifest["generator_version"] == generate.GENERATOR_VERSION
    assert (
        generate.main(
            [
                "--seed",
                str(manifest["seed"]),
                "--out",
                str(tmp_path),
                "--per-category",
                str(manifest["per_category"]),
            ]
        )
        == 0
    )
    regenerated = {
        p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()
    }
    assert regenerated == shipped_files()


def test_pack_shape_and_size() -> None:
    files = shipped_files()
    assert sum(len(b) for b in files.values()) < 5_000_000  # 560 tasks, 3.7 MB
    manifest = json.loads(files["PACK.json"])
    assert manifest["categories"] == dict.fromkeys(CATEGORIES, manifest["per_category"])
    assert set(manifest["files"]) == set(files) - {"PACK.json"}
    table = load_attribute_table(find_attribute_table(PACK))
    assert list(table.actions) == [v.name for v in VERBS]  # our own table, not the upstream one


def test_oracle_solves_every_shipped_task() -> None:
    table = load_attribute_table(find_attribute_table(PACK))
    tasks = load_tasks(PACK)
    assert len(tasks) == 7 * generate.PER_CATEGORY and all(t.warnings == () for t in tasks)
    for task in tasks:
        sim = OmniSim.from_eval_task(task, table)
        planner = run_oracle(sim)
        assert sim.task_success and sim.terminated, (task.key, planner.infeasible)
