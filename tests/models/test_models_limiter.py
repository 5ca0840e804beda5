"""Rate limiter pacing with a fake clock: reservations in arrival order, waits instead of errors."""

from __future__ import annotations

import asyncio

from suite.models import Limit, ModelClient, RateLimiter, register_script


class FakeClock:
    """A clock that only moves when a sleeper sleeps (sequential use) or when told to."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        await asyncio.sleep(0)


def _limiter(clock: FakeClock, **limits: Limit) -> RateLimiter:
    return RateLimiter(limits, clock=clock, sleep=clock.sleep)


def test_requests_per_minute_burst_then_pace() -> None:
    clock = FakeClock()
    limiter = _limiter(clock, openai=Limit(rpm=60))  # one a second, a minute's burst

    async def run() -> None:
        await asyncio.gather(*(limiter.acquire("openai", 0) for _ in range(63)))

    asyncio.run(run())
    assert clock.sleeps == [1.0, 2.0, 3.0]  # the 61st, 62nd and 63rd wait their slots, concurrently


def test_pacing_follows_the_clock() -> None:
    clock = FakeClock()
    limiter = _limiter(clock, openai=Limit(rpm=6))  # one each 10 s, burst 6

    async def run() -> None:
        for _ in range(6):
            await limiter.acquire("openai", 0)
        clock.now = 25.0  # 2.5 requests refilled
        for _ in range(4):
            await limiter.acquire("openai", 0)

    asyncio.run(run())
    assert clock.sleeps == [5.0, 15.0]  # level 2.5 -> 1.5 -> 0.5: wait 5 s; then 15 s


def test_tokens_per_minute_and_record_corrections() -> None:
    clock = FakeClock()
    limiter = _limiter(clock, gemini=Limit(tpm=6000))  # 100 tokens a second

    async def run() -> None:
        await limiter.acquire("gemini", 5000)
        limiter.record("gemini", 6000, 5000)  # used more than reserved: the bucket is empty now
        await limiter.acquire("gemini", 1000)
        limiter.record("gemini", 0, 1000)  # failed: the reservation comes back
        await limiter.acquire("gemini", 500)
        await limiter.acquire("gemini", 99999)  # larger than the bucket: waits until it is full

    asyncio.run(run())
    assert clock.sleeps == [10.0, 5.0, 65.0]


def test_providers_are_independent_and_unlimited_by_default() -> None:
    clock = FakeClock()
    limiter = _limiter(clock, openai=Limit(rpm=1))

    async def run() -> None:
        for _ in range(100):
            await limiter.acquire("scripted", 10**6)
        await limiter.acquire("openai", 0)
        await limiter.acquire("gemini", 0)
        await limiter.acquire("openai", 0)

    asyncio.run(run())
    assert clock.sleeps == [60.0]


def test_client_acquires_per_attempt_for_its_provider() -> None:
    clock = FakeClock()
    limiter = RateLimiter(default=Limit(rpm=60, tpm=600), clock=clock, sleep=clock.sleep)
    limiter.set_limit("scripted", Limit(rpm=2))
    register_script("t-limited", lambda messages: "ok")
    client = ModelClient("scripted/t-limited", limiter=limiter)

    async def run() -> None:
        for _ in range(4):
            await client.complete([{"role": "user", "content": "x"}])

    asyncio.run(run())
    assert clock.sleeps == [30.0, 60.0]
