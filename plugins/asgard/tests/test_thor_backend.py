"""`asgard.env.backend=ai2thor` against a stand-in for `ai2thor.controller.Controller`.

AI2-THOR cannot start here (its Unity build is downloaded at run time and needs a display or GPU), so the
stand-in answers AI2-THOR's API from the household simulator: InitialRandomSpawn does nothing,
GetInteractablePoses returns one pose from which the object is seen, every other action is the household's.
Nothing here is a recording of AI2-THOR; it checks that our side only needs what AI2-THOR's API offers.
"""

from __future__ import annotations

import asyncio
import sys
import types
from typing import Any, ClassVar

import pytest
from suite.loop import TraceSink, run_episode
from suite_asgard.household_sim import HouseholdSim
from suite_asgard.oracle import OracleAgent
from suite_asgard.plugin import make_env, settle
from suite_asgard.scene_setup import build_scene
from suite_household.controller import Controller
from suite_household.world import Scene

from .conftest import config, task_named


class HouseholdAsThor:
    """AI2-THOR's controller API answered by the household simulator on a prepared scene."""

    scenes: ClassVar[dict[str, Scene]] = {}
    calls: ClassVar[list[str]] = []
    sent: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def __init__(self, scene: str, **settings: Any) -> None:
        self.ctl = Controller(self.scenes[scene], **settings)
        self.last_event = self.ctl.last_event

    def step(self, action: str, **args: Any) -> Any:
        HouseholdAsThor.calls.append(action)
        HouseholdAsThor.sent.append((action, dict(args)))
        if action in ("InitialRandomSpawn", "DisableObject"):
            self.last_event = self.ctl.step(action="Pass")
        elif action == "GetInteractablePoses":
            sim, start = HouseholdSim(self.ctl), self.ctl.world.agent
            poses = []
            if sim.go_to(args["objectId"]):
                a = self.ctl.world.agent
                poses = [{"x": a.x, "y": 0.9, "z": a.z, "rotation": a.yaw, "horizon": a.horizon,
                          "standing": a.standing}]
            self.ctl.world.set_agent(start)
            self.last_event = self.ctl.step(action="Pass")
            self.last_event.metadata["actionReturn"] = poses
        else:
            self.last_event = self.ctl.step(action=action, **args)
        return self.last_event

    def stop(self) -> None:
        HouseholdAsThor.calls.append("stop")


@pytest.fixture
def thor(monkeypatch: pytest.MonkeyPatch) -> type[HouseholdAsThor]:
    pkg, mod = types.ModuleType("ai2thor"), types.ModuleType("ai2thor.controller")
    mod.Controller = HouseholdAsThor
    monkeypatch.setitem(sys.modules, "ai2thor", pkg)
    monkeypatch.setitem(sys.modules, "ai2thor.controller", mod)
    HouseholdAsThor.scenes, HouseholdAsThor.calls, HouseholdAsThor.sent = {}, [], []
    return HouseholdAsThor


class _Host:
    """The two hooks run_episode calls on the plugin."""

    def call(self, hook: str, benchmark: str, **kwargs: Any) -> Any:
        return (make_env if hook == "make_env" else settle)(benchmark, **kwargs)


@pytest.mark.parametrize("prefix", ["turn_on_tv__", "coffee__has_coffee", "distribute__Tomato_Plate_Pot_Pan"])
def test_the_oracle_solves_pack_plans_through_the_ai2thor_api(thor: type[HouseholdAsThor], prefix: str) -> None:
    cfg = config(condition="text_only", env={"backend": "ai2thor"})
    task = task_named(prefix, condition="text_only")
    plan = task.data["plan"]
    thor.scenes[plan.scene] = build_scene(plan, list(task.data["inventory"]))
    result = asyncio.run(run_episode(_Host(), task, OracleAgent(), cfg, TraceSink()))
    assert result.settlement.outcome == "success", (result.settlement.failure_reason, result.trajectory.error)
    assert thor.calls[:1] == ["InitialRandomSpawn"] and "TeleportFull" in thor.calls
    assert "GetInteractablePoses" in thor.calls and thor.calls[-1] == "stop"


def test_images_come_from_the_ai2thor_frames(thor: type[HouseholdAsThor]) -> None:
    task = task_named("turn_on_tv__", condition="baseline")
    plan = task.data["plan"]
    thor.scenes[plan.scene] = build_scene(plan, list(task.data["inventory"]))
    env = make_env("asgard", task, config(image_size=48, env={"backend": "ai2thor"}))
    observation = env.reset()
    assert len(observation.images) == 1 and observation.images[0].png.startswith(b"\x89PNG")
    env.close()


def _thor_env(thor: type[HouseholdAsThor], prefix: str) -> Any:
    task = task_named(prefix, condition="text_only")
    plan = task.data["plan"]
    thor.scenes[plan.scene] = build_scene(plan, list(task.data["inventory"]))
    env = make_env("asgard", task, config(condition="text_only", env={"backend": "ai2thor"}))
    env.reset()
    thor.sent.clear()
    return env


def _turn(env: Any, text: str) -> dict[str, Any]:
    from suite_asgard.commands import Command

    return env.step(Command.valid(*text.split())).info


def test_agent_actions_keep_ai2thors_checks_as_the_harness_does(thor: type[HouseholdAsThor]) -> None:
    env = _thor_env(thor, "distribute__Tomato_Plate_Pot_Pan")
    for text in ("FIND Fridge", "OPEN Fridge", "CLOSE Fridge", "FIND Knife", "PICKUP Knife", "FIND Tomato",
                 "SLICE Tomato", "PUT CounterTop"):
        assert _turn(env, text)["success"], text
    sent = {action: args for action, args in thor.sent if "objectId" in args and action != "GetInteractablePoses"}
    assert set(sent) >= {"OpenObject", "CloseObject", "PickupObject", "SliceObject", "PutObject"}
    assert sent["OpenObject"]["forceAction"] is True and sent["OpenObject"]["openness"] == 1  # the harness forces it
    assert sent["PutObject"]["placeStationary"] is True
    assert all(args["forceAction"] is False for action, args in sent.items() if action != "OpenObject")


def test_water_left_in_dishes_is_poured_out_after_a_toggle_off(thor: type[HouseholdAsThor]) -> None:
    env = _thor_env(thor, "distribute__Tomato_Plate_Pot_Pan")
    world = env.sim.ctl._ctl.ctl.world  # the stand-in's household world behind AI2-THOR's API
    mug = next(o for o in world.objects.values() if o.type == "Mug")
    bowl = next(o for o in world.objects.values() if o.type == "Bowl")
    world.set(mug.id, fill="water")
    world.set(bowl.id, fill="coffee")
    assert _turn(env, "FIND Faucet")["success"] and _turn(env, "TOGGLE_ON Faucet")["success"]
    assert _turn(env, "TOGGLE_OFF Faucet")["success"]
    emptied = {args["objectId"]: args for a, args in thor.sent if a == "EmptyLiquidFromObject"}
    # AI2-THOR's running faucet also filled what stood in the basin (the Cup here): poured out as well
    assert mug.id in emptied and bowl.id not in emptied
    assert all(args["forceAction"] is False for args in emptied.values())
    assert not [o.type for o in world.objects.values() if o.fill == "water"]
    assert world.objects[mug.id].fill is None and world.objects[bowl.id].fill == "coffee"
