"""AI2-THOR style event metadata built from a world snapshot."""

from __future__ import annotations

import math
from typing import Any

from suite_household.catalog import TYPES
from suite_household.geometry import hand_position
from suite_household.world import AGENT_CENTER_Y, Obj, World


def _vec(x: float, y: float, z: float) -> dict[str, float]:
    return {"x": round(x, 4), "y": round(y, 4), "z": round(z, 4)}


def object_metadata(world: World, obj: Obj, visible: bool) -> dict[str, Any]:
    """One entry of `metadata['objects']` with AI2-THOR's keys."""
    t = TYPES[obj.type]
    cx, cy, cz = hand_position(world.agent) if obj.picked_up else obj.center
    if not obj.picked_up and world.held and obj.id in world.descendants(world.held):
        hx, hy, hz = hand_position(world.agent)
        px, py, pz = world.objects[world.held].center
        cx, cy, cz = cx + hx - px, cy + hy - py, cz + hz - pz
    sx, sy, sz = obj.size
    cam = world.agent.camera
    corners = [
        [round(cx + a * sx / 2, 4), round(cy + b * sy / 2, 4), round(cz + c * sz / 2, 4)]
        for a in (1, -1)
        for b in (1, -1)
        for c in (1, -1)
    ]
    return {
        "name": obj.name,
        "objectId": obj.id,
        "objectType": obj.type,
        "assetId": obj.type,
        "position": _vec(cx, cy - sy / 2, cz),
        "rotation": _vec(0.0, float(obj.facing), 0.0),
        "visible": visible,
        "isInteractable": visible,
        "distance": round(math.dist(cam, (cx, cy, cz)), 4),
        "receptacle": t.receptacle,
        "receptacleObjectIds": list(world.children(obj.id)) if t.receptacle else None,
        "parentReceptacles": world.ancestors(obj.id) or None,
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
            "cornerPoints": corners,
            "center": _vec(cx, cy, cz),
            "size": _vec(sx, sy, sz),
        },
        "objectOrientedBoundingBox": None,
    }


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
