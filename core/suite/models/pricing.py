"""What a reply cost: a fixed per-token price, litellm's local cost map, or unknown (0)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from suite.models.litellm_setup import load_litellm


@dataclass(frozen=True)
class TokenPrice:
    """A fixed USD price per prompt and per completion token (scripted or self-hosted models)."""

    prompt_usd: float
    completion_usd: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The price of that many tokens."""
        return prompt_tokens * self.prompt_usd + completion_tokens * self.completion_usd


@lru_cache(maxsize=256)
def in_cost_map(model: str) -> bool:
    """Whether litellm's local cost map has a price for `model`."""
    try:
        info = load_litellm().get_model_info(model)
    except Exception:  # litellm raises several types for "not mapped"
        return False
    return info.get("input_cost_per_token") is not None


def token_cost(model: str, prompt_tokens: int, completion_tokens: int, price: TokenPrice | None,
               free: bool) -> float | None:
    """What that many tokens of `model` would cost in USD: a fixed price, nothing for a free model, litellm's cost
    map, or None where no price is known."""
    if price is not None:
        return price.cost(prompt_tokens, completion_tokens)
    if free:
        return 0.0
    if not in_cost_map(model):
        return None
    try:
        prompt_usd, completion_usd = load_litellm().cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    except Exception:  # a model litellm maps but cannot price by tokens
        return None
    return float(prompt_usd) + float(completion_usd)


def reply_cost(
    model: str,
    response: Any,
    prompt_tokens: int,
    completion_tokens: int,
    price: TokenPrice | None,
    free: bool,
) -> tuple[float, bool]:
    """(cost in USD, whether it is known) of one litellm response."""
    if price is not None:
        return price.cost(prompt_tokens, completion_tokens), True
    if free:
        return 0.0, True
    if not in_cost_map(model):
        return 0.0, False
    try:
        return float(load_litellm().completion_cost(completion_response=response, model=model)), True
    except Exception:  # a response shape litellm cannot price
        return 0.0, False
