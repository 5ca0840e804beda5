"""Builds the run's ModelClients from the `run` and `model` sections of the run config."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from suite.contract.errors import ConfigError
from suite.models.cache import ResponseCache
from suite.models.call_workers import CallWorkers, auto_count, runs_anywhere
from suite.models.client import DEFAULT_MAX_REPLY_CHARS, ModelClient
from suite.models.ledger import CostLedger
from suite.models.limiter import Limit, RateLimiter
from suite.models.pricing import TokenPrice
from suite.models.retry import RetryPolicy
from suite.models.transport import DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_REPLY_BYTES

SAMPLING = ("temperature", "max_tokens", "top_p")
#: the model layer's own bounds on a reply and a call, set as `model.<name>`, never under `model.params`
BOUNDS = ("max_reply_chars", "max_reply_bytes", "call_deadline_s")
#: `max_tokens` of a benchmark that sets none in its `model_defaults` (and of no `model.max_tokens` either)
DEFAULT_MAX_TOKENS = 4096


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


def shared_parts(cfg: Any, cache_scope: str | None = None) -> SharedParts:
    """The run-wide limiter, ledger (with `run.max_cost`), cache and retry policy from the config; the cache keeps
    the run's replies under `cache_scope` and reuses other runs' only with `model.cache=true` (`--cache`)."""
    model = cfg.model
    return SharedParts(
        limiter=RateLimiter(default=Limit(rpm=model.get("rpm"), tpm=model.get("tpm"))),
        ledger=CostLedger(cfg.run.get("max_cost")),
        cache=ResponseCache(model.get("cache_path"), run=cache_scope, across_runs=bool(model.get("cache", False)),
                            only_process=str(cfg.run.get("executor", "local")) == "local"),
        retry=RetryPolicy(
            attempts=int(model.get("retries", 5)) + 1,
            base_s=float(model.get("backoff_base_s", 1.0)),
            max_s=float(model.get("backoff_max_s", 60.0)),
        ),
    )


def benchmark_model_defaults(section: Any, benchmark: str) -> dict[str, Any]:
    """A benchmark's protocol decoding: its `model_defaults`, overlaid with the preset its `model_preset` names
    from its `model_presets` (a preset's null drops a default, e.g. a temperature a model rejects). `auto` not yet
    resolved for a model (a run resolves it before its first call) leaves the defaults."""
    if not section:
        return {}
    defaults = _plain(section.get("model_defaults"))
    name = section.get("model_preset")
    if name is None or name == "auto":
        return defaults
    presets = _plain(section.get("model_presets"))
    if name not in presets:
        raise ConfigError(f"{benchmark}.model_preset: unknown preset {name!r}; choose from {', '.join(presets)}")
    return {**defaults, **_plain(presets[name])}


def client_from_config(cfg: Any, defaults: Mapping[str, Any] | None = None,
                       parts: SharedParts | None = None) -> ModelClient:
    """The client for `cfg.run.model`; checks its key.

    `model.*` sampling wins over a benchmark's protocol `defaults` (`max_tokens` is DEFAULT_MAX_TOKENS when both
    leave it out); a default that is not a sampling setting (e.g. `reasoning_effort`) is passed to litellm unless
    `model.params` sets it.
    """
    model = cfg.model
    parts = parts or shared_parts(cfg)
    defaults = dict(defaults or {})
    sampling = {k: model.get(k) if model.get(k) is not None else defaults.get(k) for k in SAMPLING}
    if sampling["max_tokens"] is None:  # never unbounded
        sampling["max_tokens"] = DEFAULT_MAX_TOKENS
    price = model.get("price_per_mtok") or {}
    extra = {k: v for k, v in defaults.items() if k not in SAMPLING and v is not None}
    params = {**extra, **_plain(model.get("params"))}
    clash = sorted(params.keys() & {*SAMPLING, "price", "limiter", "ledger", "cache", "retry", *BOUNDS})
    if clash:
        raise ConfigError(f"set {', '.join(f'model.{k}' for k in clash)} directly, not under model.params")
    client = ModelClient(
        str(cfg.run.model),
        price=_price(price.get("prompt"), price.get("completion")),
        limiter=parts.limiter,
        ledger=parts.ledger,
        cache=parts.cache,
        retry=parts.retry,
        max_reply_chars=_bound(model, "max_reply_chars", DEFAULT_MAX_REPLY_CHARS, int),
        max_reply_bytes=_bound(model, "max_reply_bytes", DEFAULT_MAX_REPLY_BYTES, int),
        call_deadline_s=_bound(model, "call_deadline_s", DEFAULT_CALL_DEADLINE_S, float),
        **sampling,
        **params,
    )
    client.check_api_key()  # a missing key stops the run before its first episode
    return client


def _bound(model: Any, name: str, default: float, kind: type[int] | type[float]) -> Any:
    """`model.<name>`: a positive number (whole for `int`), or null for no bound."""
    value = model.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int if kind is int else (int, float)) or value <= 0:
        what = "whole number" if kind is int else "number"
        raise ConfigError(f"model.{name} must be a positive {what} or null, not {value!r}")
    return kind(value)


def _price(prompt: float | None, completion: float | None) -> TokenPrice | None:
    if prompt is None and completion is None:
        return None
    return TokenPrice(float(prompt or 0) / 1e6, float(completion or 0) / 1e6)


def start_call_workers(cfg: Any, clients: Mapping[str, ModelClient] | None) -> CallWorkers | None:
    """Fork the run's model-call worker processes (`model.call_workers`) and hand them to every client whose calls
    may be made in any process; None when there are none (a Ray run, one episode at a time unless a count is set, a
    model answered only in this process). Call it before the run's event loop and threads start."""
    setting = cfg.model.get("call_workers", "auto")
    count = auto_count(setting)
    one_at_a_time = int(cfg.run.concurrency) < 2 and setting in (None, "auto")  # a count given is obeyed
    if not clients or count < 1 or str(cfg.run.get("executor", "local")) != "local" or one_at_a_time:
        return None
    eligible = [c for c in clients.values() if runs_anywhere(c.model)]
    if not eligible:
        return None
    try:
        workers = CallWorkers(count)
    except OSError as exc:  # no process could be forked (limits, memory): the calls are made in this process
        warnings.warn(f"model.call_workers: no worker process started ({exc}); model calls are made in the run's "
                      "own process", stacklevel=2)
        return None
    for client in eligible:
        client.workers = workers
    return workers
