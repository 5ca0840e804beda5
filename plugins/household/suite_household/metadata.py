"""AI2-THOR style event metadata built from a world snapshot."""

from __future__ import annotations

import math
from typing import Any

from suite_household.catalog import TYPES
from suite_household.geometry import hand_position
from suite_household.world import AGENT_CENTER_Y, Obj, World


def _vec(x: float, y: float, z: float) -> dict[str, float]:
    return {"x": round(x, 4), "y": round(y, 4), "z": round(z, 4)}


def _corners(cx: float, cy: float, cz: float, sx: float, sy: float, sz: float) -> list[list[float]]:
    return [
        [round(cx + a * sx / 2, 4), round(cy + b * sy / 2, 4), round(cz + c * sz / 2, 4)]
        for a in (1, -1)
        for b in (1, -1)
        for c in (1, -1)
    ]


def _static_metadata(obj: Obj) -> dict[str, Any]:
    """The keys of an object's entry that depend on its record alone (its pose as it rests, not held)."""
    t = TYPES[obj.type]
    cx, cy, cz = obj.center
    sx, sy, sz = obj.size
    return {
        "name": obj.name,
        "objectId": obj.id,
        "objectType": obj.type,
        "assetId": obj.type,
        "position": _vec(cx, cy - sy / 2, cz),
        "rotation": _vec(0.0, float(obj.facing), 0.0),
        "visible": False,
        "isInteractable": False,
        "distance": 0.0,
        "receptacle": t.receptacle,
        "receptacleObjectIds": None,
        "parentReceptacles": None,
        "pickupable": t.pickupable,
        "isPickedUp": obj.picked_up,
        "moveable": t.moveable,
        "openable": t.openable,
        "isOpen": obj.is_open,
        "openness": 1.0 if obj.is_open else 0.0,
        "toggleable": t.toggleable,
        "isToggled": obj.is_toggled,
        "sliceable": t.sliceable,
        "isSliced": obj.is_sliced,
        "cookable": t.cookable,
        "isCooked": obj.is_cooked,
        "dirtyable": t.dirtyable,
        "isDirty": obj.is_dirty,
        "canFillWithLiquid": t.can_fill,
        "isFilledWithLiquid": obj.fill is not None,
        "fillLiquid": obj.fill,
        "breakable": t.breakable,
        "isBroken": obj.is_broken,
        "canBeUsedUp": False,
        "isUsedUp": False,
        "isHeatSource": t.heat_source and obj.is_toggled,
        "isColdSource": t.cold_source,
        "temperature": obj.temperature,
        "controlledObjects": list(obj.controls) or None,
        "isMoving": False,
        "mass": 0.0,
        "salientMaterials": None,
        "axisAlignedBoundingBox": {
            "cornerPoints": _corners(cx, cy, cz, sx, sy, sz),
            "center": _vec(cx, cy, cz),
            "size": _vec(sx, sy, sz),
        },
        "objectOrientedBoundingBox": None,
    }


class MetadataCache:
    """Builds `metadata['objects']` entries step after step, reusing the part of an entry that depends on the
    object's record alone while that record is unchanged (records are replaced, never mutated, on a change).

    Only the pose-dependent keys (visibility, distance, containment, a carried object's position) are computed
    per step; every step gets entries of its own, so an earlier event's metadata never changes."""

    def __init__(self) -> None:
        self._static: dict[str, tuple[Obj, dict[str, Any]]] = {}

    def objects(self, world: World, seen: dict[str, bool]) -> list[dict[str, Any]]:
        """Every entry of `metadata['objects']`, given each object's visibility."""
        carried = {world.held, *world.descendants(world.held)} if world.held else set()
        camera = world.agent.camera
        return [
            self._entry(world, obj, seen[oid], oid in carried or obj.picked_up, camera)
            for oid, obj in world.objects.items()
        ]

    def entry(self, world: World, obj: Obj, visible: bool) -> dict[str, Any]:
        """One entry of `metadata['objects']`."""
        carried = obj.picked_up or (world.held is not None and obj.id in (world.held, *world.descendants(world.held)))
        return self._entry(world, obj, visible, carried, world.agent.camera)

    def _entry(
        self, world: World, obj: Obj, visible: bool, carried: bool, camera: tuple[float, float, float]
    ) -> dict[str, Any]:
        hit = self._static.get(obj.id)
        if hit is None or hit[0] is not obj:
            hit = (obj, _static_metadata(obj))
            self._static[obj.id] = hit
        out = hit[1].copy()
        if carried:
            cx, cy, cz = _carried_center(world, obj)
            sx, sy, sz = obj.size
            out["position"] = _vec(cx, cy - sy / 2, cz)
            out["axisAlignedBoundingBox"] = {
                "cornerPoints": _corners(cx, cy, cz, sx, sy, sz),
                "center": _vec(cx, cy, cz),
                "size": _vec(sx, sy, sz),
            }
        else:
            cx, cy, cz = obj.center
        out["visible"] = out["isInteractable"] = visible
        out["distance"] = round(math.dist(camera, (cx, cy, cz)), 4)
        if out["receptacle"]:
            out["receptacleObjectIds"] = list(world.children(obj.id))
        if obj.parent is not None:
            out["parentReceptacles"] = world.ancestors(obj.id)
        return out


def _carried_center(world: World, obj: Obj) -> tuple[float, float, float]:
    """Where a held object (or something on or in it) is: moved with the agent's hand."""
    hx, hy, hz = hand_position(world.agent)
    if obj.picked_up:
        return hx, hy, hz
    if world.held is None:  # callers pass what the agent holds or what is on or in it
        raise ValueError(f"{obj.id} is not carried: the agent holds nothing")
    px, py, pz = world.objects[world.held].center
    cx, cy, cz = obj.center
    return cx + hx - px, cy + hy - py, cz + hz - pz


def object_metadata(world: World, obj: Obj, visible: bool) -> dict[str, Any]:
    """One entry of `metadata['objects']` with AI2-THOR's keys."""
    return MetadataCache().entry(world, obj, visible)


def agent_metadata(world: World) -> dict[str, Any]:
    """`metadata['agent']`: pose, camera horizon and stance."""
    a = world.agent
    return {
        "name": "agent",
        "position": _vec(a.x, AGENT_CENTER_Y, a.z),
        "rotation": _vec(0.0, a.yaw % 360, 0.0),
        "cameraHorizon": a.horizon,
        "isStanding": a.standing,
        "inHighFrictionArea": False,
    }
