"""`longact.env.backend=ai2thor` against a stand-in for `ai2thor.controller.Controller`.

AI2-THOR cannot start here (its Unity build is downloaded at run time and needs a display or GPU), so the stand-in
answers AI2-THOR's API from the household simulator, building the house it is handed back from our scene. Nothing
here is a recording of AI2-THOR; it checks that our side only needs what AI2-THOR's API offers: the house dict,
the controller settings, steps by action name and objectId, metadata, frames and the instance segmentation.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from suite_household.controller import Controller
from suite_household.testing import install_fake_ai2thor
from suite_household.world import Scene
from suite_longact.env import make_env_from_data
from suite_longact.oracle import Oracle
from suite_longact.plugin import make_env

from .conftest import config, pack_tasks

INTERACTIONS = 2  # AI2-THOR's metadata is read every step: the solution up to its second interaction


class HouseholdAsThor:
    """AI2-THOR's controller API answered by the household simulator."""

    scenes: ClassVar[dict[str, Scene]] = {}
    houses: ClassVar[list[dict[str, Any]]] = []
    settings: ClassVar[dict[str, Any]] = {}

    def __init__(self, scene: dict[str, Any], snapToGrid: bool = True, **settings: Any) -> None:
        HouseholdAsThor.houses.append(scene)
        HouseholdAsThor.settings = {**settings, "snapToGrid": snapToGrid}
        self.ctl = Controller(self.scenes[scene["metadata"]["name"]], **settings)
        self.last_event = self.ctl.last_event

    def step(self, action: str, **args: Any) -> Any:
        self.last_event = self.ctl.step(action=action, **args)
        return self.last_event

    def stop(self) -> None:
        """Nothing to release."""


@pytest.fixture
def thor(monkeypatch: pytest.MonkeyPatch) -> type[HouseholdAsThor]:
    HouseholdAsThor.scenes, HouseholdAsThor.houses = {}, []
    return install_fake_ai2thor(monkeypatch, HouseholdAsThor)


def test_the_oracle_actions_do_the_same_through_the_ai2thor_api(thor: type[HouseholdAsThor]) -> None:
    task = pack_tasks()[0]
    household = make_env_from_data(task, config())
    thor.scenes[task.data["house"]["id"]] = household.sim.ctl.scene
    household.reset()
    household.skip_observations()
    plan, actions, results = Oracle(household).solve(household.checklist.items), [], []
    while sum("object" in a for a in actions) < INTERACTIONS:
        actions.append(next(plan))
        results.append(household.step(actions[-1]).info)
    env = make_env("longact", task, config(image_size=48, env={"backend": "ai2thor"}))
    first = env.reset()
    assert first.images and first.data["instances"], "the observation comes from AI2-THOR's frames"
    house = thor.houses[-1]
    assert {r["roomType"] for r in house["rooms"]} == {"Kitchen", "LivingRoom", "Bedroom", "Bathroom"}
    ids = {o["id"] for o in house["objects"]} | {d["id"] for d in house["doors"]}
    assert {i["object_id"] for i in task.data["checklist"]} <= ids
    assert thor.settings["gridSize"] == 0.05 and thor.settings["rotateStepDegrees"] == 30
    assert thor.settings["renderInstanceSegmentation"] and thor.settings["snapToGrid"] is False
    env.skip_observations()
    for action, info in zip(actions, results, strict=True):
        assert env.step(action).info == info, action
    assert env.checklist.status == household.checklist.status and any(env.checklist.status)
    assert env.counts.nav == household.counts.nav and env.counts.manip == household.counts.manip
    env.close()
