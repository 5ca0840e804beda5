"""The result of one model call, as every caller sees it."""

from __future__ import annotations

import re
from dataclasses import dataclass

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


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
    truncated_chars: int = 0  # characters cut off the end of the reply by the client's `max_reply_chars`
    earlier_run: bool = False  # served from the cache, stored there by an earlier run (`--cache`)

    @property
    def truncated(self) -> bool:
        """Whether the model was cut off at its token limit (max_tokens or the context) mid-reply."""
        return self.finish_reason == "length"

    @property
    def spent_and_cached(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(prompt, completion) tokens spent on a model call, and those served from the cache: one pair is zeros."""
        tokens = (self.prompt_tokens, self.completion_tokens)
        return ((0, 0), tokens) if self.cached else (tokens, (0, 0))


def storable_text(text: str) -> str:
    """`text` as valid Unicode: each lone surrogate (valid in JSON as `"\\ud800"`, but no character, so no UTF-8
    file or SQLite database takes it) becomes U+FFFD; every other character is kept."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", text)
    return text
