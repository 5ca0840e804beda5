"""The core's own registrations: the `direct` agent, available to every benchmark."""

from __future__ import annotations

from suite.agents import DirectAgent
from suite.hookspecs import hookimpl
from suite.registry import AgentSpec, Registry


@hookimpl
def register(registry: Registry) -> None:
    """Declare the `direct` agent: the benchmark's prompt, one model call per step, its parser."""
    registry.add_agent(AgentSpec("direct", DirectAgent, "one model call per step through the benchmark's hooks",
                                 uses_model=True))
