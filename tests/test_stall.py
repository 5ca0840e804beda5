"""A run that makes no progress (issue 36, item 9): an episode repeating the same failed action is warned about once
(`run.repeat_warning`), a stall limit ends it as `stalled`, the agent's failure (`run.stall_limit` or the benchmark's
`BenchmarkSpec.stall_limit`), and a run whose step budgets could cost much without `--max-cost` is told so first."""

from __future__ import annotations

import asyncio
import json
import pickle
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite.cli.main import main
from suite.contract.records import Action, Observation, Settlement, StepRecord, StepResult, Task
from suite.contract.registry import BenchmarkSpec
from suite.contract.schemas import validate
from suite.engine import runner
from suite.engine.agents import Agent, AgentTurn
from suite.engine.host import build_host, default_config
from suite.engine.loop import TraceSink, run_episode
from suite.engine.outcomes import stalled_outcome
from suite.engine.runner import FileSink
from suite.engine.stall import StallRule, protocol_note, stall_rule
from suite.executors.ray_attempt import TraceReplay
from suite.executors.ray_worker import EpisodeEnd, QueueSink, SimulatorCalls, run_streamed
from suite.launch.estimate import cost_warning, estimate
from suite.models import pricing
from suite.models.client import ModelClient
from suite.store.run_folder import RunStore
from suite.store.traces import TRACE_SCHEMA, TraceWriter, read_lines
from suite.validity.auditor import plan_benchmark

TASK = Task("probe", "t1", {}, max_steps=12)


class Blocked:
    """Every step fails, except those whose number (from 1) is in `succeeds`."""

    def __init__(self, succeeds: frozenset[int] = frozenset()) -> None:
        self.succeeds, self.count = succeeds, 0

    def reset(self) -> Observation:
        return Observation(text="start")

    def step(self, action: Any) -> StepResult:
        self.count += 1
        return StepResult(Observation(text=str(self.count)), feedback="blocked",
                          failed=self.count not in self.succeeds)

    def close(self) -> None:
        pass


class Host:
    """make_env gives the env; settle says what the plugin would (`outcome`)."""

    def __init__(self, env: Blocked, outcome: str = "agent_failure") -> None:
        self.env, self.outcome = env, outcome

    def call(self, hook: str, benchmark: str, **kwargs: Any) -> Any:
        return self.env if hook == "make_env" else Settlement(self.outcome, failure_reason="goal unmet")


class Replies(Agent):
    """Answers the replies in turn, cycling; a reply 'bad' does not parse."""

    def __init__(self, *replies: str) -> None:
        self.replies = replies

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        reply = self.replies[len(history) % len(self.replies)]
        action = Action.failure("no action", reply) if reply == "bad" else Action({"move": reply}, reply)
        return AgentTurn(action=action, reply=reply)


class Told(TraceSink):
    def __init__(self) -> None:
        self.told: list[str] = []

    def warn(self, message: str) -> None:
        self.told.append(message)


def episode(env: Blocked, agent: Agent, rule: StallRule, outcome: str = "agent_failure") -> tuple[Any, list[str]]:
    sink = Told()
    result = asyncio.run(run_episode(Host(env, outcome), TASK, agent, {}, sink, stall=rule))
    return result, sink.told


def test_a_repeated_failed_action_is_warned_about_once_and_the_episode_runs_on() -> None:
    result, told = episode(Blocked(), Replies("ahead"), StallRule(warn_after=3))
    traj = result.trajectory
    assert traj.end_reason == "max_steps" and len(traj.steps) == 12 and result.settlement.outcome == "agent_failure"
    assert told == traj.warnings and len(told) == 1
    assert told[0].startswith("probe/t1: the same failed action 3 times in a row (ahead): the agent makes no progress")


@pytest.mark.parametrize("settled", ["agent_failure", "budget_exhausted", "env_error", "timeout"])
def test_a_stall_limit_ends_the_episode_as_the_agents_failure(settled: str) -> None:
    result, told = episode(Blocked(), Replies("ahead"), StallRule(warn_after=50, end_after=4), settled)
    traj, settlement = result.trajectory, result.settlement
    assert (traj.end_reason, len(traj.steps), settlement.outcome) == ("stalled", 4, "agent_failure")
    assert settlement.failure_reason == ("stalled: the same failed action 4 times in a row (ahead) (stall limit 4); "
                                         "goal unmet")
    assert told == ["probe/t1: ended as stalled after the same failed action 4 times in a row (ahead)"]


def test_the_same_unparsable_reply_counts_as_a_repeated_failed_action() -> None:
    result, _ = episode(Blocked(frozenset(range(1, 13))), Replies("bad"), StallRule(end_after=5), "parse_failure")
    assert (result.trajectory.end_reason, len(result.trajectory.steps)) == ("stalled", 5)
    assert result.settlement.outcome == "parse_failure"  # the agent's own failure stands


