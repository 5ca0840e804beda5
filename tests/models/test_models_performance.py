"""The model layer adds microseconds to litellm's own cost and never serializes concurrent calls."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from suite.models import CostLedger, ModelClient, RateLimiter, ResponseCache, load_litellm, register_script

MSGS = [
    {"role": "system", "content": "You are an agent."},
    {"role": "user", "content": "You see a door. Act."},
]


def test_64_concurrent_calls_overlap(tmp_path: Any) -> None:
    register_script("t-slow", lambda messages: "ok", latency_s=0.1)
    client = ModelClient(
        "scripted/t-slow",
        limiter=RateLimiter(),
        ledger=CostLedger(),
        cache=ResponseCache(tmp_path / "c.sqlite"),
    )

    async def run() -> float:
        await client.complete(MSGS)  # warm litellm's lazy imports
        start = time.perf_counter()
        await asyncio.gather(
            *(client.complete([*MSGS, {"role": "user", "content": str(i)}]) for i in range(64))
        )
        return time.perf_counter() - start

    elapsed = asyncio.run(run())
    print(f"64 concurrent calls at 100 ms: {elapsed * 1e3:.0f} ms")
    assert elapsed < 1.0  # serialized would be 6.4 s; litellm's own CPU time is most of the rest


def test_client_overhead_without_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    litellm = load_litellm()
    canned = litellm.ModelResponse(
        choices=[{"message": {"role": "assistant", "content": "ok"}}],
        usage=litellm.Usage(prompt_tokens=10, completion_tokens=1, total_tokens=11),
    )

    async def instant(**request: Any) -> Any:
        return canned

    monkeypatch.setattr(litellm, "acompletion", instant)
    client = ModelClient("scripted/any")

    async def per_call(n: int) -> float:
        for _ in range(50):
            await client.complete(MSGS, episode="e", step=0)
        start = time.perf_counter()
        for _ in range(n):
            await client.complete(MSGS, episode="e", step=0)
        return (time.perf_counter() - start) / n

    overhead = min(asyncio.run(per_call(500)) for _ in range(3))
    print(f"ModelClient overhead per call (litellm stubbed out): {overhead * 1e6:.1f} us")
    assert overhead < 200e-6
