"""Cost accounting per reply, episode and run, and the budget stop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from suite.contract.errors import BudgetExceeded
from suite.models import CostLedger, ModelClient, ResponseCache, TokenPrice, register_script

MSGS = [{"role": "user", "content": "12345678"}]  # 4 + 2 estimated prompt tokens
CENT_A_CALL = TokenPrice(prompt_usd=0.001, completion_usd=0.002)  # 6 * 0.001 + 2 * 0.002 = $0.01


def test_totals_per_episode_and_run() -> None:
    register_script("t-ledger", lambda messages: "abcdefgh")  # 2 completion tokens
    ledger = CostLedger()
    client = ModelClient("scripted/t-ledger", ledger=ledger, price=CENT_A_CALL)

    async def run() -> None:
        await client.complete(MSGS, episode="a")
        await client.complete(MSGS, episode="a")
        await client.complete(MSGS, episode="b")
        await client.complete(MSGS)

    asyncio.run(run())
    assert ledger.episode("a").calls == 2 and ledger.episode("a").cost_usd == pytest.approx(0.02)
    assert ledger.episode("b").prompt_tokens == 6 and ledger.episode("b").completion_tokens == 2
    assert ledger.episode("never").calls == 0
    total = ledger.total
    assert (total.calls, total.prompt_tokens, total.completion_tokens) == (4, 24, 8)
    assert total.cost_usd == pytest.approx(0.04) and total.cost_known


def test_cached_tokens_are_counted_apart_from_spent_ones(tmp_path: Path) -> None:
    register_script("t-ledger-cached", lambda messages: "abcdefgh")
    cache = ResponseCache(tmp_path / "c.sqlite")
    ledger = CostLedger()

    async def run() -> None:
        for _ in range(2):  # the second pass is served from the cache
            client = ModelClient("scripted/t-ledger-cached", ledger=ledger, cache=cache, price=CENT_A_CALL)
            await client.complete(MSGS, episode="a", step=0)

    asyncio.run(run())
    total = ledger.total
    assert (total.calls, total.cached_calls, total.prompt_tokens, total.completion_tokens) == (2, 1, 6, 2)
    assert (total.cached_prompt_tokens, total.cached_completion_tokens) == (6, 2)
    assert total.cost_usd == pytest.approx(0.01)


def test_scripted_models_are_free_without_a_price() -> None:
    register_script("t-free", lambda messages: "ok")
    reply = asyncio.run(ModelClient("scripted/t-free").complete(MSGS))
    assert (reply.cost_usd, reply.cost_known) == (0.0, True)


def test_budget_stops_new_calls_but_counts_in_flight_ones() -> None:
    script = register_script("t-budget", lambda messages: "abcdefgh", latency_s=0.02)
    ledger = CostLedger(max_cost_usd=0.025)
    client = ModelClient("scripted/t-budget", ledger=ledger, price=CENT_A_CALL)

    async def run() -> None:
        await asyncio.gather(*(client.complete(MSGS, episode=str(i)) for i in range(5)))  # all start at $0

    asyncio.run(run())
    assert ledger.total.cost_usd == pytest.approx(0.05)  # over the budget: in-flight calls finished
    with pytest.raises(BudgetExceeded, match=r"\$0\.0250"):
        asyncio.run(client.complete(MSGS, episode="late"))
    assert script.calls == 5


def test_budget_is_checked_before_each_call() -> None:
    register_script("t-budget2", lambda messages: "abcdefgh")
    ledger = CostLedger(max_cost_usd=0.025)
    client = ModelClient("scripted/t-budget2", ledger=ledger, price=CENT_A_CALL)

    async def run() -> int:
        calls = 0
        with pytest.raises(BudgetExceeded):
            while True:
                await client.complete(MSGS)
                calls += 1
        return calls

    assert asyncio.run(run()) == 3  # $0.00, $0.01, $0.02 are under $0.025; $0.03 is not


def test_a_steps_usage_counts_cached_replies_apart() -> None:
    """An agent that calls the model twice in a step, once answered from the cache."""
    from suite.contract.records import Usage
    from suite.models import ModelReply

    spent = ModelReply("a", 10, 2, 0.01, False, 0.5, "h1", 1, "m", truncated_chars=3)
    cached = ModelReply("b", 7, 1, 0.0, True, 0.0, "h2", 0, "m")
    kw = {"finish_reason": None}
    assert Usage.of(spent, cached) == Usage(10, 2, 0.01, True, 0.5, cached_prompt_tokens=7, cached_completion_tokens=1,
                                            truncated_chars=3, **kw)
    assert Usage.of(cached) == Usage(0, 0, 0.0, True, 0.0, cached_prompt_tokens=7, cached_completion_tokens=1, **kw)
    assert Usage.of(spent) == Usage(10, 2, 0.01, False, 0.5, truncated_chars=3, **kw)
