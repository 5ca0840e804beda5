"""The blind shortcut baselines and what the generated pack does against them: policies that never read the
image, the scripted models that play them, their declared ceilings, and pack properties that keep them at
chance (start poses not aimed at the target, VS hidden all round, SV front-facing and balanced, CR shut)."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest
from suite.contract.registry import OVERALL
from suite.engine.host import build_host
from suite.models.scripted import find_script
from suite.validity.baselines import baselines_of, check_baseline
from suite_household.world import Agent
from suite_vigil import baselines
from suite_vigil.packgen.candidates import FRONT_CUE, faces, sv_value
from suite_vigil.packgen.site import Site
from suite_vigil.prompting import build_messages
from suite_vigil.vocabulary import FAMILY_CODES

from .conftest import act, env_of, report, run, tasks


@pytest.fixture(scope="module")
def by_family() -> dict[str, list]:
    out: dict[str, list] = {f: [] for f in FAMILY_CODES}
    for t in tasks():
        out[t.category].append(t)
    return out


def test_policies_read_only_the_instruction_and_budget() -> None:
    assert baselines.centre_click("Find the cup ...", 5, 0)["arguments"] == {"intent": "ground", "x": 320, "y": 240}
    assert baselines.centre_click("Find the cup ...", 5, 1)["skill_name"] == "report"
    assert [baselines.walk_forward("x", 12, s)["skill_name"] for s in range(12)] == ["navigate"] * 11 + ["report"]
    assert [baselines.turn_around("x", 20, s)["skill_name"] for s in range(9)] == ["navigate"] * 8 + ["report"]
    assert baselines.force_state("Is the lamp on or off? ...", 5, 0)["arguments"]["intent"] == "activate"
    assert baselines.force_state("Is the box open or closed? ...", 5, 1)["arguments"]["status"] == "open"
    assert baselines.intent_of("Turn off the television.") == "deactivate"
    assert baselines.intent_of("Pick up the bread.") == "pick"


def test_the_combined_policy_reads_every_family_from_wording_and_budget(by_family) -> None:
    for family, ts in by_family.items():
        for t in ts:
            ep = t.data["episode"]
            assert baselines.family_of(ep["instruction"], ep["max_steps"]) == family, ep["episode_id"]


def test_the_scripted_model_never_looks_at_the_image(by_family) -> None:
    task = by_family["SV"][0]
    env = env_of(task, images=True)
    obs = env.step(act("look", direction="down", magnitude=5.0)).observation
    with_image = build_messages(task, obs, [])
    without = [with_image[0], {**with_image[1], "content": [with_image[1]["content"][0]]}]
    reply = baselines.script(baselines.force_state)
    assert reply(with_image, {"step": 0}) == reply(without, {"step": 0})
    ep = task.data["episode"]
    assert baselines.read_prompt(with_image) == (ep["instruction"], ep["max_steps"])
    assert json.loads(reply(with_image, {"step": 1}))["skill_name"] == "report"


def test_declared_baselines_ceilings_are_chance_plus_ten_per_family_and_five_overall() -> None:
    host = build_host()
    spec = host.benchmark("vigil")
    declared = {b.name: b for b in baselines_of(spec)}
    assert {"stop-at-once", "random", "vigil-blind-combined", "vigil-blind-centre-click"} <= set(declared)
    combined = declared["vigil-blind-combined"]
    assert combined.ceiling_for("SV") == 60.0 and combined.ceiling_for("PG") == 10.0
    assert combined.ceiling_for(OVERALL) == pytest.approx(6.25 + 5.0)
    assert declared["vigil-blind-centre-click"].ceiling_for("PG") == 10.0
    assert all(not check_baseline(spec, b) for b in declared.values())
    for b in baselines.BLIND:
        assert find_script(b.name) is not None


def test_sv_forced_state_is_not_verified_and_the_label_is_balanced_per_type() -> None:
    counts: Counter = Counter()
    picks = []
    for _ in range(6):
        value = sv_value(counts, "Fridge", "isOpen")
        picks.append(value)
        counts.update([("Fridge", "isOpen", value), ("*", "isOpen", value)])
    assert picks.count(True) == picks.count(False) == 3
    counts = Counter({("*", "isOpen", True): 1, ("Box", "isOpen", True): 0, ("Box", "isOpen", False): 1})
    assert sv_value(counts, "Box", "isOpen") is None  # the type wants "open", the property is already one ahead


def test_sv_w_needs_the_preset_state_unchanged(by_family) -> None:
    task = next(t for t in by_family["SV"] if t.data["episode"]["meta"]["start_distance"] < 1.2)
    env = env_of(task)
    spec = task.data["episode"]["success_spec"]
    target = spec["target"]
    world = env.sim.world
    before = getattr(world.objects[target], "is_open" if spec["property"] == "isOpen" else "is_toggled")
    ys, xs = np.nonzero(env.sim.event.instance_masks[target]) if env.sim.event.instance_masks else ([], [])
    assert len(xs), "the SV target is in the first frame"
    intent = {("isOpen", True): "close_access", ("isOpen", False): "open_access",
              ("isToggled", True): "deactivate", ("isToggled", False): "activate"}[(spec["property"], before)]
    label = {"isOpen": ("closed", "open"), "isToggled": ("off", "on")}[spec["property"]][int(not before)]
    i = len(xs) // 2
    s, _ = run(task, [act("interact_pixel", intent=intent, x=int(xs[i]), y=int(ys[i])), report(label)], env)
    assert s.metrics["W"] is False and s.metrics["B"] is False


def test_pg_counts_the_last_grounding_click(by_family) -> None:
    task = by_family["PG"][0]
    env = env_of(task)
    target = task.data["episode"]["success_spec"]["target"]
    masks = env.sim.event.instance_masks
    ys, xs = np.nonzero(masks[target])
    other = next(o for o in masks if o != target and o in env.sim.world.objects and env.sim.distance(o) < 1.4)
    oy, ox = np.nonzero(masks[other])
    s, _ = run(task, [act("interact_pixel", intent="ground", x=int(xs[0]), y=int(ys[0])),
                      act("interact_pixel", intent="ground", x=int(ox[0]), y=int(oy[0])), report("success")], env)
    assert s.metrics["W"] is False


def _bearing(ep: dict, world) -> float:
    a = ep["agent_init"]
    cx, _, cz = world.objects[ep["success_spec"]["target"]].center
    x, z = a["position"]["x"], a["position"]["z"]
    return abs((math.degrees(math.atan2(cx - x, cz - z)) - a["rotation"] + 180) % 360 - 180)


def test_start_poses_are_not_aimed_at_the_target(by_family) -> None:
    bearings, pitches = [], Counter()
    for family in ("PG", "DA", "SV", "AI"):
        for t in by_family[family][:30]:
            env = env_of(t)
            bearings.append(_bearing(t.data["episode"], env.sim.world))
            pitches[t.data["episode"]["agent_init"]["horizon"]] += 1
            env.close()
    assert np.median(bearings) > 12 and max(bearings) > 30  # was: median 6, max 18 degrees
    assert set(pitches) <= {0.0, 15.0, 30.0}


def test_pg_targets_are_not_under_the_image_centre(by_family) -> None:
    for t in by_family["PG"][:20]:
        env = env_of(t)
        assert env.sim.object_at(320, 240) != t.data["episode"]["success_spec"]["target"]
        env.close()


def test_vs_targets_are_hidden_whichever_way_the_agent_turns_and_mostly_in_another_room(by_family) -> None:
    from suite_household.controller import Controller
    from suite_vigil.episodes import house
    from suite_vigil.plugin import PACK_DIR
    from suite_vigil.sim import CAMERA, INTERACTION_DISTANCE

    other = 0
    sample = by_family["VS"][:16]
    for t in sample:
        ep = t.data["episode"]
        ctl = Controller(house(str(PACK_DIR), ep["house"]), interactionDistance=INTERACTION_DISTANCE,
                         renderImage=False, **CAMERA)
        site = Site(ep["house"], ctl)
        target = ep["success_spec"]["target"]
        p = ep["agent_init"]["position"]
        assert site.hidden_all_round(target, (p["x"], p["z"])), ep["episode_id"]
        other += site.room_of(p["x"], p["z"]) != site.world.objects[target].room
    assert other >= len(sample) // 2


def test_sv_starts_in_front_of_the_state_bearing_face(by_family) -> None:
    for t in by_family["SV"]:
        ep = t.data["episode"]
        env = env_of(t)
        obj = env.sim.world.objects[ep["success_spec"]["target"]]
        p = ep["agent_init"]["position"]
        assert obj.type not in FRONT_CUE or faces(obj, (p["x"], p["z"])), ep["episode_id"]
        env.close()


def test_cr_the_target_is_in_view_and_boxes_block_the_way_until_one_is_picked_up(by_family) -> None:
    from suite_household.obstacles import door_blocked
    from suite_vigil import goals

    for task in by_family["CR"][:5]:
        env = env_of(task)
        world = env.sim.world
        ep = task.data["episode"]
        c, target = ep["success_spec"]["constraint"], ep["success_spec"]["target"]
        assert env.target_visible(), task.id  # the paper's CR: the target is visible at the start
        assert world.room_at(world.agent.x, world.agent.z) != world.objects[target].room
        assert all(world.objects[d].is_open and door_blocked(world, d) for d in c["doors"])
        box = world.objects[target].box
        reach = [math.hypot(max(box[0] - x, 0, x - box[3]), max(box[2] - z, 0, z - box[5]))
                 for x, z in env.sim.ctl.nav.reachable((world.agent.x, world.agent.z))]
        assert min(reach) > goals.NEAR, task.id  # no way round the boxes
        assert not goals.world_ok(world, env.tracker, True, strict=False)
        env.sim.step("PickupObject", objectId=c["object"], forceAction=True)
        assert any(not door_blocked(world, d) for d in c["doors"])
        assert goals.scores(world, env.tracker, True)[0] == 1.0  # the constraint resolved
        env.close()


@pytest.mark.parametrize("family", FAMILY_CODES)
def test_no_declared_blind_baseline_solves_a_sample_of_the_family(by_family, family: str) -> None:
    for t in by_family[family][:4]:
        assert baselines.solved_by(t, family) == [], t.id


def test_the_generator_redraws_what_a_blind_baseline_solves(monkeypatch) -> None:
    from suite_vigil.episodes import house
    from suite_vigil.packgen import generate
    from suite_vigil.plugin import PACK_DIR

    calls = []

    def solved_once(task, family):
        calls.append(task.id)
        return ["vigil-blind-centre-click"] if len(calls) == 1 else []

    monkeypatch.setattr(baselines, "solved_by", solved_once)
    scenes = {"house_00": house(str(PACK_DIR), "house_00")}
    monkeypatch.setattr(generate, "blind_figures", lambda episodes, data_dir, family: {})
    kept, tally = generate.build_family("DA", 0, str(PACK_DIR), scenes, 2, generate.invalid_limits())
    assert tally["rejected_by_baselines"] == 1 and len(kept) == 2
    assert calls[0] not in {e["episode_id"] for e in kept}


def test_a_glancing_pose_keeps_the_pitch_blind() -> None:
    import random

    from suite_household.controller import Controller
    from suite_vigil.episodes import house
    from suite_vigil.plugin import PACK_DIR
    from suite_vigil.sim import CAMERA, INTERACTION_DISTANCE

    ctl = Controller(house(str(PACK_DIR), "house_00"), interactionDistance=INTERACTION_DISTANCE,
                     renderImage=False, **CAMERA)
    site = Site("house_00", ctl)
    oid = sorted(site.world.objects)[5]
    rng = random.Random(1)
    poses = [site.glancing(oid, site.cells[0], rng) for _ in range(40)]
    assert all(isinstance(p, Agent) and p.horizon in (0.0, 15.0, 30.0) for p in poses)
    assert len({p.yaw for p in poses}) > 10
