"""One provider call through litellm, reduced to what the model layer keeps of its response."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from suite.models.litellm_setup import load_litellm, restore_success_logging, skip_success_logging
from suite.models.pricing import TokenPrice, reply_cost
from suite.models.reply import storable_text
from suite.models.retry import MalformedReply
from suite.models.transport import DEFAULT_LIMITS, CallLimits, bounded


@dataclass(frozen=True, slots=True)
class Pricing:
    """How a call's cost is worked out: the model string, a fixed price if any, and whether it is free."""

    model: str
    price: TokenPrice | None
    free: bool


@dataclass(frozen=True, slots=True)
class CallResult:
    """What the model layer keeps of one provider response, the same whichever process made the call."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost_usd: float
    cost_known: bool


def read_response(response: Any, pricing: Pricing) -> CallResult:
    """The reply text, usage and cost of a litellm response (MalformedReply when it holds no choice)."""
    if not getattr(response, "choices", None):
        raise MalformedReply("the provider's reply has no choices")
    # litellm keeps `usage` among the response's pydantic extra fields, which getattr reaches only through pydantic's
    # __getattr__ (0.8 us a call, against 0.06 from the dict)
    extra = getattr(response, "__pydantic_extra__", None)
    usage = extra["usage"] if extra and "usage" in extra else getattr(response, "usage", None)
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    cost, known = reply_cost(pricing.model, response, prompt_tokens, completion_tokens, pricing.price, pricing.free)
    choice = response.choices[0]
    return CallResult(
        text=storable_text(choice.message.content or ""),
        finish_reason=getattr(choice, "finish_reason", None),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=int(getattr(usage, "total_tokens", 0) or 0),
        cost_usd=cost,
        cost_known=known,
    )


async def call_litellm(request: dict[str, Any], pricing: Pricing, limits: CallLimits = DEFAULT_LIMITS) -> CallResult:
    """One attempt: `litellm.acompletion(**request)` within `limits`, without litellm's deferred success logging,
    read."""
    litellm = load_litellm()
    token = skip_success_logging()
    try:
        response = await bounded(litellm.acompletion(**request), limits)
    finally:
        restore_success_logging(token)
    return read_response(response, pricing)
