"""Our side of env.backend=ai2thor: `world_from_metadata` on a handwritten fixture to AI2-THOR's metadata schema,
and `ThorController` driving ai2thor 5.0.0's real Controller with `suite-household-player` as its player.

The fixture stays for what the player cannot give: a real FloorPlan's object ids (`Sink|...|SinkBasin`, a held
Knife from another room) as AI2-THOR's Unity build writes them; nothing here is a recording of AI2-THOR. The
controller tests go through the real client library (skipped without the thor extra)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from suite_household.generator import generate_room
from suite_household.rules import kitchen_world_rules, thor_rules
from suite_household.testing import record_thor_steps, use_household_player
from suite_household.thor_backend import RefusedEvent, make_controller, world_from_metadata

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "thor_metadata_kitchen.json").read_text())
APPLE = "Apple|-00.47|+01.15|+00.48"


@pytest.fixture
def living_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A household living room (with a Television) served by the player as FloorPlan201."""
    pytest.importorskip("ai2thor.controller")
    use_household_player(monkeypatch, tmp_path, [generate_room("LivingRoom", 0, name="FloorPlan201")])
    return "FloorPlan201"


def test_world_from_metadata_reads_states_and_parents() -> None:
    world = world_from_metadata(FIXTURE)
    mug = world.get("Mug|+01.45|+00.91|-01.23")
    assert mug.is_dirty and mug.parent == "Sink|+01.38|+00.81|-01.27|SinkBasin"
    assert world.held is None or world.held == "Knife|-01.70|+01.71|+04.01"
    assert world.get("Knife|-01.70|+01.71|+04.01").picked_up
    assert world.get(APPLE).parent == "CounterTop|-00.08|+01.15|00.00"


def test_settings_are_forwarded_and_embedded_only_keys_dropped(living_room: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    ctl = make_controller("ai2thor", living_room, width=96, height=64, visibilityDistance=6.0, handOpacity=0.6,
                          rules=thor_rules())
    try:
        thor = ctl._ctl  # the real ai2thor Controller
        params = thor.initialization_parameters
        assert (thor.width, thor.height, params["visibilityDistance"]) == (96, 64, 6.0)
        assert "handOpacity" not in params and "rules" not in params
        assert ctl.last_event.metadata["screenWidth"] == 96 and ctl.last_event.frame.shape == (64, 96, 3)
        sent = record_thor_steps(monkeypatch)
        event = ctl.step(action="RotateLeft", degrees=30)
        assert sent == [("RotateLeft", {"degrees": 30})]
        assert event.metadata["lastAction"] == "RotateLeft" and event.metadata["lastActionSuccess"]
    finally:
        ctl.stop()


def test_benchmark_preconditions_refuse_before_ai2thor(living_room: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ctl = make_controller("ai2thor", living_room, width=96, height=64, rules=kitchen_world_rules())
    try:
        tv = next(o["objectId"] for o in ctl.last_event.metadata["objects"] if o["objectType"] == "Television")
        sent = record_thor_steps(monkeypatch)
        refused = ctl.step(action="ToggleObjectOn", objectId=tv)
        assert isinstance(refused, RefusedEvent) and ctl.last_event is refused
        assert not refused.metadata["lastActionSuccess"] and "RemoteControl" in refused.metadata["errorMessage"]
        assert sent == []  # ai2thor was never asked
        assert ctl.step(action="RotateRight").metadata["lastActionSuccess"] and sent == [("RotateRight", {})]
    finally:
        ctl.stop()


def test_missing_ai2thor_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ai2thor", None)
    monkeypatch.setitem(sys.modules, "ai2thor.controller", None)
    with pytest.raises(RuntimeError, match=r"embodied-suite\[thor\]"):
        make_controller("ai2thor", "FloorPlan1")


def test_unknown_backend() -> None:
    with pytest.raises(ValueError, match="household"):
        make_controller("unity", "FloorPlan1")


def test_asgards_named_rules_leave_the_kitchen_rules_as_they_were() -> None:
    from suite_household.rules import (
        coffee_needs_clean_empty_mug,
        faucet_needs_clear_basin,
        faucet_tolerates_sponge,
        slice_on_flat_surface,
        slice_where_the_harness_does,
    )
    from suite_household.world import Agent, Obj, Room, Scene, World

    def obj(oid: str, otype: str, x: float = 0.0, parent: str | None = None, **state: object) -> Obj:
        return Obj(id=oid, type=otype, name=oid, center=(x, 1.0, 0.0), size=(0.1, 0.1, 0.1), parent=parent,
                   **state)

    objects = (obj("basin", "SinkBasin"), obj("faucet", "Faucet"), obj("sponge", "DishSponge", parent="basin"),
               obj("counter", "CounterTop", 2.0), obj("egg", "Egg", 2.0, parent="counter"),
               obj("machine", "CoffeeMachine", 3.0), obj("mug", "Mug", 3.0, parent="machine", is_dirty=True))
    room = Room("r", "Kitchen", -1, -1, 4, 1)
    world = World(Scene("s", 0, (room,), (), (), objects, Agent(0.0, 0.5, 0.0, 0.0, True)))
    faucet, egg, machine = (world.objects[i] for i in ("faucet", "egg", "machine"))
    blocked = faucet_needs_clear_basin(world, "ToggleObjectOn", faucet, {})
    assert blocked == "DishSponge in the SinkBasin blocks the Faucet"
    assert faucet_tolerates_sponge(world, "ToggleObjectOn", faucet, {}) is None
    assert slice_on_flat_surface(world, "SliceObject", egg, {}) == "The Egg must be in a Pan before it is cracked"
    assert slice_where_the_harness_does(world, "SliceObject", egg, {}) is None
    assert coffee_needs_clean_empty_mug(world, "ToggleObjectOn", machine, {}) == "The Mug in the CoffeeMachine is dirty"
    world.set("mug", is_dirty=False)
    assert coffee_needs_clean_empty_mug(world, "ToggleObjectOn", machine, {}) is None


def test_backend_env_builds_the_configured_backend_and_names_a_wrong_one() -> None:
    from suite.contract.errors import ConfigError
    from suite_household.thor_backend import backend_env

    pick = {"household": lambda: "h", "ai2thor": lambda: "t"}
    assert backend_env("b", {}, **pick) == "h"
    assert backend_env("b", {"env": {"backend": "ai2thor"}}, **pick) == "t"
    with pytest.raises(ConfigError, match=r"b\.env\.backend: 'unity' is unknown; choose household or ai2thor"):
        backend_env("b", {"env": {"backend": "unity"}}, **pick)


def test_a_player_executable_is_launched_with_a_display_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from suite_household.thor_backend import EXECUTABLE_ENV, launch_settings

    monkeypatch.delenv(EXECUTABLE_ENV, raising=False)
    assert launch_settings() == {}
    monkeypatch.setenv(EXECUTABLE_ENV, "suite-household-player")
    monkeypatch.delenv("DISPLAY", raising=False)
    assert launch_settings() == {"local_executable_path": "suite-household-player", "x_display": ":0"}
    monkeypatch.setenv("DISPLAY", ":3")
    assert launch_settings() == {"local_executable_path": "suite-household-player"}
