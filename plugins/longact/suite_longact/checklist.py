"""The final-state checklist: items over six state types, evaluated on the world incrementally every step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from suite_household.world import Obj, World

from suite_longact.vocabulary import KIND_OF, KINDS


@dataclass(frozen=True)
class Item:
    """One checklist entry: an object's attribute must end at `target` (receptacle ids for `position`), and the
    objects of `keep` (the goal object's look-alikes the instruction leaves as they are) must end as they began:
    a goal done to the wrong instance, or to every instance of its type, is not done."""

    object_id: str
    object_type: str
    attr: str
    target: Any
    keep: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """The paper's GC column: PP, TO, OC, Sl, CK or FW."""
        return KIND_OF[self.attr]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Item:
        """An item from its pack form (targets of `position` become a tuple)."""
        target = tuple(data["target"]) if data["attr"] == "position" else data["target"]
        return cls(data["object_id"], data["object_type"], data["attr"], target, tuple(data.get("keep", ())))


def resolve(world: World, object_id: str) -> list[Obj]:
    """The object, or the pieces that replaced it when it was sliced (ids `<whole>|<PieceType>_<i>`)."""
    obj = world.objects.get(object_id)
    if obj is not None:
        return [obj]
    prefix = object_id + "|"
    return [o for oid, o in world.objects.items() if oid.startswith(prefix)]


def holds(world: World, item: Item) -> bool:
    """Whether the item holds now. Position: some piece rests (transitively) in a target receptacle; states:
    every piece has the state (pieces replace a sliced whole)."""
    objs = resolve(world, item.object_id)
    if not objs:
        return False
    if item.attr == "position":
        targets = set(item.target)
        return any(not o.picked_up and targets.intersection(world.ancestors(o.id)) for o in objs)
    if item.attr == "isFilledWithLiquid":
        if isinstance(item.target, str):
            return all(o.fill == item.target for o in objs)
        return all((o.fill is not None) == bool(item.target) for o in objs)
    field = {"isOpen": "is_open", "isToggled": "is_toggled", "isSliced": "is_sliced", "isCooked": "is_cooked"}
    return all(getattr(o, field[item.attr]) == bool(item.target) for o in objs)


#: object types whose changes are never side effects: doors are opened to pass (a door goal is on the checklist)
SIDE_EFFECT_EXEMPT = frozenset({"Doorway"})


def signature(obj: Obj) -> tuple[Any, ...]:
    """What an agent can change about an object: where it rests, whether held, its open/on/sliced/cooked/filled/
    broken state."""
    return (obj.parent, obj.picked_up, obj.is_open, obj.is_toggled, obj.is_sliced, obj.is_cooked, obj.fill,
            obj.is_broken)


def side_effects(world: World, start: dict[str, tuple[Any, ...]]) -> list[str]:
    """The objects of `start` (id: signature) that differ now; a sliced object (gone, pieces instead) counts."""
    out = []
    for oid, sig in start.items():
        obj = world.objects.get(oid)
        if obj is None or signature(obj) != sig:
            out.append(oid)
    return out


@dataclass
class ScorePoint:
    """The score after a raw step, kept only where it changed (the curve is piecewise constant)."""

    step: int
    efficiency_step: float
    met: int
    ever: int


class Checklist:
    """Tracks which items hold; re-evaluated only after a step that changed objects (navigation never does)."""

    def __init__(self, items: list[Item]) -> None:
        self.items = items
        self.status = [False] * len(items)
        self.ever = [False] * len(items)
        self.curve: list[ScorePoint] = []
        self.start_state: dict[str, tuple[Any, ...]] = {}
        self.kept_state: dict[str, tuple[Any, ...]] = {}

    def evaluate(self, world: World) -> None:
        """Recompute every item on the world now."""
        self.status = [holds(world, it) and self.kept(world, it) for it in self.items]
        self.ever = [e or s for e, s in zip(self.ever, self.status, strict=True)]

    def kept(self, world: World, item: Item) -> bool:
        """Whether the item's look-alikes (`keep`) are as they began."""
        return all((o := world.objects.get(oid)) is not None and signature(o) == self.kept_state[oid]
                   for oid in item.keep)

    def start(self, world: World) -> None:
        """The score before the first step (step 0)."""
        asked = {it.object_id for it in self.items}
        self.kept_state = {oid: signature(world.objects[oid]) for it in self.items for oid in it.keep
                           if oid in world.objects}
        missing = sorted({oid for it in self.items for oid in it.keep} - set(self.kept_state))
        if missing:
            raise ValueError(f"checklist: look-alikes to keep are not in the house: {', '.join(missing)}")
        self.start_state = {o.id: signature(o) for o in world.objects.values()
                            if o.id not in asked and o.type not in SIDE_EFFECT_EXEMPT}
        self.evaluate(world)
        self.curve = [ScorePoint(0, 0.0, sum(self.status), sum(self.ever))]

    def after_step(self, world: World, step: int, efficiency_step: float, objects_changed: bool) -> None:
        """Record the score after raw step `step` (1-based); a step that changed no object costs nothing."""
        if not objects_changed:
            return
        self.evaluate(world)
        met, ever = sum(self.status), sum(self.ever)
        last = self.curve[-1]
        if (met, ever) != (last.met, last.ever):
            self.curve.append(ScorePoint(step, efficiency_step, met, ever))

    @property
    def gc(self) -> float:
        """Item-level goal-condition success: the share of items that hold."""
        return sum(self.status) / len(self.items) if self.items else 1.0

    def side_effects(self, world: World) -> list[str]:
        """Objects no item names that the episode changed (doors exempt)."""
        return side_effects(world, self.start_state)

    def gc_side_effects(self, world: World) -> float:
        """Side-effect-aware GC: every object changed that no item asked for counts as one more unmet item."""
        extra = len(self.side_effects(world))
        return sum(self.status) / (len(self.items) + extra) if self.items or extra else 1.0

    def object_gc(self) -> float:
        """Object-level GC: the share of objects all of whose items hold."""
        by_obj: dict[str, bool] = {}
        for it, ok in zip(self.items, self.status, strict=True):
            by_obj[it.object_id] = by_obj.get(it.object_id, True) and ok
        return sum(by_obj.values()) / len(by_obj) if by_obj else 1.0

    def by_kind(self) -> dict[str, tuple[int, int]]:
        """(met, total) per GC column."""
        out = {k: (0, 0) for k in KINDS}
        for it, ok in zip(self.items, self.status, strict=True):
            met, total = out[it.kind]
            out[it.kind] = (met + ok, total + 1)
        return out

    def unmet(self) -> list[Item]:
        """Items that do not hold now."""
        return [it for it, ok in zip(self.items, self.status, strict=True) if not ok]
