"""The view's box pre-test only rules out objects no sample point of which could pass the per-point view test."""

from __future__ import annotations

import random

import numpy as np
from suite_household.generator import generate_room
from suite_household.visibility import _sample_points, _ViewBounds, in_view, view_axes
from suite_household.world import Agent, World


def test_a_box_ruled_out_has_no_sample_point_in_view_and_most_boxes_in_view_are_kept() -> None:
    rng = random.Random(11)
    ruled_out = kept_in_view = 0
    for kind, seed in (("Kitchen", 1), ("LivingRoom", 2), ("Bedroom", 3), ("Bathroom", 4)):
        world = World(generate_room(kind, seed))
        boxes = [o.box for o in world.objects.values() if o.type != "Floor"]
        xs = [b[0] for b in boxes] + [b[3] for b in boxes]
        zs = [b[2] for b in boxes] + [b[5] for b in boxes]
        for _ in range(120):
            agent = Agent(x=rng.uniform(min(xs), max(xs)), z=rng.uniform(min(zs), max(zs)),
                          yaw=rng.uniform(0, 360), horizon=rng.uniform(-30, 60), standing=rng.random() < 0.8)
            fov = rng.choice([60.0, 90.0, 120.0])
            axes, cam = view_axes(agent, 320, 240, fov), np.array(agent.camera)
            bounds = _ViewBounds(agent.camera, axes)
            for box in boxes:
                seen = in_view(_sample_points(box) - cam, axes).any()
                if bounds.misses(box):
                    ruled_out += 1
                    assert not seen, (kind, seed, agent, box)
                elif seen:
                    kept_in_view += 1
    assert ruled_out > 1000 and kept_in_view > 100  # both sides were exercised
