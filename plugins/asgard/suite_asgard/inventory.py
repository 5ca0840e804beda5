"""Which objects a FloorPlan holds: an inventory file (upstream item cache or our pack's), else a derived one.

The upstream `item_cache.json` is not shipped; `suite data pull asgard` fetches it beside the plans. Our
generated pack carries its own `inventories.json` in the same shape (`{"names": {FloorPlan: [Type_hash...]}}`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from suite.contract.schemas import read_json
from suite_household.catalog import TYPES
from suite_household.generator import default_inventory, floorplan_room_type

from suite_asgard.plans import Plan, object_type
from suite_asgard.vocabulary import REMOVED_TYPES

PACK_INVENTORIES = "inventories.json"
ITEM_CACHE = Path("AsgardBench") / "Data" / "item_cache.json"
_SEARCH_DEPTH = 3

Inventories = Mapping[str, list[str]]


def find_inventory_file(data_dir: Path, configured: str | None = None) -> Path | None:
    """The inventory file for a data dir: the configured one, else one in the data dir or up to 3 parents."""
    if configured:
        return Path(configured).expanduser()
    folder = Path(data_dir).resolve()
    for base in [folder, *folder.parents][: _SEARCH_DEPTH + 1]:
        for candidate in (base / PACK_INVENTORIES, base / ITEM_CACHE):
            if candidate.is_file():
                return candidate
    return None


def load_inventories(path: Path | None) -> dict[str, list[str]]:
    """FloorPlan -> object names from an inventory file (`names` section); empty when there is none."""
    if path is None:
        return {}
    data: Any = read_json(path)
    return {scene: list(names) for scene, names in (data.get("names") or {}).items()}


def scene_inventory(plan: Plan, inventories: Inventories) -> tuple[list[str], bool]:
    """The sanitised object names for the plan's scene, and whether they came from an inventory file.

    Sanitising follows the paper's generator: the PepperShaker is removed, one instance is kept of every
    pickupable type (the one a setup action names, else the first), and every target type and every object a
    setup action names is present.
    """
    listed = inventories.get(plan.scene)
    names = list(listed) if listed is not None else default_inventory(floorplan_room_type(plan.scene))
    wanted = {a.object_type: a.object_name for a in plan.setup_actions}
    kept: list[str] = []
    seen: set[str] = set()
    for name in names:
        otype = object_type(name)
        if otype in REMOVED_TYPES or otype not in TYPES:
            continue
        if TYPES[otype].pickupable:
            if otype in seen:
                continue
            seen.add(otype)
            name = wanted.get(otype, name)
        kept.append(name)
    present = {object_type(n) for n in kept}
    for otype in [*plan.target_types, *wanted]:
        if otype not in present and otype in TYPES:
            kept.append(wanted.get(otype, otype))
            present.add(otype)
    return kept, listed is not None
