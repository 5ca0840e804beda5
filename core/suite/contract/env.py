"""The environment protocol every benchmark's `make_env` returns."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from suite.contract.records import Observation, StepResult


@runtime_checkable
class Env(Protocol):
    """One episode's world: reset once, step per action, close at the end."""

    def reset(self) -> Observation:
        """Start the episode and return the first observation."""
        ...

    def step(self, action: Any) -> StepResult:
        """Apply one parsed action value and return what happened."""
        ...

    def close(self) -> None:
        """Release the environment's resources."""
        ...
