"""Builds the run's ModelClient from the `run` and `model` sections of the run config."""

from __future__ import annotations

from typing import Any

from suite.models.cache import ResponseCache
from suite.models.client import ModelClient
from suite.models.ledger import CostLedger
from suite.models.limiter import Limit, RateLimiter
from suite.models.retry import RetryPolicy


def _plain(node: Any) -> dict[str, Any]:
    from omegaconf import DictConfig, OmegaConf

    if isinstance(node, DictConfig):
        return dict(OmegaConf.to_container(node, resolve=True))  # type: ignore[arg-type]
    return dict(node or {})


def client_from_config(cfg: Any) -> ModelClient:
    """The client for `cfg.run.model` (sampling, cache, retries, limits, budget); checks its API key now."""
    model = cfg.model
    client = ModelClient(
        str(cfg.run.model),
        temperature=model.get("temperature"),
        max_tokens=model.get("max_tokens"),
        top_p=model.get("top_p"),
        limiter=RateLimiter(default=Limit(rpm=model.get("rpm"), tpm=model.get("tpm"))),
        ledger=CostLedger(cfg.run.get("max_cost")),
        cache=ResponseCache(model.get("cache_path")) if model.get("cache", True) else None,
        retry=RetryPolicy(
            attempts=int(model.get("retries", 5)) + 1,
            base_s=float(model.get("backoff_base_s", 1.0)),
            max_s=float(model.get("backoff_max_s", 60.0)),
        ),
        **_plain(model.get("params")),
    )
    client.check_api_key()  # a missing key stops the run before its first episode
    return client
