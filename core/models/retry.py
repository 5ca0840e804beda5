"""Retries with exponential backoff (tenacity) for transient failures, and the final one-line error."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from suite.errors import ModelError
from suite.models.redact import redact
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

RETRY_STATUSES = frozenset({408, 429})
MAX_REASON_CHARS = 300
LITELLM_PREFIX = re.compile(r"^(litellm\.\w+:\s*)+")


@dataclass(frozen=True)
class RetryPolicy:
    """How many attempts a model call gets, and the exponential backoff between them."""

    attempts: int = 6
    base_s: float = 1.0
    max_s: float = 60.0

    def retrying(self) -> AsyncRetrying:
        """A fresh tenacity loop for one call: retries only transient failures, then re-raises."""
        return AsyncRetrying(
            stop=stop_after_attempt(max(1, self.attempts)),
            wait=wait_exponential_jitter(multiplier=self.base_s, max=self.max_s, jitter=self.base_s),
            retry=retry_if_exception(is_transient),
            reraise=True,
        )


def is_transient(exc: BaseException) -> bool:
    """Rate limits (429), timeouts, connection errors and 5xx; never auth or other 4xx."""
    from openai import APIConnectionError  # loaded with litellm, not at `import suite.models`

    if isinstance(exc, APIConnectionError):  # includes timeouts
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in RETRY_STATUSES or status >= 500)


def is_model_failure(exc: BaseException) -> bool:
    """Whether litellm raised this for a failed model call (all its errors are OpenAI-style)."""
    from openai import OpenAIError

    return isinstance(exc, OpenAIError)


def model_error(
    exc: BaseException, model: str, provider: str, attempts: int, secrets: Iterable[str]
) -> ModelError:
    """The one-line ModelError for a call that failed for good, with every credential masked."""
    status = getattr(exc, "status_code", None)
    reason = LITELLM_PREFIX.sub("", " ".join(redact(str(exc), secrets).split()))[:MAX_REASON_CHARS]
    error = ModelError(
        f"model {model} failed after {attempts} attempt(s): provider {provider}, "
        f"status {status if status is not None else '-'}, {type(exc).__name__}: {reason}"
    )
    error.provider, error.status, error.attempts = provider, status, attempts
    return error
