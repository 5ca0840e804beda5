"""The model layer never serializes concurrent calls (its per-call cost is measured in bench/overhead.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from suite.models import CostLedger, ModelClient, RateLimiter, ResponseCache, load_litellm

MSGS = [
    {"role": "system", "content": "You are an agent."},
    {"role": "user", "content": "You see a door. Act."},
]
CALLS = 64


def test_64_concurrent_calls_are_all_in_flight_at_once(tmp_path: Any, monkeypatch: Any) -> None:
    """Every call reaches litellm before any returns: a client that serialized them would never fill the gate."""
    litellm = load_litellm()
    canned = litellm.ModelResponse(
        choices=[{"message": {"role": "assistant", "content": "ok"}}],
        usage=litellm.Usage(prompt_tokens=10, completion_tokens=1, total_tokens=11),
    )
    in_flight, peak = 0, 0

    async def run() -> int:
        gate = asyncio.Event()

        async def held(**request: Any) -> Any:
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            if in_flight == CALLS:
                gate.set()
            await asyncio.wait_for(gate.wait(), 60)  # a hang guard only: serialized calls never open it
            in_flight -= 1
            return canned

        monkeypatch.setattr(litellm, "acompletion", held)
        client = ModelClient(
            "scripted/any", limiter=RateLimiter(), ledger=CostLedger(), cache=ResponseCache(tmp_path / "c.sqlite")
        )
        replies = await asyncio.gather(
            *(client.complete([*MSGS, {"role": "user", "content": str(i)}]) for i in range(CALLS))
        )
        return len(replies)

    assert asyncio.run(run()) == CALLS
    assert peak == CALLS


def test_litellm_schedules_no_success_logging_unless_a_callback_is_registered(monkeypatch: Any) -> None:
    """With no litellm callback the deferred success logging (which feeds nothing) is not scheduled; a user's
    callback gets it back."""
    from litellm.litellm_core_utils.litellm_logging import Logging
    from suite.models import register_script

    litellm = load_litellm()
    register_script("logging-probe", lambda messages: "ok")
    handled = []
    success = Logging.async_success_handler

    async def counted(*args: Any, **kwargs: Any) -> Any:
        handled.append(1)
        return await success(*args, **kwargs)

    monkeypatch.setattr(Logging, "async_success_handler", counted)

    async def three() -> list[str]:
        client = ModelClient("scripted/logging-probe")
        texts = [(await client.complete(MSGS, episode="e", step=i)).text for i in range(3)]
        await asyncio.sleep(0.2)  # time for any deferred logging task to run
        return texts

    assert asyncio.run(three()) == ["ok"] * 3 and handled == []
    monkeypatch.setattr(litellm, "_async_success_callback", [lambda *a, **k: None])
    asyncio.run(three())
    assert len(handled) == 3
