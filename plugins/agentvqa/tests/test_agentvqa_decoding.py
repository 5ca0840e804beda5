"""The paper's decoding by model kind as named presets: 0.2 by default, 0.8 for reasoning models, none for
models that reject a temperature (GPT-5, with its reasoning effort)."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf
from suite.contract import config
from suite.engine.host import default_config
from suite.models import benchmark_model_defaults, client_from_config, register_script


def _defaults(*overrides: str) -> dict:
    cfg = config.apply_overrides(default_config(["agentvqa"]), list(overrides))
    return benchmark_model_defaults(cfg.agentvqa, "agentvqa")


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        (None, {"temperature": 0.2}),
        ("non_reasoning", {"temperature": 0.2}),
        ("reasoning", {"temperature": 0.8}),
        ("reasoning_no_temperature", {"temperature": None}),
        ("gpt-5-thinking-high", {"temperature": None, "reasoning_effort": "high"}),
        ("gpt-5-thinking-minimal", {"temperature": None, "reasoning_effort": "minimal"}),
    ],
)
def test_presets_by_name(preset: str | None, expected: dict) -> None:
    got = _defaults(*([f"agentvqa.model_preset={preset}"] if preset else []))
    assert {k: got.get(k) for k in expected} == expected


def test_a_preset_without_temperature_sends_none() -> None:
    register_script("agentvqa-decoding", lambda messages: "A")
    cfg = OmegaConf.create({"run": {"model": "scripted/agentvqa-decoding"},
                            "model": {"temperature": None, "max_tokens": None, "cache": False, "params": {}}})
    client = client_from_config(cfg, _defaults("agentvqa.model_preset=gpt-5-thinking-high"))
    assert "temperature" not in client._params and client._params["reasoning_effort"] == "high"
    assert client_from_config(cfg, _defaults("agentvqa.model_preset=reasoning"))._params["temperature"] == 0.8


def test_an_unknown_preset_is_one_line_before_the_run(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from suite.cli.main import main

    register_script("agentvqa-decoding", lambda messages: "A")
    code = main(["run", "--plugins", "agentvqa", "--model", "scripted/agentvqa-decoding", "--out",
                 str(tmp_path / "r"), "agentvqa.model_preset=thinking"])
    assert code == 2 and "unknown preset 'thinking'" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
