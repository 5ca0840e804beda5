"""Cooperative actions: CORP_GRAB / CORP_GOTO / CORP_PLACE carrying and CORP_<VERB> attribute actions."""

from __future__ import annotations

from suite_omniear.data import AttributeAction
from suite_omniear.sim.attribute_actions import attribute_error, flip, missing_ability
from suite_omniear.sim.basic_actions import (
    FAILURE,
    INVALID,
    SUCCESS,
    Result,
    closed_target,
    room_error,
)
from suite_omniear.sim.verifier import COOP_KEY
from suite_omniear.sim.world import Agent, World


def agent_list(world: World, text: str) -> tuple[list[Agent], str | None]:
    """Resolve a comma-separated agent list; the error names the first unknown agent."""
    agents = []
    for agent_id in text.split(","):
        agent = world.agents.get(agent_id.strip())
        if agent is None:
            return [], f"Agent {agent_id.strip()} does not exist"
        agents.append(agent)
    return agents, None


def ids_text(agents: list[Agent]) -> str:
    """Agent ids joined the way cooperative messages print them."""
    return ", ".join(a.id for a in agents)


def corp_grab(world: World, initiator: Agent, agents_text: str, obj_id: str) -> Result:
    """Start carrying a heavy object together: every listed agent enters cooperative mode for it."""
    agents, error = agent_list(world, agents_text)
    if error is not None:
        return INVALID, error
    obj = world.objects.get(obj_id)
    if obj is None:
        return INVALID, f"Object {obj_id} does not exist"
    capacity = max(a.max_weight for a in agents)
    if obj.weight <= capacity:
        return INVALID, (
            f"Object {obj_id} (weight: {obj.weight}kg) does not require cooperative grab - "
            f"can be carried by single agent (max capacity: {capacity}kg)"
        )
    if "corp_capacity" in world.fixes:
        total, combined = world.total_weight(obj), sum(a.max_weight for a in agents)
        if total > combined:
            return INVALID, (
                f"Object {obj_id} (weight: {total}kg) is too heavy for agents {ids_text(agents)} "
                f"(combined capacity: {combined}kg)"
            )
    for agent in agents:  # the reference checks the room only: an undiscovered object can be grabbed
        error = room_error(world, agent, obj_id)
        if error is not None:
            return INVALID, f"Agent {agent.id} must be near {obj_id} before cooperative grab: {error}"
    for agent in agents:
        agent.corp_object = obj_id
        world.touch_agent(agent)
    return SUCCESS, f"Agents {ids_text(agents)} started cooperative grab of {obj_id}"


def corp_goto(world: World, initiator: Agent, agents_text: str, target: str) -> Result:
    """Move every listed agent to a room together."""
    agents, error = agent_list(world, agents_text)
    if error is not None:
        return INVALID, error
    if target not in world.rooms:
        if target not in world.objects:
            return INVALID, f"Location {target} does not exist"
        return FAILURE, f"Failed to move agent {agents[0].id} to {target}"
    for agent in agents:
        world.move_agent(agent, target)
        agent.near = set(agent.inventory)
        agent.near.add(target)
    return SUCCESS, f"Agents {ids_text(agents)} cooperatively moved to {target}"


def corp_place(world: World, initiator: Agent, agents_text: str, obj_id: str, rel: str, loc: str) -> Result:
    """Put down a cooperatively carried object anywhere (no proximity, room or container check)."""
    agents = []
    for agent_id in agents_text.split(","):  # the reference checks each agent's existence and mode in turn
        agent = world.agents.get(agent_id.strip())
        if agent is None:
            return INVALID, f"Agent {agent_id.strip()} does not exist"
        if agent.corp_object != obj_id:
            return INVALID, f"Agent {agent.id} is not in cooperative grab mode for {obj_id}"
        agents.append(agent)
    obj = world.objects.get(obj_id)
    if obj is None:
        return INVALID, f"Object {obj_id} does not exist"
    if loc not in world.rooms and loc not in world.objects:
        return INVALID, f"Location {loc} does not exist"
    if "closed_container_place" in world.fixes and closed_target(world, rel.lower(), loc):
        return INVALID, f"Target location {world.node_name(loc)} is closed"
    if loc in world.objects and world.contains(obj_id, loc):  # our guard against a cycle
        return INVALID, f"Cannot place {obj_id} in or on itself or its contents"
    world.detach(obj)
    world.attach(obj, rel.lower(), loc)
    for agent in agents:
        agent.corp_object = None
        world.touch_agent(agent)
    return SUCCESS, f"Agents {ids_text(agents)} cooperatively placed {obj_id} at {loc}"


def corp_attribute(
    world: World, initiator: Agent, action: AttributeAction, agents_text: str, obj_id: str
) -> Result:
    """Several agents apply an attribute verb together; the attribute gets the cooperative mark."""
    if initiator.id not in [a.strip() for a in agents_text.split(",")]:
        return INVALID, "Initiator must be included in the cooperation list"
    obj = world.objects.get(obj_id)
    if obj is None:
        return INVALID, f"Object does not exist: {obj_id}"
    if not obj.discovered:
        return INVALID, f"Object not discovered: {obj.name}"
    error = attribute_error(obj, action)
    if error is not None:
        return INVALID, error
    agents, error = agent_list(world, agents_text)  # the reference resolves the agents after the object
    if error is not None:
        return INVALID, error
    for agent in agents:
        error = room_error(world, agent, obj_id)
        if error is not None:
            return INVALID, f"Agent {agent.id} must be near {obj_id} before cooperative operation: {error}"
    if action.requires_tool:
        for agent in agents:
            if action.name not in agent.sources:
                return INVALID, f"Agent {agent.id} {missing_ability(action)}"
    old, new = flip(world, obj, action)
    marks = obj.states.setdefault(COOP_KEY, [])
    if action.attribute not in marks:
        marks.append(action.attribute)
    names = ",".join(a.name for a in agents)
    return SUCCESS, (
        f"{names} successfully cooperated to perform {action.name} operation on {obj.name}, "
        f"{action.attribute} changed from {old} to {new}"
    )
