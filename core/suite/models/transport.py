"""Bounds on what one model call reads: the reply body's bytes (`model.max_reply_bytes`) and the attempt's total
time (`model.call_deadline_s`).

`model.max_reply_chars` cuts a reply only once litellm has read and parsed the whole body, and `model.params.timeout`
bounds only the wait between two reads: a server whose body never ends would grow the process without bound, one
that trickles a byte every few seconds would hold the call forever. Here the body is counted as it arrives, in an
httpx transport that litellm's OpenAI-compatible calls go through (`litellm.aclient_session`), and the call ends with
`ReplyTooLarge` once it passes the cap; `asyncio.timeout` ends an attempt that outlives the deadline (`CallDeadline`,
a transient failure the retry policy retries). Providers litellm calls through its own HTTP clients (not the OpenAI
SDK) are bound by the deadline alone."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpx

#: `model.call_deadline_s`: the longest one attempt of a model call may take, body included
DEFAULT_CALL_DEADLINE_S = 600.0
#: `model.max_reply_bytes`: the most bytes of one reply body read (a 100,000-character reply is far below it)
DEFAULT_MAX_REPLY_BYTES = 10_000_000


class ReplyTooLarge(Exception):
    """A reply body longer than `model.max_reply_bytes`: its reading was stopped (a model fault, not retried)."""


class CallDeadline(Exception):
    """An attempt that outlived `model.call_deadline_s` (a transient model fault: retried)."""


@dataclass(frozen=True, slots=True)
class CallLimits:
    """What one attempt may take: seconds in all, and bytes of reply body (None: no bound)."""

    deadline_s: float | None = DEFAULT_CALL_DEADLINE_S
    max_bytes: int | None = DEFAULT_MAX_REPLY_BYTES


DEFAULT_LIMITS = CallLimits()


@dataclass(slots=True)
class _Budget:
    """The body bytes one call may still read; `over` once it read past them."""

    limit: int
    read: int = 0
    over: bool = False


_BUDGET: ContextVar[_Budget | None] = ContextVar("suite_reply_budget", default=None)


class _CountedStream(httpx.AsyncByteStream):
    """A response body that raises ReplyTooLarge as soon as its bytes pass the call's budget."""

    def __init__(self, inner: Any, budget: _Budget) -> None:
        self._inner, self._budget = inner, budget

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._budget.read += len(chunk)
            if self._budget.read > self._budget.limit:
                self._budget.over = True
                raise ReplyTooLarge(f"the reply body passed model.max_reply_bytes ({self._budget.limit} bytes)")
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx.AsyncBaseTransport):
    """litellm's own transport (one per event loop: its connections belong to one), whose response bodies are
    counted against the budget of the call that reads them."""

    def __init__(self) -> None:
        self._inner: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncBaseTransport] = (
            weakref.WeakKeyDictionary()
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send `request` through this loop's transport; its body is counted while a call's budget is set."""
        response = await self._transport().handle_async_request(request)
        budget = _BUDGET.get()
        if budget is not None:
            response.stream = _CountedStream(response.stream, budget)
        return response

    def _transport(self) -> httpx.AsyncBaseTransport:
        loop = asyncio.get_running_loop()
        transport = self._inner.get(loop)
        if transport is None:
            from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler

            transport = AsyncHTTPHandler.create_async_transport() or httpx.AsyncHTTPTransport()
            self._inner[loop] = transport
        return transport


def install(litellm: Any) -> None:
    """Route litellm's OpenAI-compatible calls through a CappedTransport (unless a session of the user's is set)."""
    if getattr(litellm, "aclient_session", None) is None:
        litellm.aclient_session = httpx.AsyncClient(transport=CappedTransport(), follow_redirects=True)


async def bounded(call: Any, limits: CallLimits) -> Any:
    """Await the coroutine `call` within `limits`: CallDeadline past the deadline, ReplyTooLarge past the body cap."""
    budget = _Budget(limits.max_bytes) if limits.max_bytes else None
    token = _BUDGET.set(budget)
    try:
        async with asyncio.timeout(limits.deadline_s) as scope:
            return await call
    except TimeoutError:
        if not scope.expired():
            raise
        raise CallDeadline(f"no whole reply within model.call_deadline_s ({limits.deadline_s:g} s)") from None
    except Exception:
        if budget is None or not budget.over:
            raise
        raise ReplyTooLarge(
            f"the reply body passed model.max_reply_bytes ({budget.limit} bytes): its reading was stopped"
        ) from None
    finally:
        _BUDGET.reset(token)