@pytest.mark.parametrize(("env", "agent"), [
    (Blocked(frozenset({3, 6, 9, 12})), Replies("ahead")),  # a step that works starts the count again
    (Blocked(), Replies("ahead", "ahead", "left")),  # so does another failed action
])
def test_only_identical_failed_actions_in_a_row_count(env: Blocked, agent: Agent) -> None:
    result, told = episode(env, agent, StallRule(warn_after=3, end_after=3))
    assert result.trajectory.end_reason == "max_steps" and not told


def test_without_a_rule_nothing_is_counted() -> None:
    result = asyncio.run(run_episode(Host(Blocked()), TASK, Replies("ahead"), {}, TraceSink()))
    assert result.trajectory.end_reason == "max_steps" and not result.trajectory.warnings


@pytest.mark.parametrize("outcome", ["success", "agent_failure", "parse_failure"])
def test_a_stalled_episode_keeps_the_agents_own_outcome(outcome: str) -> None:
    assert stalled_outcome(outcome) == outcome


def test_the_stall_limit_is_the_benchmarks_unless_the_run_sets_one() -> None:
    run = OmegaConf.create({"repeat_warning": 50, "stall_limit": None})
    assert stall_rule(run, None) == StallRule(50, 0) and not stall_rule(OmegaConf.create({}), None)
    assert stall_rule(run, 30) == StallRule(50, 30) and protocol_note(run, "b", 30) is None
    run.stall_limit = 0
    assert stall_rule(run, 30) == StallRule(50, 0)
    assert protocol_note(run, "b", 30) == ("run.stall_limit=0: b episodes never end as stalled, and its protocol ends "
                                           "them after 30 identical failed actions in a row: this run is not the "
                                           "paper's protocol")
    run.stall_limit = 200
    assert stall_rule(run, None) == StallRule(50, 200)
    assert "its protocol has no such rule: this run is not the paper's protocol" in str(protocol_note(run, "b", None))


def test_a_ray_workers_warning_reaches_the_driver_and_the_trace(tmp_path: Path) -> None:
    told: list[str] = []
    path = tmp_path / "t.jsonl"
    replay = TraceReplay(TASK, FileSink(TraceWriter(tmp_path, path, "t"), told.append))
    replay.apply(("start", Observation(text="go")))
    replay.apply(("warning", "probe/t1: the same failed action 50 times in a row"))
    replay.apply(("end", EpisodeEnd("max_steps", None, Settlement("agent_failure"), 1.0, False)))
    assert told == ["probe/t1: the same failed action 50 times in a row"] == replay.trajectory.warnings
    end = list(read_lines(path))[-1]
    validate(end, TRACE_SCHEMA, "trace line")
    assert end["warnings"] == told


