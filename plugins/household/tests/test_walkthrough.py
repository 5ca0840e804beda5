"""A kitchen walkthrough: find, pick by pixel, wash, microwave, brew and slice, seen in the pixels."""

from __future__ import annotations

import numpy as np
import pytest
from suite_household.controller import Controller, Event
from suite_household.generator import generate_room

W, H = 320, 240


@pytest.fixture(scope="module")
def ctl() -> Controller:
    return Controller(
        scene=generate_room("Kitchen", seed=7),
        width=W,
        height=H,
        renderDepthImage=True,
        renderInstanceSegmentation=True,
    )


def find(ctl: Controller, object_type: str) -> str:
    return next(o["objectId"] for o in ctl.last_event.metadata["objects"] if o["objectType"] == object_type)


def meta(event: Event, object_id: str) -> dict:
    return next(o for o in event.metadata["objects"] if o["objectId"] == object_id)


def approach(ctl: Controller, object_id: str, min_pixels: int = 12) -> Event:
    """Stand at the nearest reachable spots and rotate in 30-degree steps until the object is visible."""
    positions = ctl.step(action="GetReachablePositions").metadata["actionReturn"]
    box = meta(ctl.last_event, object_id)["axisAlignedBoundingBox"]["center"]
    positions.sort(key=lambda p: (p["x"] - box["x"]) ** 2 + (p["z"] - box["z"]) ** 2)
    for pos in positions[:8]:
        for horizon in (30, 60, 0):
            ev = ctl.step(
                action="TeleportFull", position=pos, rotation={"y": 0}, horizon=horizon, standing=True
            )
            assert ev.metadata["lastActionSuccess"], ev.metadata["errorMessage"]
            for _ in range(12):
                if (
                    meta(ev, object_id)["visible"]
                    and ev.instance_masks.get(object_id, np.zeros(1)).sum() >= min_pixels
                ):
                    return ev
                ev = ctl.step(action="RotateRight", degrees=30)
    raise AssertionError(f"{object_id} never became visible")


def pixel_of(event: Event, object_id: str) -> tuple[float, float]:
    """Normalised (x, y) of the mask pixel nearest the mask's centroid."""
    rows, cols = np.nonzero(event.instance_masks[object_id])
    k = np.argmin((rows - rows.mean()) ** 2 + (cols - cols.mean()) ** 2)
    return (cols[k] + 0.5) / W, (rows[k] + 0.5) / H


def mean_color(event: Event, mask: np.ndarray) -> np.ndarray:
    return event.frame[mask].astype(float).mean(axis=0)


def ok(event: Event) -> Event:
    assert event.metadata["lastActionSuccess"], event.metadata["errorMessage"]
    return event


def test_wash_a_mug_in_the_sink(ctl: Controller) -> None:
    mug = find(ctl, "Mug")
    ok(ctl.step(action="DirtyObject", objectId=mug, forceAction=True))
    ev = approach(ctl, mug)
    x, y = pixel_of(ev, mug)
    ev = ok(ctl.step(action="PickupObject", x=x, y=y))
    assert ev.metadata["inventoryObjects"] == [{"objectId": mug, "objectType": "Mug"}]
    basin = find(ctl, "SinkBasin")
    ev = approach(ctl, basin)
    x, y = pixel_of(ev, basin)
    ev = ok(ctl.step(action="PutObject", x=x, y=y))
    assert basin in meta(ev, mug)["parentReceptacles"]
    before = approach(ctl, mug, min_pixels=40)
    mask = before.instance_masks[mug]
    assert meta(before, mug)["isDirty"]
    after = ok(ctl.step(action="ToggleObjectOn", objectId=find(ctl, "Faucet")))
    assert not meta(after, mug)["isDirty"] and meta(after, mug)["isFilledWithLiquid"]
    assert meta(after, mug)["fillLiquid"] == "water"
    assert np.abs(mean_color(before, mask) - mean_color(after, mask)).sum() > 10
    ok(ctl.step(action="ToggleObjectOff", objectId=find(ctl, "Faucet")))


def test_microwave_cooks_a_potato(ctl: Controller) -> None:
    potato, microwave = find(ctl, "Potato"), find(ctl, "Microwave")
    ev = approach(ctl, potato)
    ok(ctl.step(action="PickupObject", x=pixel_of(ev, potato)[0], y=pixel_of(ev, potato)[1]))
    approach(ctl, microwave)
    ok(ctl.step(action="OpenObject", objectId=microwave))
    ev = ok(ctl.step(action="PutObject", objectId=microwave))
    before = approach(ctl, potato)
    mask = before.instance_masks[potato]
    ok(ctl.step(action="CloseObject", objectId=microwave))
    glow = ok(ctl.step(action="ToggleObjectOn", objectId=microwave))
    assert meta(glow, potato)["isCooked"] and meta(glow, microwave)["isToggled"]
    assert not meta(glow, potato)["visible"]  # hidden inside the closed microwave
    ok(ctl.step(action="ToggleObjectOff", objectId=microwave))
    after = ok(ctl.step(action="OpenObject", objectId=microwave))
    assert meta(after, potato)["isCooked"]
    assert np.abs(mean_color(before, mask) - mean_color(after, mask)).sum() > 30


def test_coffee_machine_fills_a_mug(ctl: Controller) -> None:
    mug, machine = find(ctl, "Mug"), find(ctl, "CoffeeMachine")
    approach(ctl, mug)
    ok(ctl.step(action="PickupObject", objectId=mug))
    if ctl.world.objects[mug].fill is not None:  # an earlier test of the module (not always run first) filled it
        ok(ctl.step(action="EmptyLiquidFromObject", objectId=mug))
    ev = approach(ctl, machine)
    x, y = pixel_of(ev, machine)
    ok(ctl.step(action="PutObject", x=x, y=y))
    before = approach(ctl, mug, min_pixels=30)
    mask = before.instance_masks[mug]
    assert not meta(before, mug)["isFilledWithLiquid"]
    after = ok(ctl.step(action="ToggleObjectOn", objectId=machine))
    assert meta(after, mug)["fillLiquid"] == "coffee"
    assert np.abs(mean_color(before, mask) - mean_color(after, mask)).sum() > 10


def test_knife_slices_bread(ctl: Controller) -> None:
    knife, bread = find(ctl, "Knife"), find(ctl, "Bread")
    approach(ctl, knife)
    ok(ctl.step(action="PickupObject", objectId=knife))
    before = approach(ctl, bread)
    mask = before.instance_masks[bread]
    x, y = pixel_of(before, bread)
    after = ok(ctl.step(action="SliceObject", x=x, y=y))
    types = [o["objectType"] for o in after.metadata["objects"]]
    assert "Bread" not in types and types.count("BreadSliced") == 6
    assert all(o["isSliced"] for o in after.metadata["objects"] if o["objectType"] == "BreadSliced")
    assert np.abs(mean_color(before, mask) - mean_color(after, mask)).sum() > 10
