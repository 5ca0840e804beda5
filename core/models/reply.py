"""The result of one model call, as every caller sees it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ModelReply:
    """One model answer with its usage, cost and how it was obtained (never any credential)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool
    latency_s: float
    request_hash: str
    attempts: int
    model: str = ""
    cost_known: bool = True
