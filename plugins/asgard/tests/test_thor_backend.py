"""`asgard.env.backend=ai2thor` through ai2thor 5.0.0's real Controller, with `suite-household-player` as the
Unity player (the plan's household scene served under the plan's FloorPlan name); skipped without the thor extra.

What AI2-THOR's Unity build itself would do differently is out of reach here; these check that our side drives
the real client library: the set-up (InitialRandomSpawn, DisableObject, TeleportFull), GetInteractablePoses,
the arguments the harness sends, frames, and the faucet's water poured out."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from suite.engine.host import build_host
from suite.engine.loop import TraceSink, run_episode
from suite_asgard.oracle import OracleAgent
from suite_asgard.plugin import make_env
from suite_asgard.scene_setup import build_scene
from suite_household.player import SCENES_ENV
from suite_household.scene_io import save_scene
from suite_household.testing import record_thor_steps, use_household_player

from .conftest import config, task_named

pytest.importorskip("ai2thor.controller")


@pytest.fixture
def sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Serve the plans' scenes with the player; record every action the real Controller sends."""
    use_household_player(monkeypatch, tmp_path)
    return record_thor_steps(monkeypatch)


def _task(prefix: str, condition: str = "text_only") -> Any:
    task = task_named(prefix, condition=condition)
    scene = build_scene(task.data["plan"], list(task.data["inventory"]))
    save_scene(scene, Path(os.environ[SCENES_ENV]) / f"{scene.name}.json")  # the player's folder (fixture)
    return task


@pytest.mark.parametrize("prefix", ["turn_on_tv__", "coffee__has_coffee", "distribute__Tomato_Plate_Pot_Pan"])
def test_the_oracle_solves_pack_plans_through_the_real_controller(sent: list, prefix: str) -> None:
    cfg = config(condition="text_only", env={"backend": "ai2thor"})
    task = _task(prefix)
    result = asyncio.run(run_episode(build_host(), task, OracleAgent(), cfg, TraceSink()))
    assert result.settlement.outcome == "success", (result.settlement.failure_reason, result.trajectory.error)
    names = [name for name, _ in sent]
    assert names[names.index("Initialize") + 1] == "InitialRandomSpawn"
    assert "TeleportFull" in names and "GetInteractablePoses" in names


def test_images_come_from_the_ai2thor_frames(sent: list) -> None:
    env = make_env("asgard", _task("turn_on_tv__", "baseline"), config(image_size=48, env={"backend": "ai2thor"}))
    observation = env.reset()
    assert len(observation.images) == 1 and observation.images[0].png.startswith(b"\x89PNG")
    env.close()


def _thor_env(sent: list, prefix: str) -> Any:
    env = make_env("asgard", _task(prefix), config(condition="text_only", env={"backend": "ai2thor"}))
    env.reset()
    sent.clear()
    return env


def _turn(env: Any, text: str) -> dict[str, Any]:
    from suite_asgard.commands import Command

    return env.step(Command.valid(*text.split())).info


def test_agent_actions_keep_ai2thors_checks_as_the_harness_does(sent: list) -> None:
    env = _thor_env(sent, "distribute__Tomato_Plate_Pot_Pan")
    for text in ("FIND Fridge", "OPEN Fridge", "CLOSE Fridge", "FIND Knife", "PICKUP Knife", "FIND Tomato",
                 "SLICE Tomato", "PUT CounterTop"):
        assert _turn(env, text)["success"], text
    by_action = {action: args for action, args in sent if "objectId" in args and action != "GetInteractablePoses"}
    assert set(by_action) >= {"OpenObject", "CloseObject", "PickupObject", "SliceObject", "PutObject"}
    assert by_action["OpenObject"]["forceAction"] is True and by_action["OpenObject"]["openness"] == 1
    assert by_action["PutObject"]["placeStationary"] is True
    assert all(args["forceAction"] is False for action, args in by_action.items() if action != "OpenObject")
    env.close()


def test_water_left_in_dishes_is_poured_out_after_a_toggle_off(sent: list) -> None:
    env = _thor_env(sent, "distribute__Tomato_Plate_Pot_Pan")
    thor = env.sim.ctl._ctl  # the real ai2thor Controller
    objects = thor.last_event.metadata["objects"]
    mug = next(o["objectId"] for o in objects if o["objectType"] == "Mug")
    bowl = next(o["objectId"] for o in objects if o["objectType"] == "Bowl")
    thor.step(action="FillObjectWithLiquid", objectId=mug, fillLiquid="water", forceAction=True)
    thor.step(action="FillObjectWithLiquid", objectId=bowl, fillLiquid="coffee", forceAction=True)
    assert _turn(env, "FIND Faucet")["success"] and _turn(env, "TOGGLE_ON Faucet")["success"]
    assert _turn(env, "TOGGLE_OFF Faucet")["success"]
    emptied = {args["objectId"]: args for action, args in sent if action == "EmptyLiquidFromObject"}
    # AI2-THOR's running faucet also filled what stood in the basin: poured out as well
    assert mug in emptied and bowl not in emptied
    assert all(args["forceAction"] is False for args in emptied.values())
    state = {o["objectId"]: o for o in thor.last_event.metadata["objects"]}
    assert not [o["objectType"] for o in state.values() if o.get("fillLiquid") == "water" and o["isFilledWithLiquid"]]
    assert not state[mug]["isFilledWithLiquid"] and state[bowl]["fillLiquid"] == "coffee"
    env.close()
