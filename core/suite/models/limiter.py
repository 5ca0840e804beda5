"""Per-provider requests- and tokens-per-minute limits: async token buckets that wait, never raise."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Limit:
    """Requests and tokens per minute for one provider (None: unlimited)."""

    rpm: float | None = None
    tpm: float | None = None


class Limiter(Protocol):
    """What a model client needs from a rate limiter (a Ray actor can back the same two calls)."""

    async def acquire(self, provider: str, tokens_estimate: int) -> None:
        """Wait until one request of about `tokens_estimate` tokens may start."""

    def record(self, provider: str, tokens_used: int, tokens_reserved: int) -> None:
        """Settle a finished request: it used `tokens_used` where `acquire` reserved `tokens_reserved`."""


class _Bucket:
    """A token bucket holding a minute's worth; its level may go negative (a queue of reservations)."""

    __slots__ = ("rate", "capacity", "level", "stamp")

    def __init__(self, per_minute: float, now: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.level = float(per_minute)
        self.stamp = now

    def _refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    def reserve(self, amount: float, now: float) -> float:
        """Take `amount` now; returns how long to wait before using it."""
        self._refill(now)
        wait = max(0.0, (min(amount, self.capacity) - self.level) / self.rate)
        self.level -= amount
        return wait

    def adjust(self, amount: float, now: float) -> None:
        """Take `amount` more (or give it back when negative) without waiting."""
        self._refill(now)
        self.level = min(self.capacity, self.level - amount)


class RateLimiter:
    """Token buckets per provider (the model string's prefix), shared by every episode of the process.

    A request reserves its slot at once and then sleeps until the slot comes, so waiters never hold a
    lock and concurrent calls are admitted in arrival order at exactly the configured pace.
    """

    def __init__(
        self,
        limits: Mapping[str, Limit] | None = None,
        default: Limit | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._limits = dict(limits or {})
        self._default = default or Limit()
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[_Bucket | None, _Bucket | None]] = {}

    def set_limit(self, provider: str, limit: Limit) -> None:
        """Set (or replace) one provider's limits."""
        with self._lock:
            self._limits[provider] = limit
            self._buckets.pop(provider, None)

    def _pair(self, provider: str) -> tuple[_Bucket | None, _Bucket | None]:
        pair = self._buckets.get(provider)
        if pair is None:
            with self._lock:
                limit, now = self._limits.get(provider, self._default), self._clock()
                fresh = (
                    _Bucket(limit.rpm, now) if limit.rpm else None,
                    _Bucket(limit.tpm, now) if limit.tpm else None,
                )
                pair = self._buckets.setdefault(provider, fresh)
        return pair

    async def acquire(self, provider: str, tokens_estimate: int) -> None:
        """Reserve one request and `tokens_estimate` tokens, then wait until they are due."""
        requests, tokens = self._pair(provider)
        if requests is None and tokens is None:
            return
        with self._lock:
            now = self._clock()
            wait = requests.reserve(1, now) if requests else 0.0
            if tokens:
                wait = max(wait, tokens.reserve(tokens_estimate, now))
        if wait > 0:
            await self._sleep(wait)

    def record(self, provider: str, tokens_used: int, tokens_reserved: int) -> None:
        """Charge the difference between the tokens used and those reserved."""
        tokens = self._pair(provider)[1]
        if tokens is not None and tokens_used != tokens_reserved:
            with self._lock:
                tokens.adjust(tokens_used - tokens_reserved, self._clock())
