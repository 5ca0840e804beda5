"""Whether the run's model takes images, decided before the first episode (`model.vision=auto|true|false`).

`auto` asks litellm's model map when it knows the model, else sends one probe request with a 1x1 PNG: a model
that answers takes images; one whose server refuses the request (a 4xx other than auth and rate limits, or a 5xx,
as llama.cpp's server answers a text-only model) does not. A probe that cannot reach the model decides nothing:
the run goes on and its episodes meet the same fault.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from suite.contract.errors import ConfigError
from suite.models.event_loops import run_to_completion
from suite.models.litellm_setup import load_litellm
from suite.models.redact import known_secrets, redact
from suite.models.retry import LITELLM_PREFIX, reached_no_server
from suite.models.transport import DEFAULT_MAX_REPLY_BYTES, CallLimits, bounded

#: A 1x1 PNG: the smallest image a probe can send.
TINY_PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
            "AAAABJRU5ErkJggg==")
PROBE_TIMEOUT_S = 60.0  # the probe's deadline, its reply included
#: the most of a server's model list (`GET /models`) read
MODELS_MAX_BYTES = 1_000_000
#: Statuses that say nothing about images: the probe decides nothing on them.
UNDECIDED_STATUSES = frozenset({401, 403, 404, 408, 429})
OFFLINE_PROVIDERS = frozenset({"scripted"})


@dataclass(frozen=True)
class Vision:
    """Whether a model takes images (None: not known), and how that was found out."""

    takes_images: bool | None
    how: str


def probe_messages() -> list[dict[str, Any]]:
    """The probe's one user message: a short text and the tiny image."""
    return [{"role": "user", "content": [{"type": "text", "text": "Reply with one word: what colour is this?"},
                                         {"type": "image_url", "image_url": {"url": TINY_PNG}}]}]


def model_vision(model: str, setting: Any, params: Mapping[str, Any] | None = None) -> Vision:
    """Whether `model` takes images: the `model.vision` setting, litellm's model map, else one probe request."""
    if setting is True or setting is False:
        return Vision(bool(setting), f"model.vision={str(setting).lower()}")
    params = dict(params or {})
    provider = model.split("/", 1)[0] if "/" in model else ""
    if provider in OFFLINE_PROVIDERS or "mock_response" in params:
        return Vision(True, "an offline model")
    litellm = load_litellm()
    known = _model_map_vision(litellm, model, params)
    if known is not None:
        return Vision(known, "litellm's model map")
    return _probe(litellm, model, params)


def _model_map_vision(litellm: Any, model: str, params: Mapping[str, Any]) -> bool | None:
    if params.get("api_base"):  # a model served at an address of its own: the map's entry may not be what runs
        return None
    try:
        info = litellm.get_model_info(model)
    except Exception:  # litellm raises for a model its map does not know
        return None
    return bool(info.get("supports_vision"))  # the map flags every model it knows to take images


def _probe(litellm: Any, model: str, params: Mapping[str, Any]) -> Vision:
    request = {"timeout": PROBE_TIMEOUT_S, **params, "max_tokens": 1, "max_retries": 0}
    try:  # bounded as every model call is (`suite.models.transport`): a hostile server cannot hold or flood it
        run_to_completion(bounded(litellm.acompletion(model=model, messages=probe_messages(), **request),
                                  CallLimits(PROBE_TIMEOUT_S, DEFAULT_MAX_REPLY_BYTES)))
    except Exception as exc:  # litellm's errors carry the HTTP status; anything else decides nothing
        status = getattr(exc, "status_code", None)
        # a server may echo the request's key in its error body (a 401 often does): never in a warning
        reason = LITELLM_PREFIX.sub("", " ".join(redact(str(exc), known_secrets(params)).split()))[:160]
        refused = isinstance(status, int) and status >= 400 and status not in UNDECIDED_STATUSES
        if refused and not reached_no_server(exc):
            return Vision(False, f"a probe request with an image failed: status {status}, {reason}")
        return Vision(None, f"the image probe could not tell ({type(exc).__name__}: {reason})")
    return Vision(True, "a probe request with an image")


def check_images(model: str, vision: Vision, needs: Mapping[str, str]) -> None:
    """Raise a one-line ConfigError when a benchmark in `needs` (benchmark -> the switch that turns its images off,
    '' for none) would send images to a model that does not take them."""
    if vision.takes_images is not False or not needs:
        return
    bench, switch = next(iter(needs.items()))
    fix = f"set {switch}, " if switch else ""
    raise ConfigError(f"--model {model} does not take images ({vision.how}); benchmark {bench} sends them: {fix}"
                      "use a vision model, or set model.vision=true if it does take them")


def served_context(api_base: str | None, timeout_s: float = 5.0) -> int | None:
    """The context length the server at `api_base` says it serves (vLLM's `max_model_len`, llama.cpp's `n_ctx`
    in `meta`), or None when it says none or cannot be asked."""
    if not api_base:
        return None
    try:
        with urllib.request.urlopen(f"{api_base.rstrip('/')}/models", timeout=timeout_s) as answer:
            models = json.loads(_read_bounded(answer, time.monotonic() + timeout_s)).get("data") or []
    except (OSError, ValueError, AttributeError):
        return None
    for entry in models:
        if not isinstance(entry, dict):
            continue
        meta = entry.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        value = entry.get("max_model_len") or meta.get("n_ctx")
        if isinstance(value, int) and value > 0:
            return value
    return None


def _read_bounded(answer: Any, deadline: float) -> bytes:
    """An HTTP answer's body, read until `deadline` and at most MODELS_MAX_BYTES (ValueError past either)."""
    body = b""
    while chunk := answer.read1(65536):
        body += chunk
        if len(body) > MODELS_MAX_BYTES or time.monotonic() > deadline:
            raise ValueError("the server's model list is too long or too slow")
    return body


def context_warning(context: int | None, bench: str, max_tokens: int | None) -> str | None:
    """The warning for a served context too small for a benchmark's `max_tokens` (and its prompt), or None."""
    if context is None or not max_tokens or context > max_tokens:
        return None
    return (f"warning: the server's context is {context:,} tokens, not more than {bench}'s max_tokens "
            f"({max_tokens:,}) plus its prompt: replies will be cut short (set model.max_tokens lower, or serve a "
            "longer context)")
