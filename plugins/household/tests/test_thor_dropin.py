"""The household player as a drop-in for AI2-THOR: the first steps of AI2-THOR's own tutorial, unchanged, through
ai2thor 5.0.0's real Controller with no scene folder set (skipped without the thor extra)."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite_household.player import SceneLibrary
from suite_household.procthor import procthor_house
from suite_household.testing import player_executable
from suite_household.thor_backend import EXECUTABLE_ENV, launch_settings

ai2thor = pytest.importorskip("ai2thor.controller")


@pytest.fixture
def player(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """`local_executable_path=` the player (and the display ai2thor wants on Linux), no scene folder set."""
    monkeypatch.delenv("SUITE_HOUSEHOLD_SCENES", raising=False)
    monkeypatch.setenv(EXECUTABLE_ENV, player_executable())
    return launch_settings()


def _act_on_one(controller: object, flag: str, action: str) -> object:
    """`action` on the first object with `flag` it succeeds on, standing at poses ai2thor's GetInteractablePoses
    offers; the event."""
    step = controller.step  # type: ignore[attr-defined]
    for obj in controller.last_event.metadata["objects"]:  # type: ignore[attr-defined]
        if obj[flag] and not obj.get("isPickedUp"):
            for pose in step("GetInteractablePoses", objectId=obj["objectId"]).metadata["actionReturn"][:4]:
                step("TeleportFull", **pose)
                if (event := step(action=action, objectId=obj["objectId"])).metadata["lastActionSuccess"]:
                    return event
    pytest.fail(f"{action} succeeded on no {flag} object")


def test_the_tutorials_first_steps_run_unchanged(player: dict[str, str]) -> None:
    controller = ai2thor.Controller(
        **player, server_timeout=60,
        agentMode="default", visibilityDistance=1.5, scene="FloorPlan1", gridSize=0.25, snapToGrid=True,
        rotateStepDegrees=90, renderDepthImage=False, renderInstanceSegmentation=False, width=300, height=300,
        fieldOfView=90)
    try:
        assert controller.scene == "FloorPlan1_physics"
        assert controller.last_event.metadata["sceneName"] == "FloorPlan1_physics"
        assert controller.last_event.frame.shape == (300, 300, 3)
        for action in ("MoveAhead", "RotateRight", "LookUp", "LookDown"):
            event = controller.step(action)
            assert event.metadata["lastAction"] == action and "errorMessage" in event.metadata
        for flag, action in (("pickupable", "PickupObject"), ("openable", "OpenObject"),
                             ("toggleable", "ToggleObjectOn")):
            assert _act_on_one(controller, flag, action).metadata["lastAction"] == action
        with pytest.raises(ValueError, match="Invalid action: Fly"):  # ai2thor raises on errorCode InvalidAction
            controller.step("Fly")
        controller.reset(scene="FloorPlan201")
        kinds = {o["objectType"] for o in controller.last_event.metadata["objects"]}
        assert controller.scene == "FloorPlan201_physics" and {"Sofa", "Television"} <= kinds
        with pytest.raises(ValueError, match="FloorPlan31_physics"):  # as ai2thor refuses a scene not in the build
            controller.reset(scene="FloorPlan31")
        house = procthor_house(SceneLibrary([]).load("FloorPlan301"))
        house["metadata"]["name"] = "a house of our own"
        controller.reset(scene=house)
        rooms = {o["objectType"] for o in controller.last_event.metadata["objects"]}
        assert controller.last_event.metadata["sceneName"] == "Procedural" and "Bed" in rooms
    finally:
        controller.stop()


def test_every_ithor_name_is_served_with_its_room_type_and_the_same_each_time() -> None:
    library = SceneLibrary([Path("/nonexistent")])
    types = {n: library.load(f"FloorPlan{n}").rooms[0].type for n in (1, 30, 201, 230, 301, 330, 401, 430)}
    assert types == {1: "Kitchen", 30: "Kitchen", 201: "LivingRoom", 230: "LivingRoom", 301: "Bedroom",
                     330: "Bedroom", 401: "Bathroom", 430: "Bathroom"}
    first, again = library.load("FloorPlan5_physics"), library.load("FloorPlan5_physics")
    assert first.objects == again.objects and first.objects != library.load("FloorPlan6").objects
    assert {"FloorPlan1", "FloorPlan430_physics"} <= set(library.names())
