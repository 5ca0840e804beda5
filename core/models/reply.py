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
    #: why the model stopped (`stop`, `length`: cut at max_tokens or the context, ...); None when not said
    finish_reason: str | None = None

    @property
    def truncated(self) -> bool:
        """Whether the model was cut off at its token limit (max_tokens or the context) mid-reply."""
        return self.finish_reason == "length"
