"""The shipped pack: the whole file against its schema, its shape, and a few episodes solved by the oracle."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest
from suite.errors import DataError
from suite.loop import TraceSink, run_episode
from suite.plugins import build_host
from suite_longact.data import PACK_FILE, load_pack
from suite_longact.oracle import OracleAgent
from suite_longact.plugin import PACK_DIR
from suite_longact.vocabulary import SCENARIOS

from .conftest import config, pack_tasks


def test_whole_pack_matches_the_schema_and_the_paper_shape() -> None:
    pack = load_pack(PACK_DIR)
    eps = pack["episodes"]
    assert len(eps) == 300
    assert Counter(e["scenario"] for e in eps) == {s: 75 for s in SCENARIOS}
    goals = sum(len(e["goals"]) for e in eps) / len(eps)
    assert 8 <= goals <= 10  # "an average of 9 goals"
    kinds = Counter(i["attr"] for e in eps for i in e["checklist"])
    assert set(kinds) == {"position", "isOpen", "isToggled", "isSliced", "isCooked", "isFilledWithLiquid"}
    assert all(e["instructions"]["detailed"] != e["instructions"]["concise"] for e in eps)
    assert sum(any(op["op"] == "move" for op in e["setup"]) for e in eps) > 50  # hidden in closed containers
    assert min(e["oracle_steps"] for e in eps) >= 200  # genuinely long


def test_a_bad_pack_names_the_pointer(tmp_path) -> None:
    data = json.loads((PACK_DIR / PACK_FILE).read_text())
    data["episodes"][3]["checklist"][0]["attr"] = "isDirty"
    (tmp_path / PACK_FILE).write_text(json.dumps(data))
    with pytest.raises(DataError, match="/episodes/3/checklist/0"):
        load_pack(tmp_path)


@pytest.mark.parametrize("index", [0, 150])
def test_oracle_solves_pack_episodes(index: int) -> None:
    task = pack_tasks()[index]
    host = build_host()
    result = asyncio.run(run_episode(host, task, OracleAgent(), config(), TraceSink()))
    assert result.settlement.outcome == "success", result.settlement.failure_reason
    assert len(result.trajectory.steps) == task.meta["oracle_steps"]
    m = result.settlement.metrics
    assert m["gc"] == 1.0 and m["nav_steps"] > 0 and m["manip_steps"] > 0 and m["ir"] is not None


def test_concise_split_and_scenario_filter() -> None:
    tasks = pack_tasks(split="concise", scenarios=["dining_kitchen"])
    assert len(tasks) == 75 and all(t.category == "dining_kitchen" for t in tasks)
    assert tasks[0].data["instruction"] == tasks[0].data["episode"]["instructions"]["concise"]
