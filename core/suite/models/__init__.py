"""The model layer: every model call goes through `ModelClient` and litellm (imported on first use)."""

from suite.models.cache import ResponseCache, default_cache_path, request_hash
from suite.models.client import ModelClient
from suite.models.from_config import (
    SharedParts,
    benchmark_model_defaults,
    client_from_config,
    shared_parts,
    start_call_workers,
)
from suite.models.ledger import CostLedger, Ledger, Totals
from suite.models.limiter import Limit, Limiter, RateLimiter
from suite.models.litellm_setup import load_litellm, register_provider
from suite.models.pricing import TokenPrice
from suite.models.reply import ModelReply
from suite.models.retry import RetryPolicy
from suite.models.scripted import (
    ReplayScript,
    Script,
    ScriptedReply,
    get_script,
    register_replay,
    register_script,
)

__all__ = [
    "CostLedger",
    "Ledger",
    "Limit",
    "Limiter",
    "ModelClient",
    "ModelReply",
    "RateLimiter",
    "ReplayScript",
    "ResponseCache",
    "RetryPolicy",
    "SharedParts",
    "Script",
    "ScriptedReply",
    "TokenPrice",
    "Totals",
    "benchmark_model_defaults",
    "client_from_config",
    "default_cache_path",
    "get_script",
    "load_litellm",
    "register_provider",
    "register_replay",
    "register_script",
    "shared_parts",
    "start_call_workers",
    "request_hash",
]
