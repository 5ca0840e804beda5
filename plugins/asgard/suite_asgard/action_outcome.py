"""What the high-level action layer needs of a simulator backend (`Simulator`), and what one action returns
(`Outcome`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from suite_household.world import Obj, World


class Simulator(Protocol):
    """What the layer needs from a simulator backend (household_sim.HouseholdSim, thor_sim.ThorSim)."""

    exact_room: bool

    @property
    def world(self) -> World:
        """The current state as a household World (read from AI2-THOR's metadata on the real simulator)."""

    def in_reach(self) -> frozenset[str]:
        """Ids of the objects in view and within reach."""

    def step(self, action: str, object_id: str) -> str | None:
        """One AI2-THOR action on an object; the error message, or None on success."""

    def set_state(self, object_id: str, **changes: Any) -> None:
        """Change an object's state (DRINK)."""

    def fits(self, rec: Obj, item: Obj) -> bool:
        """Whether the receptacle accepts the item and has room for it."""

    def go_to(self, object_id: str, need_contents: bool = False) -> bool:
        """Stand where the object is in view and in reach; False when no such spot exists."""

    def move_object(self, object_id: str, center: tuple[float, float, float]) -> None:
        """Move an object (and what is on it) so its box centre is `center`, in the receptacle it is in."""


@dataclass(frozen=True)
class Outcome:
    """What one high-level action did: success, or the undoable category and a message naming types only.

    `attempted` marks a failure the simulator reported after every precondition of the layer held; `kind` is a
    failed turn's kind when it is not an undoable action (FIND on a sliced whole is an invalid object).
    """

    success: bool
    category: str | None = None
    message: str = ""
    attempted: bool = False
    kind: str | None = None

    @property
    def preconditions_held(self) -> bool:
        """Whether the action got past the layer's preconditions (it succeeded, or the simulator refused it)."""
        return self.success or self.attempted


OK = Outcome(True)


def fail(category: str, message: str) -> Outcome:
    """A refused action: its undoable category and a message naming types only."""
    return Outcome(False, category, message)
