"""The shipped pack: 1,000 episodes, 125 per family, schema-valid, frozen budgets, family rules, its manifest;
and a stratified sample (two episodes per family, SM per template, CR per constraint) solved by the oracle.
The whole pack is validated by `suite validate --plugins vigil` (a command, not a CI test)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest
from suite.engine.host import build_host, default_config
from suite.testing.conformance import oracle_episode
from suite_vigil.episodes import load_episodes
from suite_vigil.packgen.generate import invalid_limits
from suite_vigil.plugin import PACK_DIR
from suite_vigil.vocabulary import FAMILIES, FAMILY_CODES, SM_TEMPLATES

from .conftest import config, tasks

MANIFEST = json.loads((PACK_DIR / "PACK.json").read_text())


@pytest.fixture(scope="module")
def episodes() -> list[dict]:
    return load_episodes(PACK_DIR)


def test_1000_episodes_125_per_family_unique_ids(episodes: list[dict]) -> None:
    assert len(episodes) == 1000
    assert Counter(e["family"] for e in episodes) == {f: 125 for f in FAMILY_CODES}
    assert len({e["episode_id"] for e in episodes}) == 1000
    assert [e["episode_id"] for e in episodes] == sorted(e["episode_id"] for e in episodes)


def test_budgets_are_frozen_per_family(episodes: list[dict]) -> None:
    limits = invalid_limits()
    for e in episodes:
        assert e["max_steps"] == FAMILIES[e["family"]].max_steps
        assert e["max_invalid"] == limits[e["family"]]
        assert e["meta"]["oracle_steps"] <= e["max_steps"]
    assert MANIFEST["invalid_limits"] == limits


def test_family_rules_hold(episodes: list[dict]) -> None:
    by = {f: [e for e in episodes if e["family"] == f] for f in FAMILY_CODES}
    assert Counter(e["meta"]["size_class"] for e in by["PG"]) == {"large": 42, "medium": 42, "small": 41}
    assert all(e["meta"]["start_distance"] <= 1.5 for e in by["PG"])
    assert all(e["meta"]["start_distance"] > 1.5 for e in by["DA"] + by["AI"])
    assert all(e["success_spec"]["latched"] for e in by["VS"])
    labels = Counter((e["meta"]["target_type"], e["success_spec"]["property"], e["meta"]["intent"].endswith("True"))
                     for e in by["SV"])
    for t, prop, _ in labels:  # a label guessed blind per type earns half (within one episode per type)
        assert abs(labels[(t, prop, True)] - labels[(t, prop, False)]) <= 1
    for prop in ("isOpen", "isToggled"):  # and so does one label per property
        assert abs(sum(v if k[1] == prop and k[2] else -v if k[1] == prop else 0 for k, v in labels.items())) <= 1
    assert Counter(e["meta"]["template"] for e in by["SM"]) == dict(zip(SM_TEMPLATES, (32, 31, 31, 31), strict=True))
    for e in by["SM"]:
        if e["meta"]["template"] in ("reveal_pick", "open_pick_place"):
            assert e["success_spec"]["preconditions"]
    assert {e["success_spec"]["constraint"]["kind"] for e in by["CR"]} == {"obstacle"}
    for e in by["CR"]:  # one box per door into the target's room, none of them shut
        c = e["success_spec"]["constraint"]
        assert len(e["obstacles"]) == len(c["doors"]) == e["meta"]["obstacles"]
        assert c["object"] in {o["objectId"] for o in e["obstacles"]}
        assert not any(o["objectId"] in c["doors"] for o in e["state_overrides"])
    assert Counter(e["meta"]["intent"] for e in by["AI"]) == Counter(e["meta"]["intent"] for e in by["SI"])


def test_manifest_hashes_every_file_and_names_the_generator() -> None:
    assert MANIFEST["generator"] == "suite_vigil.packgen.generate" and MANIFEST["seed"] == 0
    for rel, digest in MANIFEST["files"].items():
        assert hashlib.sha256((PACK_DIR / rel).read_bytes()).hexdigest() == digest, rel
    assert {p.relative_to(PACK_DIR).as_posix() for p in PACK_DIR.rglob("*.json")} - set(MANIFEST["files"]) == {
        "PACK.json"}


def _stratified() -> list[str]:
    picked: list[str] = []
    for t in tasks():
        ep = t.data["episode"]
        key = (ep["family"], ep["meta"].get("template"), ep["meta"].get("intent") if ep["family"] == "CR" else None)
        if sum(1 for p in picked if p[0] == key) < (1 if key[1] or key[2] else 2):
            picked.append((key, t.id))
    return [i for _, i in picked]


@pytest.mark.parametrize("task_id", _stratified())
def test_the_oracle_solves_a_stratified_sample(task_id: str) -> None:
    host = build_host()
    cfg_task = next(t for t in tasks() if t.id == task_id)

    cfg = default_config(["vigil"])
    cfg.vigil = config()
    result = oracle_episode(host, cfg_task, cfg)
    assert result.settlement.outcome == "success", result.settlement.failure_reason
    assert result.settlement.metrics["W"] and result.settlement.metrics["W_strict"] in (True, False)
    assert len(result.trajectory.steps) == cfg_task.data["episode"]["meta"]["oracle_steps"]
