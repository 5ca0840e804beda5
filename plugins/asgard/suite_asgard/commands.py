"""The action value a turn hands the environment: a valid `ACTION OBJECT`, or why it is not one."""

from __future__ import annotations

from dataclasses import dataclass

from suite_asgard.world_rules import UNPARSABLE, VALID

#: What an empty reply is in the action history, the loop check and the notes (the harness's `empty_response`).
EMPTY_REPLY = "(empty reply)"


@dataclass(frozen=True)
class Command:
    """One turn's command: `kind` is valid, invalid_action, invalid_object or unparsable."""

    kind: str
    action: str | None = None
    obj: str | None = None

    @property
    def text(self) -> str | None:
        """`ACTION OBJECT` as the history shows it (None for an unparsable turn, EMPTY_REPLY for an empty reply)."""
        if self.action is None:
            return None
        return f"{self.action} {self.obj}" if self.obj else self.action

    @property
    def empty(self) -> bool:
        """Whether the model's reply was empty (an unparsable turn the history still shows)."""
        return self.kind == UNPARSABLE and self.action == EMPTY_REPLY

    @classmethod
    def valid(cls, action: str, obj: str) -> Command:
        """A command the environment executes."""
        return cls(VALID, action, obj)

    @classmethod
    def unparsable(cls) -> Command:
        """A reply with no `Action:` line."""
        return cls(UNPARSABLE)

    @classmethod
    def empty_reply(cls) -> Command:
        """An empty reply (after the re-asks): unparsable, but named in the history with no object, as the harness
        names it, so it is its own entry for the loop and novelty checks."""
        return cls(UNPARSABLE, EMPTY_REPLY, "")
