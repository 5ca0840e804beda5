"""How far a goal's object types alone give a goal away (issue 34): the chance that a reader of the instruction's
verb and object types, who ignores every referring expression, does a goal to the right instance.

Such a reader knows "move a Pen to a Desk" or "close Curtains". At best it reaches every instance and picks one
at random among those its action would change. For a position goal, it picks a random object of the type and
carries it to the nearest receptacle of the destination's type (right when that one is a target) or to a random
one. For a state goal, it picks a random instance not yet in the target
state. For slicing, filling or cooking, it picks a random instance of the type. Since a checklist item also asks
that the goal object's look-alikes stay as they began (`Item.keep`), acting on every instance earns nothing. So
`chance` is what the reader earns per item, and `reader_bound` is its episode's GC-SE when it reaches everything
and every wrong pick costs one side effect. The generator keeps goals and draws under these bounds."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from suite_household.world import World

#: a goal is drawn only when a reader of its types alone does it right at most this often; all but one goal of an
#: episode at most MAX_CHANCE_MOST
MAX_CHANCE = 1 / 3
MAX_CHANCE_MOST = 0.25
#: an episode is kept only when such a reader, reaching everything, scores at most this GC-SE
MAX_BOUND = 0.1
_STATE_FIELDS = {"isOpen": "is_open", "isToggled": "is_toggled"}


def chance(world: World, item: dict[str, Any]) -> float:
    """The chance that a reader of types alone does the item right (the world is the episode's start)."""
    types = Counter(o.type for o in world.objects.values())
    same = max(types[item["object_type"]], 1)
    if item["attr"] == "position":
        return _destination(world, item) / same
    if item["attr"] in _STATE_FIELDS:
        field = _STATE_FIELDS[item["attr"]]
        changed = sum(getattr(o, field) != bool(item["target"]) for o in world.objects.values()
                      if o.type == item["object_type"])
        return 1 / max(changed, 1)
    return 1 / same


def _destination(world: World, item: dict[str, Any]) -> float:
    """The chance that the reader, holding the right object, puts it in a target: 1 when the nearest receptacle
    of the destination's type is one (a reader carries it to the nearest), else the targets' share of that type."""
    targets = set(item["target"])
    dest = {world.objects[t].type for t in targets if t in world.objects}
    receptacles = [o for o in world.objects.values() if o.type in dest]
    if not receptacles:
        return 1.0
    here = world.objects[item["object_id"]].center
    nearest = min(receptacles, key=lambda r: math.dist(r.center, here))
    return 1.0 if nearest.id in targets else len(targets) / max(len(receptacles), len(targets))


def reader_bound(world: World, checklist: list[dict[str, Any]]) -> float:
    """GC-SE of a reader of types alone that reaches every instance: expected met / (items + wrong picks)."""
    if not checklist:
        return 0.0
    odds = [chance(world, it) for it in checklist]
    return sum(odds) / (len(odds) + sum(1 - p for p in odds))
