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
