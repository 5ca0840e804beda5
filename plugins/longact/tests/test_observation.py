"""What the agent perceives (issue 22 item 7): by default the paper's inputs only (RGB-D, segmentation, the
instruction, the action feedback) under opaque per-episode ids; `privileged_hints` adds room, receptacle, state,
reach and pose; `opaque_ids: false` shows the pack's ids."""

from __future__ import annotations

from suite_longact.ids import OpaqueIds
from suite_longact.prompting import build_messages

from .conftest import first, kitchen_env, put_on, teleport_facing


def test_opaque_ids_are_per_type_counters_and_map_back() -> None:
    ids = OpaqueIds({"Mug|+01.20|+00.90|-00.30": "Mug", "Mug|+02.00|+00.90|-00.30": "Mug", "Apple|+1|+1|+1": "Apple"})
    assert ids.public("Mug|+02.00|+00.90|-00.30") == "Mug_1"
    assert ids.public("Apple|+1|+1|+1") == "Apple_1"
    assert ids.public("Mug|+01.20|+00.90|-00.30") == "Mug_2"
    assert ids.public("Mug|+02.00|+00.90|-00.30") == "Mug_1"
    assert ids.private("Mug_2") == "Mug|+01.20|+00.90|-00.30" and ids.private("Mug_3") is None
    text = "Mug|+01.20|+00.90|-00.30 is blocking Agent 0 near Apple|+1|+1|+1"
    assert ids.scrub(text, ids.type_of) == "Mug_2 is blocking Agent 0 near Apple_1"


def test_default_observation_is_the_papers_inputs() -> None:
    env = kitchen_env([], opaque_ids=True, image_size=300)
    apple = first(env, "Apple")
    put_on(env.world, apple.id, first(env, "CounterTop").id)
    teleport_facing(env, apple.id)
    data = env.observation().data
    assert "room" not in data and "pose" not in data
    listed = data["instances"]
    assert listed and all("|" not in d["id"] for d in listed)
    assert all(set(d) == {"id", "type", "distance", "pixel", "depth", "pixels"} for d in listed)
    owner, ids = data["segmentation"]
    assert all("|" not in i for i in ids)
    shown = next(d["id"] for d in listed if d["type"] == "Apple")
    task = env.task
    task.data.update({"instruction": "Slice the apple.", "prompt": {"history": 5, "max_instances": 40}})
    text = build_messages(task, env.observation(), [])[1]["content"][0]["text"]
    assert "You are in the" not in text and "position x=" not in text and "|+" not in text
    assert f"{shown} | Apple | " in text


def test_actions_name_opaque_ids_and_errors_never_show_pack_ids() -> None:
    env = kitchen_env([], opaque_ids=True, image_size=300)
    apple, counter = first(env, "Apple"), first(env, "CounterTop")
    put_on(env.world, apple.id, counter.id)
    teleport_facing(env, apple.id)
    shown = next(d["id"] for d in env.observation().data["instances"] if d["type"] == "Apple")
    assert not env.step({"action": "Pick", "object": apple.id}).info["success"]  # the pack id names nothing
    result = env.step({"action": "Slice", "object": shown})  # no knife in hand
    assert not result.info["success"] and "|" not in result.feedback and shown in result.feedback
    picked = env.step({"action": "Pick", "object": shown})
    assert picked.info["success"] and env.world.held == apple.id
    assert picked.observation.data["held"] == shown


def test_privileged_hints_and_pack_ids_are_opt_in() -> None:
    env = kitchen_env([], opaque_ids=True, privileged_hints=True, image_size=300)
    apple = first(env, "Apple")
    put_on(env.world, apple.id, first(env, "CounterTop").id)
    teleport_facing(env, apple.id)
    data = env.observation().data
    assert data["room"] == "Kitchen" and set(data["pose"]) == {"x", "z", "yaw", "horizon"}
    entry = next(d for d in data["instances"] if d["type"] == "Apple")
    assert {"room", "on", "reachable", "state"} <= set(entry) and "|" not in entry["id"]
    assert entry["on"] is None or "|" not in entry["on"]
    raw = kitchen_env([], opaque_ids=False, privileged_hints=True, image_size=300)
    put_on(raw.world, apple.id, first(raw, "CounterTop").id)
    teleport_facing(raw, apple.id)
    assert any(d["id"] == apple.id for d in raw.observation().data["instances"])


def test_holomind_odometry_follows_the_feedback() -> None:
    from suite_longact.holomind.odometry import Odometry

    odo = Odometry()
    odo.apply({"action": "MoveAhead"}, True)
    odo.apply({"action": "RotateRight"}, True)
    odo.apply({"action": "RotateRight"}, True)
    odo.apply({"action": "RotateRight"}, True)
    odo.apply({"action": "MoveAhead"}, True)
    odo.apply({"action": "MoveAhead"}, False)  # blocked: no motion
    odo.apply({"action": "LookDown"}, True)
    assert odo.pose == {"x": 0.05, "z": 0.05, "yaw": 90.0, "horizon": 30.0}

