"""The core's own registrations: the `direct` agent and the `stop-at-once` baseline, for every benchmark."""

from __future__ import annotations

from suite.contract.hookspecs import hookimpl
from suite.contract.registry import AgentSpec, Registry
from suite.engine.agents import STOP_AT_ONCE, DirectAgent, StopAtOnceAgent


@hookimpl
def register(registry: Registry) -> None:
    """Declare the `direct` agent (the benchmark's prompt, one model call per step, its parser) and the generic
    `stop-at-once` baseline agent (the benchmark's `stop_reply`)."""
    registry.add_agent(AgentSpec("direct", DirectAgent, "one model call per step through the benchmark's hooks",
                                 uses_model=True, valid_replies=True))
    registry.add_agent(AgentSpec(STOP_AT_ONCE, StopAtOnceAgent,
                                 "a shortcut baseline: the benchmark's do-nothing reply (stop, report, answer)"))
