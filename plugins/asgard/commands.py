"""The action value a turn hands the environment: a valid `ACTION OBJECT`, or why it is not one."""

from __future__ import annotations

from dataclasses import dataclass

from suite_asgard.world_rules import UNPARSABLE, VALID


@dataclass(frozen=True)
class Command:
    """One turn's command: `kind` is valid, invalid_action, invalid_object or unparsable."""

    kind: str
    action: str | None = None
    obj: str | None = None

    @property
    def text(self) -> str | None:
        """`ACTION OBJECT` as the history shows it (None for an unparsable turn)."""
        if self.action is None:
            return None
        return f"{self.action} {self.obj}"

    @classmethod
    def valid(cls, action: str, obj: str) -> Command:
        """A command the environment executes."""
        return cls(VALID, action, obj)

    @classmethod
    def unparsable(cls) -> Command:
        """A reply with no `Action:` line."""
        return cls(UNPARSABLE)
