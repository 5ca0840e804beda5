"""Attribute actions: a verb from the table flips a boolean attribute when it has the table's value."""

from __future__ import annotations

from typing import Any

from suite_omniear.data import AttributeAction
from suite_omniear.sim.basic_actions import INVALID, SUCCESS, Result, interaction_error
from suite_omniear.sim.verifier import COOP_KEY
from suite_omniear.sim.world import Agent, Obj, World

_MISSING = object()


def attribute_value(obj: Obj, attribute: str) -> Any:
    """The attribute's current value, looked up in `states` then `properties` (or a sentinel)."""
    if attribute in obj.states:
        return obj.states[attribute]
    return obj.properties.get(attribute, _MISSING)


def attribute_error(obj: Obj, action: AttributeAction) -> str | None:
    """Why the verb does not apply to the object (missing attribute, value already flipped), or None."""
    value = attribute_value(obj, action.attribute)
    if value is _MISSING:
        return f"Object does not support {action.name} operation (missing {action.attribute} attribute)"
    if value != action.value:
        return f"Object does not need {action.name} operation ({action.attribute}={value})"
    return None


def missing_ability(action: AttributeAction) -> str:
    """The reference's message for a tool verb without a providing tool in hand."""
    return f"Missing ability to execute {action.name}, need to hold items that provide this ability"


def flip(world: World, obj: Obj, action: AttributeAction) -> tuple[Any, Any]:
    """Negate the attribute (written to `states`) and return (old, new)."""
    old = attribute_value(obj, action.attribute)
    new = not old
    world.set_state(obj, action.attribute, new)
    return old, new


def perform(world: World, agent: Agent, action: AttributeAction, obj_id: str) -> Result:
    """One agent applies an attribute verb; a plain action clears the attribute's cooperative mark."""
    error = interaction_error(world, agent, obj_id)
    if error is not None:
        return INVALID, error
    obj = world.objects[obj_id]
    error = attribute_error(obj, action)
    if error is not None:
        return INVALID, error
    if action.requires_tool and action.name not in agent.sources:
        return INVALID, missing_ability(action)
    old, new = flip(world, obj, action)
    marks = obj.states.get(COOP_KEY)
    if marks and action.attribute in marks:
        marks.remove(action.attribute)
    return SUCCESS, (
        f"{agent.name} successfully performed {action.name} on {obj.name}, "
        f"{action.attribute} changed from {old} to {new}"
    )
