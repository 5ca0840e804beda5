"""Agents: what chooses each action. `direct` asks the model once per step; plugins add their own."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suite.contract.errors import ConfigError
from suite.contract.records import Action, Observation, StepRecord, Task, Usage
from suite.models.scripted import VALID_REPLY

#: The longest reply a benchmark that declares `inline_parse` has parsed on the event loop (longer ones: worker thread).
INLINE_PARSE_CHARS = 4096

if TYPE_CHECKING:
    from omegaconf import DictConfig

    from suite.contract.env import Env
    from suite.engine.host import PluginHost
    from suite.models.reply import ModelReply


@dataclass
class AgentTurn:
    """One decision: the action, and (for model agents) the prompt, raw reply and usage."""

    action: Action
    reply: str | None = None
    prompt: list[dict[str, Any]] | None = None
    usage: Usage = field(default_factory=Usage)
    note: str | None = None  # the agent's own explanation (e.g. why an oracle gave up), kept in the trace
    #: for agents that call models several times per step: one entry per call (module, model, the slice of `prompt`
    #: it sent as `messages` [start, end), reply, verdict), kept in the trace
    calls: list[dict[str, Any]] | None = None


@dataclass
class AgentContext:
    """What an agent factory gets: the plugins, the benchmark, the run config and the model client."""

    host: PluginHost
    benchmark: str
    config: DictConfig
    model: Any = None
    #: the run folder (None outside a run): where an agent keeps what it carries from one episode of the run to the next
    run_dir: Path | None = None


class Agent(ABC):
    """Chooses actions for one episode; a fresh agent is made per episode."""

    async def begin(self, task: Task, env: Env) -> None:  # noqa: B027 - optional hook
        """Called once after `env.reset()`; privileged agents may keep `env`."""

    @abstractmethod
    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """Choose the next action."""


class DirectAgent(Agent):
    """The default agent: the benchmark's prompt, one model call, the benchmark's parser."""

    def __init__(self, ctx: AgentContext) -> None:
        if ctx.model is None:
            raise ConfigError("agent 'direct' needs a model: pass --model (a litellm model string)")
        self.host = ctx.host
        self.benchmark = ctx.benchmark
        self.model = ctx.model
        self.episode_id = ""
        self.valid_reply = None  # the benchmark's valid replies, for a scripted baseline model that asks for them
        spec = ctx.host.benchmark(ctx.benchmark)
        self.attempts = max(1, spec.empty_reply_attempts)
        self.inline_parse = bool(getattr(spec, "inline_parse", False))
        if getattr(ctx.model, "wants_valid_reply", False):
            self.valid_reply = ctx.host.benchmark(ctx.benchmark).valid_reply
            if self.valid_reply is None:
                raise ConfigError(f"{ctx.model.model} answers with a benchmark's valid replies, and {ctx.benchmark} "
                                  "declares none (BenchmarkSpec.valid_reply)")

    async def begin(self, task: Task, env: Env) -> None:
        """Remember the episode (the model layer uses it to key replays)."""
        self.episode_id = task.key

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """Prompt, call the model (again while its reply is empty, up to the benchmark's `empty_reply_attempts`),
        parse (in a worker thread unless the benchmark declares `inline_parse` and the reply is short; a parser's
        exception is the step's parse failure)."""
        messages = self.host.call("build_prompt", self.benchmark, task=task, observation=observation, history=history)
        hints = None if self.valid_reply is None else {VALID_REPLY: partial(self.valid_reply, task, observation)}
        replies: list[ModelReply] = []
        while len(replies) < self.attempts and (not replies or replies[-1].text == ""):
            replies.append(await self.model.complete(messages, episode=self.episode_id, step=len(history),
                                                     hints=hints))
        text = replies[-1].text
        if self.inline_parse and len(text) <= INLINE_PARSE_CHARS:  # linear parser, bounded reply: no thread hop
            action = parse_safely(self.host, self.benchmark, task, text)
        else:  # off the event loop: a slow parser stalls only its own episode, which the episode's deadline ends
            action = await asyncio.to_thread(parse_safely, self.host, self.benchmark, task, text)
        return AgentTurn(action=action, reply=text, prompt=messages, usage=Usage.of(*replies))


def reply_failure(exc: BaseException) -> Action:
    """The parse failure of a step whose reply handling raised: whatever a reply holds is the model's, never an
    infrastructure fault, so the exception is recorded (its type first) as that step's unparsable reply."""
    try:
        detail = str(exc)[:200]
    except Exception:  # noqa: BLE001 - an exception whose text cannot be made says nothing more
        detail = ""
    return Action.failure(f"the reply could not be read: {type(exc).__name__}" + (f": {detail}" if detail else ""))


def parse_safely(host: PluginHost, benchmark: str, task: Task, reply: str) -> Action:
    """The benchmark's `parse_action` of a reply; an exception it raises is that step's parse failure."""
    try:
        return host.call("parse_action", benchmark, task=task, reply=reply)
    except Exception as exc:  # noqa: BLE001 - a reply may hold anything: reading it is the model's side
        return reply_failure(exc)


#: a privileged policy: (task, env, observation, history) -> action; the env is the plugin's own (what its `make_env`
#: built, with the hidden state the policy reads), so it is typed Any rather than the protocol every env meets
Policy = Callable[[Task, Any, Observation, list[StepRecord]], Action]


class PolicyAgent(Agent):
    """An agent from a plain function of (task, env, observation, history): oracles and baselines."""

    def __init__(self, policy: Policy, offload: bool = False) -> None:
        self.policy = policy
        self.offload = offload
        self.env: Env | None = None

    async def begin(self, task: Task, env: Env) -> None:
        """Keep the environment: privileged policies read its hidden state."""
        self.env = env

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """Ask the policy (in a worker thread when it is slow)."""
        if self.env is None:
            raise RuntimeError("a policy agent acts only after begin() has given it the environment")
        if self.offload:
            action = await asyncio.to_thread(self.policy, task, self.env, observation, history)
        else:
            action = self.policy(task, self.env, observation, history)
        return AgentTurn(action=action)


#: the name of the generic do-nothing baseline agent (a shortcut baseline every benchmark with a `stop_reply` gets)
STOP_AT_ONCE = "stop-at-once"


class StopAtOnceAgent(Agent):
    """The generic `stop-at-once` baseline: the benchmark's `stop_reply` at every step, through its parser."""

    def __init__(self, ctx: AgentContext) -> None:
        self.host = ctx.host
        self.benchmark = ctx.benchmark
        reply = ctx.host.benchmark(ctx.benchmark).stop_reply
        if reply is None:
            raise ConfigError(f"{ctx.benchmark} declares no stop_reply: the stop-at-once agent cannot run on it")
        self.reply = reply

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """The stop reply, parsed as a model's reply would be."""
        text = self.reply(task, observation)
        return AgentTurn(action=self.host.call("parse_action", self.benchmark, task=task, reply=text), reply=text)
