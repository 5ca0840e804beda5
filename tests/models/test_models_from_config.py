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
