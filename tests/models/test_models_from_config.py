"""`client_from_config` turns the run config's `run` and `model` sections into a wired client."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from omegaconf import OmegaConf
from suite.contract.errors import ConfigError
from suite.engine.host import default_config
from suite.models import client_from_config, register_script
from suite.models.client import DEFAULT_MAX_REPLY_CHARS
from suite.models.from_config import DEFAULT_MAX_TOKENS
from suite.models.transport import DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_REPLY_BYTES


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
    assert client.cache.across_runs  # model.cache=true: replies of earlier runs are reused
    cfg.model.cache = False  # a run's own replies are still cached (resume), others' are not reused
    assert client_from_config(cfg).cache is not None and not client_from_config(cfg).cache.across_runs


def test_a_benchmark_preset_overlays_its_defaults() -> None:
    import pytest
    from suite.contract.errors import ConfigError
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
def _cfg(**model: object) -> object:
    return OmegaConf.create({"run": {"model": "scripted/t-defaults"}, "model": {"cache": False, **model}})


def test_max_tokens_comes_from_the_benchmark_else_a_default() -> None:
    """`model.max_tokens` wins, then the benchmark's `model_defaults`, then DEFAULT_MAX_TOKENS: never unbounded."""
    assert client_from_config(_cfg(max_tokens=None), {"max_tokens": 8192})._params["max_tokens"] == 8192
    assert client_from_config(_cfg(max_tokens=64), {"max_tokens": 8192})._params["max_tokens"] == 64
    assert client_from_config(_cfg(max_tokens=None), {})._params["max_tokens"] == DEFAULT_MAX_TOKENS


def test_every_builtin_benchmark_bounds_max_tokens() -> None:
    cfg = default_config(["agentvqa", "asgard", "omniear"])
    assert {b: cfg[b].model_defaults.max_tokens for b in ("agentvqa", "asgard", "omniear")} == {
        "agentvqa": 8192, "asgard": 8192, "omniear": 4096}


def test_the_reply_cap_is_configured_and_checked() -> None:
    assert client_from_config(_cfg()).max_reply_chars == DEFAULT_MAX_REPLY_CHARS
    assert client_from_config(_cfg(max_reply_chars=500)).max_reply_chars == 500
    assert client_from_config(_cfg(max_reply_chars=None)).max_reply_chars is None
    with pytest.raises(ConfigError, match="model.max_reply_chars must be a positive whole number"):
        client_from_config(_cfg(max_reply_chars=0))


def test_the_call_deadline_and_the_body_cap_are_configured_and_checked() -> None:
    default = client_from_config(_cfg())._limits
    assert (default.deadline_s, default.max_bytes) == (DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_REPLY_BYTES)
    limits = client_from_config(_cfg(call_deadline_s=2.5, max_reply_bytes=1000))._limits
    assert (limits.deadline_s, limits.max_bytes) == (2.5, 1000)
    off = client_from_config(_cfg(call_deadline_s=None, max_reply_bytes=None))._limits
    assert (off.deadline_s, off.max_bytes) == (None, None)
    with pytest.raises(ConfigError, match="model.call_deadline_s must be a positive number"):
        client_from_config(_cfg(call_deadline_s=0))
    with pytest.raises(ConfigError, match="model.max_reply_bytes must be a positive whole number"):
        client_from_config(_cfg(max_reply_bytes=1.5))
    with pytest.raises(ConfigError, match="set model.call_deadline_s directly"):
        client_from_config(_cfg(params={"call_deadline_s": 3}))


def test_only_a_local_run_tells_its_cache_that_no_other_process_stores_its_replies(tmp_path: Path) -> None:
    from suite.models import shared_parts

    def cache_of(executor: str) -> object:
        cfg = OmegaConf.create({"run": {"model": "scripted/t", "executor": executor},
                                "model": {"cache": False, "cache_path": str(tmp_path / "c.sqlite")}})
        return shared_parts(cfg, cache_scope="run-1").cache

    assert cache_of("local").only_process  # type: ignore[attr-defined]
    assert not cache_of("ray").only_process  # type: ignore[attr-defined]  # workers on other processes store too
