"""Pixel interaction on rendered frames: the instance under the pixel is acted on, the segmentation never
reaches the agent, and a target beyond 1.5 m fails as too_far."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from .conftest import act, env_of, first, tasks


def pixel_of(env, oid: str) -> tuple[int, int]:
    mask = env.sim.event.instance_masks[oid]
    ys, xs = np.nonzero(mask)
    i = len(ys) // 2
    return int(xs[i]), int(ys[i])


def test_a_click_acts_on_the_instance_under_the_pixel() -> None:
    task = first("PG")
    env = env_of(task, images=True)
    target = task.data["episode"]["success_spec"]["target"]
    x, y = pixel_of(env, target)
    info = env.step(act("interact_pixel", intent="ground", x=x, y=y)).info
    assert info["target"] == target and env.tracker.grounded == [target] and info["goal"]
    others = [o for o in env.sim.event.instance_masks if o != target and o in env.sim.world.objects]
    x, y = pixel_of(env, others[0])
    assert env.step(act("interact_pixel", intent="ground", x=x, y=y)).info["target"] == others[0]


def test_the_agent_gets_one_rgb_frame_and_no_mask() -> None:
    env = env_of(first("PG"), images=True)
    obs = env.step(act("look", direction="down", magnitude=5.0)).observation
    assert [i.label for i in obs.images] == ["current"] and set(obs.data) == {"step"}
    frame = np.asarray(Image.open(io.BytesIO(obs.images[0].png)))
    assert frame.shape == (480, 640, 3)
    assert not np.array_equal(frame, env.sim.event.instance_segmentation_frame)


def test_a_far_target_fails_as_too_far_and_changes_nothing() -> None:
    task = first("AI", lambda t: t.data["episode"]["meta"]["intent"] == "open_access")
    env = env_of(task, images=True)
    target = task.data["episode"]["success_spec"]["target"]
    x, y = pixel_of(env, target)
    info = env.step(act("interact_pixel", intent="open", x=x, y=y)).info
    assert info["too_far"] and not info["action_success"] and not env.sim.world.objects[target].is_open


def test_normalized_coordinates_map_to_the_same_instance() -> None:
    task = next(t for t in tasks(coords="normalized_1000") if t.category == "PG")
    env = env_of(task, images=True)
    assert env.normalized
    target = task.data["episode"]["success_spec"]["target"]
    x, y = pixel_of(env, target)
    nx, ny = round((x + 0.5) * 1000 / 640), round((y + 0.5) * 1000 / 480)
    assert env.pixel(nx, ny) == (x, y) or env.sim.object_at(*env.pixel(nx, ny)) == target
    assert env.step(act("interact_pixel", intent="ground", x=nx, y=ny)).info["target"] == target


def test_a_blocked_move_is_logged_as_path_blocked() -> None:
    env = env_of(first("DA"))
    info = {}
    for _ in range(16):
        info = env.step(act("navigate", mode="forward", magnitude=20)).info
        if info["path_blocked"]:
            break
    assert info["path_blocked"] and not info["action_success"]
