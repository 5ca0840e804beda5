"""The paper's protocol where a setting could hide it: decoding (vLLM's defaults: no temperature sent; greedy is
a named preset), the paper's closure-lag reading, and `--limit` samples balanced over the eight families."""

from __future__ import annotations

from collections import Counter

import pytest
from omegaconf import OmegaConf
from suite.contract import config
from suite.engine.host import default_config
from suite.models import benchmark_model_defaults, client_from_config, register_script
from suite_vigil.scoring import closure_lag


def _defaults(*overrides: str) -> dict:
    cfg = config.apply_overrides(default_config(["vigil"]), list(overrides))
    return benchmark_model_defaults(cfg.vigil, "vigil")


def test_default_decoding_sends_no_temperature_and_greedy_is_a_preset() -> None:
    assert _defaults() == {}
    assert _defaults("vigil.model_preset=greedy") == {"temperature": 0.0}
    register_script("vigil-decoding", lambda messages: "{}")
    cfg = OmegaConf.create({"run": {"model": "scripted/vigil-decoding"},
                            "model": {"temperature": None, "max_tokens": None, "cache": False, "params": {}}})
    assert "temperature" not in client_from_config(cfg, _defaults())._params
    assert client_from_config(cfg, _defaults("vigil.model_preset=greedy"))._params["temperature"] == 0.0


@pytest.mark.parametrize(("first_goal", "report_step", "lag"), [
    (0, 1, 0),      # SV: the goal holds from the start and is first seen after step 1, the report's step
    (0, 3, 2),      # SV, two looks before the report
    (1, 2, 1),      # PG: ground at step 1, report at step 2
    (4, 7, 3),      # two idle steps between the goal and the report
    (None, 3, None), (2, None, None),
])
def test_closure_lag_is_the_papers_reading(first_goal: int | None, report_step: int | None,
                                           lag: int | None) -> None:
    assert closure_lag(first_goal, report_step) == lag


def test_limit_draws_the_same_number_from_every_family(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from suite.cli.main import main
    from suite.store.run_folder import RunStore

    register_script("vigil-reporter", lambda messages: '{"skill_name": "report", "arguments": '
                                                      '{"status": "fail", "summary": "x"}}')
    out = tmp_path / "run"
    assert main(["run", "--plugins", "vigil", "--model", "scripted/vigil-reporter", "--limit", "16", "--out", str(out),
                 "--no-report", "model.cache=false"]) == 0
    capsys.readouterr()
    records = RunStore(out).records()
    assert Counter(r["metrics"]["family"] for r in records) == {f: 2 for f in
                                                                ("PG", "DA", "VS", "SV", "AI", "SI", "SM", "CR")}


def _stand_beside_the_box(env) -> tuple[float, float]:
    """Move the agent to 1.2 m from the target's box on its long side, and return (box, centre) distances."""
    from dataclasses import replace

    from suite_vigil import goals

    world, target = env.sim.world, env.tracker.spec["target"]
    x0, _, z0, x1, _, z1 = world.objects[target].box
    x, z = (x0, z1 + 1.2) if x1 - x0 >= z1 - z0 else (x1 + 1.2, z0)
    world.set_agent(replace(world.agent, x=x, z=z))
    return goals.box_distance(world, target), goals.centre_distance(world, target)


@pytest.mark.parametrize(("near_to", "w"), [("centre", False), ("box", True)])
def test_da_near_is_the_papers_centre_distance_unless_the_box_is_asked_for(near_to: str, w: bool) -> None:
    """Standing 1.2 m from a corner of a large target's box, but over 1.5 m from its centre: W under the paper's
    Euclidean distance to the object (the default) fails, under the box measure it holds; strict W is the centre's."""
    from suite_vigil.goals import world_ok

    from .conftest import env_of, tasks

    for task in (t for t in tasks(near_to=near_to) if t.category == "DA"):  # the first target large enough
        env = env_of(task)
        box, centre = _stand_beside_the_box(env)
        if centre >= 1.5:
            break
    assert box < 1.5 <= centre
    world = env.sim.world
    assert world_ok(world, env.tracker, False, strict=False) is w
    assert world_ok(world, env.tracker, False, strict=True) is False


@pytest.mark.parametrize(("sv_world", "w"), [("unchanged", False), ("visible", True)])
def test_sv_world_after_setting_the_state_is_ours_or_the_papers(sv_world: str, w: bool) -> None:
    """An agent that switches the SV object and reports the state it set: W fails under our rule (the preset state
    changed), holds under the paper's printed one (visible at the end), and B follows the label it reported."""
    from suite_vigil import goals

    from .conftest import env_of, first, report, run

    task = first("SV", lambda t: t.data["episode"]["success_spec"]["property"] == "isOpen", sv_world=sv_world)
    env = env_of(task)
    spec = env.tracker.spec
    world = env.sim.world
    world.set(spec["target"], is_open=not world.objects[spec["target"]].is_open)  # what force-state's click does
    settled, _ = run(task, [report(goals.state_label(env.sim.world, spec))], env)
    assert env.target_visible()
    assert settled.metrics["W"] is w and settled.metrics["B"] is w


def test_the_rules_are_refused_when_unknown() -> None:
    from suite.contract.errors import ConfigError
    from suite_vigil.plugin import settings

    from .conftest import config

    with pytest.raises(ConfigError, match="vigil.near_to: 'euclid' is unknown; choose one of centre, box"):
        settings(config(near_to="euclid"))
    with pytest.raises(ConfigError, match="vigil.sv_world"):
        settings(config(sv_world="paper"))
