"""`longact.env.backend=ai2thor` through ai2thor 5.0.0's real Controller, with `suite-household-player` serving the
episode's household scene (skipped without the thor extra): the house dict, the controller settings, steps by
action name and objectId, metadata, frames and the instance segmentation (test_thor_player.py compares a longer
run with the household backend)."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite_household.testing import record_thor_steps, use_household_player
from suite_longact.env import make_env_from_data
from suite_longact.oracle import Oracle
from suite_longact.plugin import make_env

from .conftest import config, pack_tasks

pytest.importorskip("ai2thor.controller")
INTERACTIONS = 2  # the solution up to its second interaction


def test_the_oracle_actions_do_the_same_through_the_ai2thor_api(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    task = pack_tasks()[1]  # its first frame lists instances
    household = make_env_from_data(task, config())
    use_household_player(monkeypatch, tmp_path, [household.sim.ctl.scene])
    sent = record_thor_steps(monkeypatch)
    household.reset()
    household.skip_observations()
    plan, actions, results = Oracle(household).solve(household.checklist.items), [], []
    while sum("object" in a for a in actions) < INTERACTIONS:
        actions.append(next(plan))
        results.append(household.step(actions[-1]).info)
    env = make_env("longact", task, config(image_size=48, env={"backend": "ai2thor"}))
    first = env.reset()
    assert first.images and first.data["instances"], "the observation comes from AI2-THOR's frames"
    house = next(args["house"] for action, args in sent if action == "CreateHouse")
    settings = next(args for action, args in sent if action == "Initialize")
    assert {r["roomType"] for r in house["rooms"]} == {"Kitchen", "LivingRoom", "Bedroom", "Bathroom"}
    ids = {o["id"] for o in house["objects"]} | {d["id"] for d in house["doors"]}
    assert {i["object_id"] for i in task.data["checklist"]} <= ids
    assert settings["gridSize"] == 0.05 and settings["rotateStepDegrees"] == 30
    assert settings["renderInstanceSegmentation"] and settings["snapToGrid"] is False
    env.skip_observations()
    for action, info in zip(actions, results, strict=True):
        assert env.step(action).info == info, action
    assert env.checklist.status == household.checklist.status and any(env.checklist.status)
    assert env.counts.nav == household.counts.nav and env.counts.manip == household.counts.manip
    env.close()