def test_a_stalled_longact_run_warns_once_per_episode_and_records_why(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    # scripted/first-option walks into a wall and pushes on: 16,000 blocked moves per episode without a stall limit
    assert main(["run", "--plugins", "longact", "--model", "scripted/first-option", "--limit", "1", "--out",
                 str(out), "--no-report", "run.repeat_warning=3", "run.stall_limit=8"]) == 0
    err = capsys.readouterr().err
    assert ("warning: run.stall_limit=8: longact episodes end as stalled after 8 identical failed actions in a row, "
            "and its protocol has no such rule: this run is not the paper's protocol") in err
    store = RunStore(out)
    records = store.records()
    assert len(records) == 1
    for record in records:
        assert (record["end_reason"], record["outcome"]) == ("stalled", "agent_failure")
        assert record["failure_reason"].startswith("stalled: the same failed action 8 times in a row (MoveAhead)")
        warning = f"{record['episode_id']}: the same failed action 3 times in a row (MoveAhead): the agent makes no " \
                  "progress; it ends as stalled at 8"
        assert record["warnings"] == [warning] and err.count(warning) == 1
        assert store.read_trace(record["episode_id"])[-1]["warnings"] == [warning]
    store.close()


class FakeLitellm:
    """A cost map that knows one model at $5 / $15 per million prompt / completion tokens."""

    def get_model_info(self, model: str) -> dict[str, Any]:
        if model != "openai/priced":
            raise ValueError("not mapped")
        return {"input_cost_per_token": 5e-6}

    def cost_per_token(self, model: str, prompt_tokens: int, completion_tokens: int) -> tuple[float, float]:
        return prompt_tokens * 5e-6, completion_tokens * 15e-6


@pytest.fixture
def priced(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    pricing.in_cost_map.cache_clear()
    monkeypatch.setattr(pricing, "load_litellm", FakeLitellm)
    yield
    pricing.in_cost_map.cache_clear()


def run_config(**run: Any) -> Any:
    return OmegaConf.create({"max_cost": None, "cost_warning_usd": 10, **run})


TASKS = [Task("longact", str(i), {}, max_steps=16_000) for i in range(5)] + [Task("agentvqa", "q", {})]


@pytest.mark.usefixtures("priced")
def test_a_large_uncapped_budget_is_estimated_from_the_models_price() -> None:
    model = {b: ModelClient("openai/priced", max_tokens=256) for b in ("longact", "agentvqa")}
    found = estimate(model, TASKS)
    assert found is not None and (found.episodes, found.steps) == (6, 80_001)
    assert found.tokens == 80_001 * 3_256 and found.cost_usd == pytest.approx(80_001 * (3_000 * 5e-6 + 256 * 15e-6))
    assert cost_warning(run_config(), model, TASKS) == (
        "warning: this run could cost up to about $1,507.22 (260,483,256 tokens: 6 episodes, 80,001 steps in their "
        "step budgets, about 3,500 tokens a step) and no --max-cost caps it: --max-cost USD stops it cleanly at a "
        "budget (run.cost_warning_usd=10 sets when this shows)")
    assert cost_warning(run_config(max_cost=50), model, TASKS) is None  # capped
    assert cost_warning(run_config(cost_warning_usd=2000), model, TASKS) is None  # under the threshold
    assert cost_warning(run_config(cost_warning_usd=None), model, TASKS) is None  # off


@pytest.mark.usefixtures("priced")
@pytest.mark.parametrize("name", ["scripted/first-option", "openai/unpriced"])
def test_a_free_or_unpriced_model_gets_no_cost_warning(name: str) -> None:
    model = {b: ModelClient(name) for b in ("longact", "agentvqa")}
    assert cost_warning(run_config(), model, TASKS) is None
    assert cost_warning(run_config(), None, TASKS) is None  # an agent without a model


def test_the_run_settings_have_documented_defaults() -> None:
    defaults = json.loads(json.dumps(OmegaConf.to_container(OmegaConf.load(
        Path(__file__).parents[1] / "configs" / "default.yaml"))))["run"]
    assert (defaults["repeat_warning"], defaults["stall_limit"], defaults["cost_warning_usd"]) == (50, None, 10)


def test_an_audits_baselines_repeat_failed_actions_without_a_warning_per_episode(tmp_path: Path) -> None:
    host = build_host()
    cfg = default_config(sorted(host.registry.benchmarks))
    runner.resolve_data(host, cfg, ["counter"])
    plan = plan_benchmark(host, cfg, "counter", tmp_path)
    assert plan.jobs and all(job.cfg["run"]["repeat_warning"] == 0 for job in plan.jobs)


def test_a_ray_worker_applies_the_benchmarks_declared_stall_limit_and_streams_its_warning() -> None:
    host = Host(Blocked())
    host.benchmark = lambda name: BenchmarkSpec(name, "", (), stall_limit=4)  # type: ignore[attr-defined]
    events: queue.Queue[bytes | None] = queue.Queue()
    cfg = OmegaConf.create({"run": {"episode_timeout_s": None, "repeat_warning": 2, "stall_limit": None}})
    asyncio.run(run_streamed(host, cfg, lambda bench: Replies("ahead"), TASK, QueueSink(events, TASK),
                             SimulatorCalls()))
    sent = [pickle.loads(e) for e in iter(events.get, None)]
    assert [e[1] for e in sent if e[0] == "warning"] == [
        "probe/t1: the same failed action 2 times in a row (ahead): the agent makes no progress; it ends as stalled "
        "at 4"]
    end = sent[-1][1]
    assert (end.end_reason, end.settlement.outcome) == ("stalled", "agent_failure")


@pytest.mark.parametrize(("bench", "refused", "works"), [
    ("omniear", "Agent_1_Action: GOTO nowhere", "Agent_1_Action: EXPLORE"),
    ("asgard", "<answer>Action: PICKUP Fridge</answer>", None),
    ("vigil", "not json at all", None),
    ("longact", '{"action": "Pick", "object": "nothing"}', '{"action": "RotateLeft"}'),
])
def test_each_benchmark_marks_a_refused_action_failed(bench: str, refused: str, works: str | None) -> None:
    host = build_host()
    cfg = default_config([bench])
    runner.resolve_data(host, cfg, [bench])
    task = next(iter(host.call("load_tasks", bench, config=cfg[bench])))
    env = host.call("make_env", bench, task=task, config=cfg[bench])
    env.reset()
    for reply, failed in ((refused, True), (works, False)):
        if reply is not None:
            action = host.call("parse_action", bench, task=task, reply=reply)
            assert env.step(action.value).failed is failed, reply
    env.close()
