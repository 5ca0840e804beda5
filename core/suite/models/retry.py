"""Retries with exponential backoff (tenacity) for transient failures, and the final one-line error."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential_jitter
from tenacity.stop import stop_base

from suite.contract.errors import ModelError
from suite.models.redact import redact
from suite.models.transport import CallDeadline, ReplyTooLarge

RETRY_STATUSES = frozenset({408, 429})
#: 5xx statuses a server answers for a request it cannot handle (502, 503, 504 say it is busy or away: retried)
DETERMINISTIC_STATUSES = frozenset({500, 501, 505})
MAX_REASON_CHARS = 300
#: how a model error's text ends when no attempt reached the server (a refused connection, an unknown host, a
#: timeout): `suite.engine.failfast` stops a run whose first episodes all end so
NEVER_REACHED = " [the server was never reached]"
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
            stop=stop_after_attempt(max(1, self.attempts)) | RepeatedServerError(),
            wait=wait_exponential_jitter(multiplier=self.base_s, max=self.max_s, jitter=self.base_s),
            retry=retry_if_exception(is_transient),
            reraise=True,
        )


class RepeatedServerError(stop_base):
    """Stop once a 500 (501, 505) that the server answered repeats the error body of the attempt before it: a
    deterministic fault (a server that cannot take the request, e.g. images sent to a text-only model) that no retry
    fixes. A 200 whose body litellm cannot read is reported as a 500 with a fixed message: that one is a transient
    model fault and gets every attempt."""

    def __init__(self) -> None:
        self.last: str | None = None

    def __call__(self, retry_state: RetryCallState) -> bool:
        """Whether this attempt's 5xx body is the previous attempt's."""
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        status = getattr(exc, "status_code", None)
        server_fault = status in DETERMINISTIC_STATUSES and server_answered_error(exc)
        body = str(exc) if server_fault else None
        repeated = body is not None and body == self.last
        self.last = body
        return repeated


def reached_no_server(exc: BaseException | None) -> bool:
    """Whether the call never got an answer (litellm reports a refused connection as a 500 caused by one)."""
    if isinstance(exc, CallFailure):
        return exc.never_reached
    from openai import APIConnectionError

    while exc is not None:
        if isinstance(exc, APIConnectionError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def server_answered_error(exc: BaseException | None) -> bool:
    """Whether the server itself answered with an error status (an HTTP error response is in the cause chain); a
    refused connection or a 200 with a malformed body that litellm re-labels as a 500 is not one."""
    if isinstance(exc, CallFailure):
        return exc.server_answered
    import httpx
    from openai import APIStatusError

    while exc is not None:
        if isinstance(exc, httpx.HTTPStatusError):
            return True
        if isinstance(exc, APIStatusError) and type(exc).__module__.startswith("openai"):  # the SDK's, not litellm's
            return True
        exc = exc.__cause__ or exc.__context__
    return False


class MalformedReply(Exception):
    """A provider's answer that holds no reply (an empty `choices` list): a model fault, retried like a 5xx."""


class CallFailure(Exception):
    """A failure raised in a model-call worker process (`suite.models.call_workers`), judged there: it carries what
    the retry policy and the final error need of the original, whose type need not survive pickling."""

    def __init__(self, message: str, *, type_name: str, status_code: int | None, transient: bool,
                 model_failure: bool, never_reached: bool, server_answered: bool) -> None:
        super().__init__(message)
        self.type_name, self.status_code = type_name, status_code
        self.transient, self.model_failure = transient, model_failure
        self.never_reached, self.server_answered = never_reached, server_answered

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild_failure, (str(self), self.__dict__)

    @classmethod
    def worker_lost(cls, why: str) -> CallFailure:
        """The attempt's process (a model-call worker, a node's model-call actor) went away: transient, retried."""
        return cls(why, type_name="WorkerLost", status_code=None, transient=True, model_failure=True,
                   never_reached=False, server_answered=False)

    @classmethod
    def judge(cls, exc: BaseException) -> CallFailure:
        """`exc` as judged in the process that raised it."""
        return cls(str(exc), type_name=type(exc).__name__, status_code=getattr(exc, "status_code", None),
                   transient=is_transient(exc), model_failure=is_model_failure(exc),
                   never_reached=reached_no_server(exc), server_answered=server_answered_error(exc))


def _rebuild_failure(message: str, judged: dict[str, Any]) -> CallFailure:
    return CallFailure(message, **judged)


def is_transient(exc: BaseException) -> bool:
    """Rate limits (429), timeouts (a passed call deadline included), connection errors, 5xx and malformed replies;
    never auth or other 4xx, nor a reply body past its cap."""
    if isinstance(exc, CallFailure):
        return exc.transient
    if isinstance(exc, ReplyTooLarge):
        return False
    from openai import APIConnectionError  # loaded with litellm, not at `import suite.models`

    if isinstance(exc, APIConnectionError | MalformedReply | CallDeadline):  # timeouts are connection errors
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in RETRY_STATUSES or status >= 500)


def is_model_failure(exc: BaseException) -> bool:
    """Whether this is a failed model call: litellm raised it (all its errors are OpenAI-style), the reply was
    malformed or too large, or the call outlived its deadline."""
    if isinstance(exc, CallFailure):
        return exc.model_failure
    from openai import OpenAIError

    return isinstance(exc, OpenAIError | MalformedReply | ReplyTooLarge | CallDeadline)


def model_error(
    exc: BaseException, model: str, provider: str, attempts: int, secrets: Iterable[str]
) -> ModelError:
    """The one-line ModelError for a call that failed for good, with every credential masked."""
    status = getattr(exc, "status_code", None)
    reason = LITELLM_PREFIX.sub("", " ".join(redact(str(exc), secrets).split()))[:MAX_REASON_CHARS]
    error = ModelError(
        f"model {model} failed after {attempts} attempt(s): provider {provider}, "
        f"status {status if status is not None else '-'}, {getattr(exc, 'type_name', type(exc).__name__)}: {reason}"
        + (NEVER_REACHED if reached_no_server(exc) else "")
    )
    error.provider, error.status, error.attempts = provider, status, attempts
    return error
