"""Generator 3 against the blind routines an adversary tries first (issue 21): the strongest are declared with
their ceilings, the generator's rules keep the pack clear of every straight walk and fixed click of their kind, and
a candidate one of them solves is redrawn (the real baselines, played through the env)."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from suite.engine.host import build_host
from suite.validity.baselines import baselines_of
from suite_household.controller import Controller
from suite_household.world import Agent
from suite_vigil import baselines
from suite_vigil.episodes import house
from suite_vigil.packgen import generate
from suite_vigil.packgen.site import Site
from suite_vigil.plugin import PACK_DIR
from suite_vigil.sim import CAMERA, INTERACTION_DISTANCE
from suite_vigil.vocabulary import FAMILY_CODES

from .conftest import tasks

STRONGEST = {"vigil-blind-walk-spin": "VS", "vigil-blind-veer-walk": "DA", "vigil-blind-low-click": "PG",
             "vigil-blind-walk-act-thirds": "AI"}


@pytest.fixture(scope="module")
def by_family() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list] = {f: [] for f in FAMILY_CODES}
    for t in tasks():
        out[t.category].append(t.data["episode"])
    return out


def _site(name: str) -> Site:
    ctl = Controller(house(str(PACK_DIR), name), interactionDistance=INTERACTION_DISTANCE, renderImage=False,
                     **CAMERA)
    return Site(name, ctl)


def _pose(ep: dict[str, Any]) -> Agent:
    a = ep["agent_init"]
    return Agent(a["position"]["x"], a["position"]["z"], a["rotation"], a["horizon"], True)


def test_the_strongest_blind_routines_are_declared_with_their_ceilings() -> None:
    declared = {b.name: b for b in baselines_of(build_host().benchmark("vigil"))}
    for name, family in STRONGEST.items():
        b = declared[name]
        assert b.ceiling_for(family) == 10.0 and b.chance_for(family) == 0.0, name
        assert b.config == {"vigil.families": [family]} and b.model == f"scripted/{name}"
        assert baselines.BY_NAME[name].families == (family,)
    assert baselines.FAMILY_POLICY["VS"] is baselines.walk_then_spin  # the combined policy plays it on VS


def test_the_routines_never_look_and_stop_at_the_budget() -> None:
    assert [baselines.walk_then_spin("x", 20, s)["skill_name"] for s in range(20)] == ["navigate"] * 19 + ["report"]
    assert baselines.walk_then_spin("x", 20, 0)["arguments"] == {"mode": "forward", "magnitude": 8}
    assert baselines.veer_walk("x", 12, 0)["arguments"] == {"mode": "turn_right", "magnitude": 20}
    assert baselines.low_click("x", 5, 0)["arguments"] == {"intent": "ground", "x": 400, "y": 420}
    acts = [baselines.walk_act_thirds("Open the fridge.", 25, s) for s in range(25)]
    assert acts[0]["arguments"] == {"mode": "forward", "magnitude": 4} and acts[-1]["skill_name"] == "report"
    assert [a["arguments"].get("x") for a in acts[1:5]] == [320, 213, 427, None]
    assert {a["arguments"]["intent"] for a in acts if a["skill_name"] == "interact_pixel"} == {"open_access"}


def _veer_solvable(ep: dict[str, Any]) -> tuple[dict[str, Any], Site, Agent]:
    """The DA episode moved to a start 2.5-4 m from its target with the target 20 degrees right of the view axis
    and a clear straight path to it: a start the veer-walk baseline solves."""
    site = _site(ep["house"])
    oid = ep["success_spec"]["target"]
    cx, _, cz = site.world.objects[oid].center
    for x, z in site.cells_between(oid, 2.5, 4.0):
        yaw = float(round(math.degrees(math.atan2(cx - x, cz - z)) - 20) % 360)
        pose = Agent(x, z, yaw, 0.0, True)
        if not site.reached_walking_straight(oid, pose):
            continue
        easy = copy.deepcopy(ep)
        easy["agent_init"] = {"position": {"x": x, "y": 0.9, "z": z}, "rotation": yaw, "horizon": 0.0,
                              "standing": True}
        if baselines.play(generate.task_of(easy, str(PACK_DIR)), baselines.veer_walk)[0].metrics["B"]:
            return easy, site, pose
    raise AssertionError("no start from which the veer walk solves the episode")


def test_the_generator_rejects_a_candidate_the_veer_walk_solves(by_family, monkeypatch) -> None:
    original = by_family["DA"][0]
    easy, site, pose = _veer_solvable(original)
    assert site.reached_walking_straight(original["success_spec"]["target"], pose)  # the DA rule rejects it too
    assert "vigil-blind-veer-walk" in baselines.solved_by(generate.task_of(easy, str(PACK_DIR)), "DA")
    queue = [easy, *by_family["DA"][:6]]
    verdicts: list[tuple[dict, list[str]]] = []
    real = baselines.solved_by

    def recorded(task, family):
        verdicts.append((task.data["episode"]["agent_init"], real(task, family)))
        return verdicts[-1][1]

    monkeypatch.setattr(baselines, "solved_by", recorded)
    monkeypatch.setitem(generate.BUILDERS, "DA", lambda site, rng, i: copy.deepcopy(queue.pop(0)))
    monkeypatch.setattr(generate, "blind_figures", lambda episodes, data_dir, family: {})
    scenes = {n: house(str(PACK_DIR), n) for n in {e["house"] for e in [easy, *queue]}}
    kept, tally = generate.build_family("DA", 0, str(PACK_DIR), scenes, 1, generate.invalid_limits())
    assert verdicts[0][0] == easy["agent_init"] and "vigil-blind-veer-walk" in verdicts[0][1]
    assert tally["rejected_by_baselines"] >= 1 and kept[0]["agent_init"] != easy["agent_init"]


@pytest.mark.parametrize("family", ["DA", "AI"])
def test_no_da_or_ai_target_is_within_reach_of_a_straight_walk(by_family, family: str) -> None:
    for ep in by_family[family][:25]:
        site = _site(ep["house"])
        assert not site.reached_walking_straight(ep["success_spec"]["target"], _pose(ep)), ep["episode_id"]


def test_no_vs_target_is_seen_walking_straight_and_looking_round(by_family) -> None:
    for ep in by_family["VS"][:12]:
        site = _site(ep["house"])
        assert not site.seen_on_a_straight_walk(ep["success_spec"]["target"], _pose(ep)), ep["episode_id"]


def test_no_pg_target_lies_under_a_fixed_click_point(by_family) -> None:
    for ep in by_family["PG"][:25]:
        site = _site(ep["house"])
        assert not site.under_fixed_points(ep["success_spec"]["target"], _pose(ep)), ep["episode_id"]
