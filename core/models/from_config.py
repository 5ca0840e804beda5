"""Builds the run's ModelClients from the `run` and `model` sections of the run config."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from suite.errors import ConfigError
from suite.models.cache import ResponseCache
from suite.models.client import ModelClient
from suite.models.ledger import CostLedger
from suite.models.limiter import Limit, RateLimiter
from suite.models.pricing import TokenPrice
from suite.models.retry import RetryPolicy

SAMPLING = ("temperature", "max_tokens", "top_p")


def _plain(node: Any) -> dict[str, Any]:
    from omegaconf import DictConfig, OmegaConf

    if isinstance(node, DictConfig):
        return dict(OmegaConf.to_container(node, resolve=True))  # type: ignore[arg-type]
    return dict(node or {})


@dataclass
class SharedParts:
    """What every client of one run shares: one rate limiter, one cost ledger, one cache, one retry policy."""

    limiter: RateLimiter
    ledger: CostLedger
    cache: ResponseCache | None
    retry: RetryPolicy


def shared_parts(cfg: Any) -> SharedParts:
    """The run-wide limiter, ledger (with `run.max_cost`), cache and retry policy from the config."""
    model = cfg.model
    return SharedParts(
        limiter=RateLimiter(default=Limit(rpm=model.get("rpm"), tpm=model.get("tpm"))),
        ledger=CostLedger(cfg.run.get("max_cost")),
        cache=ResponseCache(model.get("cache_path")) if model.get("cache", True) else None,
        retry=RetryPolicy(
            attempts=int(model.get("retries", 5)) + 1,
            base_s=float(model.get("backoff_base_s", 1.0)),
            max_s=float(model.get("backoff_max_s", 60.0)),
        ),
    )


def benchmark_model_defaults(section: Any, benchmark: str) -> dict[str, Any]:
    """A benchmark's protocol decoding: its `model_defaults`, overlaid with the preset its `model_preset` names
    from its `model_presets` (a preset's null drops a default, e.g. a temperature a model rejects)."""
    if not section:
        return {}
    defaults = _plain(section.get("model_defaults"))
    name = section.get("model_preset")
    if name is None:
        return defaults
    presets = _plain(section.get("model_presets"))
    if name not in presets:
        raise ConfigError(f"{benchmark}.model_preset: unknown preset {name!r}; choose from {', '.join(presets)}")
    return {**defaults, **_plain(presets[name])}


def client_from_config(cfg: Any, defaults: Mapping[str, Any] | None = None,
                       parts: SharedParts | None = None) -> ModelClient:
    """The client for `cfg.run.model`; checks its key.

    `model.*` sampling wins over a benchmark's protocol `defaults`; a default that is not a sampling setting
    (e.g. `reasoning_effort`) is passed to litellm unless `model.params` sets it.
    """
    model = cfg.model
    parts = parts or shared_parts(cfg)
    defaults = dict(defaults or {})
    sampling = {k: model.get(k) if model.get(k) is not None else defaults.get(k) for k in SAMPLING}
    price = model.get("price_per_mtok") or {}
    extra = {k: v for k, v in defaults.items() if k not in SAMPLING and v is not None}
    params = {**extra, **_plain(model.get("params"))}
    clash = sorted(params.keys() & {*SAMPLING, "price", "limiter", "ledger", "cache", "retry"})
    if clash:
        raise ConfigError(f"set {', '.join(f'model.{k}' for k in clash)} directly, not under model.params")
    client = ModelClient(
        str(cfg.run.model),
        price=_price(price.get("prompt"), price.get("completion")),
        limiter=parts.limiter,
        ledger=parts.ledger,
        cache=parts.cache,
        retry=parts.retry,
        **sampling,
        **params,
    )
    client.check_api_key()  # a missing key stops the run before its first episode
    return client


def _price(prompt: float | None, completion: float | None) -> TokenPrice | None:
    if prompt is None and completion is None:
        return None
    return TokenPrice(float(prompt or 0) / 1e6, float(completion or 0) / 1e6)
