"""`suite-household-player` driven by ai2thor 5.0.0's real Controller (skipped without the thor extra)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from suite_household.catalog import TYPES, can_hold
from suite_household.controller import Controller as Embedded
from suite_household.generator import generate_room
from suite_household.testing import player_executable, use_household_player
from suite_household.thor_backend import launch_settings

ai2thor = pytest.importorskip("ai2thor.controller")


@pytest.fixture
def kitchen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    scene = generate_room("Kitchen", 3, name="FloorPlan1")
    use_household_player(monkeypatch, tmp_path, [scene])
    return scene


def _controller(**settings: object) -> object:
    return ai2thor.Controller(scene="FloorPlan1", width=96, height=64, server_timeout=60, **launch_settings(),
                              **settings)


def test_frames_and_metadata_are_the_embedded_simulators(kitchen) -> None:
    c = _controller(renderDepthImage=True, renderInstanceSegmentation=True)
    try:
        event = c.step(action="RotateRight")
        local = Embedded(kitchen, width=96, height=64, renderDepthImage=True, renderInstanceSegmentation=True)
        expected = local.step(action="RotateRight")
        assert event.metadata["sceneName"] == "FloorPlan1" and event.metadata["lastActionSuccess"]
        assert event.metadata["agent"] == expected.metadata["agent"]
        assert event.metadata["objects"] == expected.metadata["objects"]
        assert np.array_equal(event.frame, expected.frame)  # rows arrive bottom first and are flipped back
        assert np.allclose(event.depth_frame, expected.depth_frame)
        assert np.array_equal(event.instance_segmentation_frame, expected.instance_segmentation_frame)
        assert event.color_to_object_id == expected.color_to_object_id
        seen = next(o for o in expected.metadata["objects"] if o["visible"])
        assert event.instance_masks[seen["objectId"]].any()
    finally:
        c.stop()


def test_failures_unknown_actions_and_headless_steps(kitchen) -> None:
    c = _controller()
    try:
        failed = c.step(action="PickupObject", objectId="Nothing|1")
        assert failed.metadata["lastActionSuccess"] is False
        assert failed.metadata["errorMessage"] == "Object ID appears to be invalid."
        with pytest.raises(ValueError, match="Invalid action: Fly"):  # AI2-THOR's errorCode InvalidAction
            c.step(action="Fly")
        assert c.step(action="Pass", renderImage=False).frame is None
        assert c.step(action="Pass").frame.shape == (64, 96, 3)
    finally:
        c.stop()


def test_a_headless_controller_gets_metadata_only(kitchen) -> None:
    c = _controller(headless=True)
    try:
        assert c.last_event.frame is None
        event = c.step(action="RotateLeft")
        assert event.frame is None and event.metadata["lastActionSuccess"] and event.metadata["objects"]
    finally:
        c.stop()


def test_interactable_poses_see_the_object_and_disabled_objects_are_gone(kitchen) -> None:
    c = _controller()
    try:
        fridge = next(o.id for o in kitchen.objects if o.type == "Fridge")
        poses = c.step(action="GetInteractablePoses", objectId=fridge, standings=[True]).metadata["actionReturn"]
        assert poses and all(p["standing"] for p in poses)
        p = poses[0]
        event = c.step(action="TeleportFull", position={"x": p["x"], "y": p["y"], "z": p["z"]},
                       rotation={"x": 0, "y": p["rotation"], "z": 0}, horizon=p["horizon"], standing=True)
        assert next(o for o in event.metadata["objects"] if o["objectId"] == fridge)["visible"]
        apple = next(o.id for o in kitchen.objects if o.type == "Apple")
        event = c.step(action="DisableObject", objectId=apple)
        assert apple not in {o["objectId"] for o in event.metadata["objects"]}
    finally:
        c.stop()


def test_an_unknown_scene_names_the_scene_folders(kitchen) -> None:
    c = _controller()
    try:
        with pytest.raises(ValueError, match="FloorPlan31"):  # no iTHOR scene, not in GetScenesInBuild
            c.reset("FloorPlan31")
    finally:
        c.stop()


def test_the_player_refuses_to_start_outside_ai2thor() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AI2THOR_")}
    done = subprocess.run([player_executable()], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "AI2THOR_SERVER_TYPE must be FIFO" in done.stderr


def test_teleport_object_moves_an_object_and_what_is_on_it(kitchen) -> None:
    """AI2-THOR's TeleportObject: `position` is the object's pivot (here the bottom centre of its box); what is
    in or on it moves along; a new rotation is refused (objects here do not turn)."""
    world = Embedded(kitchen).world
    carrier = next(o for o in world.objects.values() if TYPES[o.type].pickupable and TYPES[o.type].receptacle)
    item = next(o for o in world.objects.values() if o.id != carrier.id and can_hold(carrier.type, o.type))
    c = _controller()
    try:
        c.step(action="PickupObject", objectId=item.id, forceAction=True)
        c.step(action="PutObject", objectId=carrier.id, forceAction=True)
        before = {o["objectId"]: o for o in c.last_event.metadata["objects"]}
        assert before[item.id]["parentReceptacles"][0] == carrier.id
        p, turn = before[carrier.id]["position"], before[carrier.id]["rotation"]
        to = {"x": round(p["x"] + 0.05, 4), "y": p["y"], "z": round(p["z"] - 0.02, 4)}
        event = c.step(action="TeleportObject", objectId=carrier.id, position=to, rotation=turn, forceAction=True,
                       forceKinematic=True)
        assert event.metadata["lastActionSuccess"], event.metadata["errorMessage"]
        after = {o["objectId"]: o for o in event.metadata["objects"]}
        assert after[carrier.id]["position"] == to
        was, now = before[item.id]["position"], after[item.id]["position"]
        assert (round(now["x"] - was["x"], 4), now["y"], round(now["z"] - was["z"], 4)) == (0.05, was["y"], -0.02)
        assert after[item.id]["parentReceptacles"][0] == carrier.id
        turned = c.step(action="TeleportObject", objectId=carrier.id, position=to,
                        rotation={"x": 0, "y": turn["y"] + 90, "z": 0})
        assert not turned.metadata["lastActionSuccess"] and "rotate" in turned.metadata["errorMessage"]
    finally:
        c.stop()
