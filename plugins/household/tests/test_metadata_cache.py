"""The step-to-step metadata cache gives exactly the entries a fresh build gives, and never changes old events."""

from __future__ import annotations

import copy
import random

from suite_household.controller import Controller
from suite_household.generator import generate_room
from suite_household.metadata import MetadataCache, object_metadata
from suite_household.visibility import visible_objects

_MOVES = ("MoveAhead", "RotateRight", "MoveBack", "RotateLeft", "LookDown", "LookUp", "MoveLeft", "MoveRight")
_INTERACTIONS = ("PickupObject", "PutObject", "OpenObject", "CloseObject", "ToggleObjectOn", "SliceObject")


def _walk(seed: int, steps: int, eager: bool = False) -> list:
    """Events of a seeded mix of moves and interactions (some succeed, some fail) in a generated kitchen; with
    `eager`, each event's metadata is built right after its step."""
    ctl = Controller(scene=generate_room("Kitchen", seed), renderImage=False)
    rng = random.Random(seed)
    events = []
    for _ in range(steps):
        if rng.random() < 0.5:
            events.append(ctl.step(action=rng.choice(_MOVES)))
        else:
            target = rng.choice(list(ctl.world.objects))
            events.append(ctl.step(action=rng.choice(_INTERACTIONS), objectId=target))
        if eager:
            events[-1].metadata  # noqa: B018 - build it now
    return events


def test_cached_entries_equal_a_fresh_build_while_objects_change_and_are_carried() -> None:
    """Every step's entries equal ones built from nothing, including steps where an object is held."""
    held = 0
    for event in _walk(seed=3, steps=200):
        world, s = event._world, event._settings
        seen = visible_objects(world, s["width"], s["height"], s["fieldOfView"], s["visibilityDistance"])
        fresh = [object_metadata(world, o, seen[o.id]) for o in world.objects.values()]
        assert event.metadata["objects"] == fresh
        held += world.held is not None
    assert held > 0, "the walk never carried an object: the carried path went untested"


def test_an_event_read_late_sees_its_own_step() -> None:
    """Metadata built after later steps (lazily) still describes the step of its event."""
    eager = [e.metadata["objects"] for e in _walk(seed=5, steps=60, eager=True)]
    late = [e.metadata["objects"] for e in _walk(seed=5, steps=60)]
    assert late == eager


def test_entries_of_one_step_are_not_changed_by_the_next() -> None:
    """The cache hands every step entries of its own: reading step k+1 leaves step k's metadata as it was."""
    ctl = Controller(scene=generate_room("Kitchen", 2), renderImage=False)
    first = ctl.step(action="MoveAhead").metadata
    before = copy.deepcopy(first)
    ctl.step(action="RotateRight").metadata  # noqa: B018 - build it
    ctl.step(action="MoveAhead").metadata  # noqa: B018 - build it
    assert first == before


def test_a_replaced_record_is_rebuilt() -> None:
    """A changed object (a new record) gets a new entry; an unchanged one reuses its static part."""
    ctl = Controller(scene=generate_room("Kitchen", 4), renderImage=False)
    world = ctl.world
    cache = MetadataCache()
    oid, obj = next((k, o) for k, o in world.objects.items() if o.type != "Floor")
    a = cache.entry(world, obj, True)
    world.set(oid, is_dirty=not obj.is_dirty)
    b = cache.entry(world, world.objects[oid], True)
    assert a["isDirty"] != b["isDirty"]
    assert b == object_metadata(world, world.objects[oid], True)
