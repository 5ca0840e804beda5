"""`client_from_config` turns the run config's `run` and `model` sections into a wired client."""

from __future__ import annotations

import asyncio
from pathlib import Path

from omegaconf import OmegaConf
from suite.models import client_from_config, register_script


def test_client_from_config(tmp_path: Path) -> None:
    register_script("t-config", lambda messages: "ok")
    cfg = OmegaConf.create(
        {
            "run": {"model": "scripted/t-config", "max_cost": 1.5},
            "model": {
                "temperature": 0.2,
                "max_tokens": 32,
                "top_p": None,
                "params": {"seed": 7},
                "cache": True,
                "cache_path": str(tmp_path / "r.sqlite"),
                "retries": 2,
                "backoff_base_s": 0.5,
                "backoff_max_s": 4.0,
                "rpm": 100,
                "tpm": None,
            },
        }
    )
    client = client_from_config(cfg)
    assert client.ledger.max_cost_usd == 1.5
    assert (client.retry.attempts, client.retry.base_s, client.retry.max_s) == (3, 0.5, 4.0)
    assert client.cache is not None and client.cache.path == tmp_path / "r.sqlite"
    assert asyncio.run(client.complete([{"role": "user", "content": "x"}])).text == "ok"
    cfg.model.cache = False
    assert client_from_config(cfg).cache is None


def test_a_benchmark_preset_overlays_its_defaults() -> None:
    import pytest
    from suite.errors import ConfigError
    from suite.models import benchmark_model_defaults

    section = OmegaConf.create({
        "model_defaults": {"temperature": 0.0, "max_tokens": 8192},
        "model_presets": {"big": {"max_tokens": 16384, "reasoning_effort": "high"}, "free": {"temperature": None}},
        "model_preset": None,
    })
    assert benchmark_model_defaults(section, "b") == {"temperature": 0.0, "max_tokens": 8192}
    section.model_preset = "big"
    assert benchmark_model_defaults(section, "b") == {"temperature": 0.0, "max_tokens": 16384,
                                                      "reasoning_effort": "high"}
    section.model_preset = "free"
    assert benchmark_model_defaults(section, "b") == {"temperature": None, "max_tokens": 8192}
    section.model_preset = "nope"
    with pytest.raises(ConfigError, match=r"b.model_preset: unknown preset 'nope'; choose from big, free"):
        benchmark_model_defaults(section, "b")
    assert benchmark_model_defaults(None, "b") == {}


def test_a_default_beyond_sampling_reaches_litellm_unless_model_params_set_it() -> None:
    register_script("t-preset", lambda messages: "ok")
    cfg = OmegaConf.create({"run": {"model": "scripted/t-preset"},
                            "model": {"temperature": None, "max_tokens": None, "cache": False, "params": {}}})
    client = client_from_config(cfg, {"temperature": None, "max_tokens": 16384, "reasoning_effort": "high"})
    assert client._params["reasoning_effort"] == "high" and client._params["max_tokens"] == 16384
    assert "temperature" not in client._params
    cfg.model.params = {"reasoning_effort": "low"}
    assert client_from_config(cfg, {"reasoning_effort": "high"})._params["reasoning_effort"] == "low"
