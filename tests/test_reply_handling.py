"""Whatever a model's reply holds, handling it is the agent's side (issue 20): a parser that raises makes that
step's parse failure (counted, its exception type in the trace), never an `env_error`; and a slow parser runs off
the event loop, so other episodes go on and the episode's deadline still ends it."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from suite.contract.records import Action, Observation, Settlement, StepRecord, StepResult, Task
from suite.contract.registry import BenchmarkSpec, Metric
from suite.engine.agents import INLINE_PARSE_CHARS, AgentContext, DirectAgent
from suite.engine.loop import TraceSink, run_episode
from suite.engine.outcomes import unparsable_steps
from suite.models.reply import ModelReply

TASK = Task("probe", "t1", {}, max_steps=3)


class CountEnv:
    """Three steps to done."""

    def __init__(self) -> None:
        self.count = 0

    def reset(self) -> Observation:
        return Observation(text="start")

    def step(self, action: Any) -> StepResult:
        self.count += 1
        return StepResult(Observation(text=str(self.count)), done=self.count >= 3)

    def close(self) -> None:
        pass


class ReplyHost:
    """make_env, build_prompt, settle, and the given parse_action."""

    def __init__(self, parse: Any, inline_parse: bool = False) -> None:
        self.parse = parse
        self.spec = BenchmarkSpec("probe", "a probe", [Metric("unparsable", "unparsable")], inline_parse=inline_parse)

    def benchmark(self, name: str) -> BenchmarkSpec:
        return self.spec

    def call(self, hook: str, benchmark: str, **kwargs: Any) -> Any:
        if hook == "make_env":
            return CountEnv()
        if hook == "build_prompt":
            return [{"role": "user", "content": kwargs["observation"].text}]
        if hook == "parse_action":
            return self.parse(kwargs["reply"])
        trajectory = kwargs["trajectory"]
        failed = unparsable_steps(trajectory)
        outcome = "parse_failure" if failed else "success" if kwargs["env"].count >= 3 else "agent_failure"
        return Settlement(outcome, {"unparsable": failed})


class Echo:
    """A model that answers `text` (`go`) at once."""

    model = "echo"

    def __init__(self, text: str = "go") -> None:
        self.text = text

    async def complete(self, messages: list[dict[str, Any]], **_: Any) -> ModelReply:
        return ModelReply(self.text, 1, 1, 0.0, False, 0.0, "h", 1, "echo")


class Steps(TraceSink):
    def __init__(self) -> None:
        self.steps: list[StepRecord] = []

    def step(self, record: StepRecord, observation: Observation) -> None:
        self.steps.append(record)


def episode(parse: Any, timeout_s: float | None = None, inline_parse: bool = False,
            reply: str = "go") -> tuple[Any, Steps]:
    host = ReplyHost(parse, inline_parse)
    agent = DirectAgent(AgentContext(host, "probe", {}, Echo(reply)))
    sink = Steps()
    return asyncio.run(run_episode(host, TASK, agent, {}, sink, timeout_s=timeout_s)), sink


def test_a_parser_that_raises_makes_that_steps_parse_failure() -> None:
    replies = iter(range(10))

    def parse(reply: str) -> Action:
        if next(replies) == 1:
            raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")
        return Action("go", "go")

    result, sink = episode(parse)
    assert result.settlement.outcome == "parse_failure"  # the model's side: never env_error
    assert result.trajectory.end_reason == "max_steps" and len(sink.steps) == 3
    failed = sink.steps[1].action
    assert not failed.ok and failed.parse_error.startswith("the reply could not be read: RecursionError: maximum")
    assert sink.steps[1].reply == "go" and sink.steps[1].feedback.startswith("parse failure: ")
    assert result.settlement.metrics == {"unparsable": 1}


def test_an_exception_without_text_still_names_its_type() -> None:
    class Odd(Exception):
        def __str__(self) -> str:
            raise ValueError("no text")

    def parse(reply: str) -> Action:
        raise Odd

    result, sink = episode(parse)
    assert [s.action.parse_error for s in sink.steps] == ["the reply could not be read: Odd"] * 3


def test_a_slow_parser_holds_neither_the_loop_nor_the_run_past_the_deadline() -> None:
    def parse(reply: str) -> Action:
        time.sleep(3)  # stands for a parser that takes far too long on a reply
        return Action("go", "go")

    async def both() -> tuple[Any, int]:
        ticks = 0

        async def heartbeat() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        beat = asyncio.create_task(heartbeat())
        host = ReplyHost(parse)
        agent = DirectAgent(AgentContext(host, "probe", {}, Echo()))
        started = time.monotonic()
        result = await run_episode(host, TASK, agent, {}, TraceSink(), timeout_s=0.3)
        elapsed = time.monotonic() - started
        beat.cancel()
        assert elapsed < 2.5, elapsed  # ended at its deadline, not after the parser's 3 s
        return result, ticks

    result, ticks = asyncio.run(both())
    assert result.settlement.outcome == "timeout"
    assert ticks >= 5  # other work on the loop went on while the parser ran


def _parse_where(inline_parse: bool, reply: str) -> set[bool]:
    """Whether each step's parse ran on the main (event loop) thread."""
    where: set[bool] = set()

    def parse(text: str) -> Action:
        where.add(threading.current_thread() is threading.main_thread())
        return Action("go", "go")

    episode(parse, inline_parse=inline_parse, reply=reply)
    return where


def test_a_benchmark_declaring_inline_parse_has_short_replies_parsed_on_the_loop() -> None:
    assert _parse_where(True, "go") == {True}
    assert _parse_where(True, "x" * INLINE_PARSE_CHARS) == {True}


def test_long_replies_and_undeclared_parsers_go_to_a_worker_thread() -> None:
    assert _parse_where(True, "x" * (INLINE_PARSE_CHARS + 1)) == {False}  # a long reply: never on the loop
    assert _parse_where(False, "go") == {False}  # a parser that declares nothing: always off the loop
