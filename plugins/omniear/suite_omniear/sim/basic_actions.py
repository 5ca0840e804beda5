"""The basic actions every agent has: GOTO, GRAB, PLACE, EXPLORE, LOOK."""

from __future__ import annotations

from suite_omniear.sim.world import Agent, World

Result = tuple[str, str]

SUCCESS, INVALID, FAILURE = "SUCCESS", "INVALID", "FAILURE"
EXPLORE_MODES = frozenset({"thorough", "normal"})
PLACE_FORMAT = (
    "PLACE action must specify placement method (on/in) and location, "
    "format: PLACE <object_id> <on|in> <location_id>"
)


def weight_exceeded(agent: Agent, weight: object) -> str:
    """The reference's weight-limit message."""
    current, limit = agent.current_weight, agent.max_weight
    return f"Weight limit exceeded (current:{current}kg + object:{weight}kg > max:{limit}kg)"


def interaction_error(world: World, agent: Agent, obj_id: str) -> str | None:
    """Why an agent cannot interact with an object (missing, undiscovered, other room), or None."""
    obj = world.objects.get(obj_id)
    if obj is None:
        return f"Object does not exist: {obj_id}"
    if not obj.discovered:
        return f"Object not discovered: {obj.name}"
    return room_error(world, agent, obj_id)


def room_error(world: World, agent: Agent, obj_id: str) -> str | None:
    """Why an existing object is out of an agent's reach: another room (what cooperative actions check), or None."""
    obj = world.objects[obj_id]
    if obj.parent != agent.id:
        room = world.room_of(obj_id)
        if room != agent.location:
            return f"Agent must go to {world.rooms[room].name} first to interact with {obj.name}"
    return None


def closed_container_error(world: World, obj_id: str) -> str | None:
    """An object directly `in` a closed container cannot be reached (`on` never blocks)."""
    obj = world.objects[obj_id]
    parent = world.objects.get(obj.parent) if obj.rel == "in" else None
    if parent is not None and parent.states.get("is_open") is False:
        return f"Object {obj_id} is in closed container {parent.name}"
    return None


def closed_target(world: World, rel: str, loc: str) -> bool:
    """Whether `in` placement targets an object whose is_open state is False."""
    target = world.objects.get(loc)
    return rel == "in" and target is not None and target.states.get("is_open") is False


def goto(world: World, agent: Agent, target: str) -> Result:
    """Teleport to a room, or approach an object in the current room."""
    if target in world.rooms:
        world.move_agent(agent, target)
        agent.near = set(agent.inventory)
        agent.near.add(target)
        return SUCCESS, f"{agent.name} successfully moved to {world.rooms[target].name}"
    obj = world.objects.get(target)
    if obj is None:
        return INVALID, f"Target location does not exist: {target}"
    if not obj.discovered:
        return INVALID, f"Target object not discovered: {obj.name}"
    room = world.room_of(target) if obj.parent != agent.id else agent.location
    if room != agent.location:
        return INVALID, f"Must go to {world.rooms[room].name} first, then approach {obj.name}"
    agent.near = set(agent.inventory)
    agent.near.add(agent.location)
    agent.near |= world.furniture_group(target)
    return SUCCESS, f"{agent.name} approached {obj.name} (in {world.rooms[room].name})"


def grab(world: World, agent: Agent, obj_id: str) -> Result:
    """Pick up a reachable object within the grasp and weight limits.

    The reference's order: reach (exists, discovered, room, closed container), grabbable, grasp limit, a
    container's total weight, held by another agent (all INVALID); then near, weight, held by this agent itself
    (FAILURE)."""
    error = interaction_error(world, agent, obj_id)
    if error is not None:
        return INVALID, error
    error = closed_container_error(world, obj_id)
    if error is not None:
        return INVALID, error
    obj = world.objects[obj_id]
    if obj.type == "FURNITURE":
        if agent.current_weight + obj.weight > agent.max_weight:
            return INVALID, weight_exceeded(agent, obj.weight)
    elif obj.type not in ("ITEM", "GRABBABLE"):
        return INVALID, f"Object not grabbable: {obj.name}"
    if len(agent.inventory) + 1 > agent.max_grasp_limit:
        return INVALID, f"Agent has reached maximum grab limit ({agent.max_grasp_limit})"
    weight = world.total_weight(obj) if obj.children else obj.weight
    if obj.children and agent.current_weight + weight > agent.max_weight:
        return INVALID, f"Cannot grab container with contents: {weight_exceeded(agent, weight)}"
    holder = world.holder(obj_id)
    if holder is not None and holder is not agent:
        return INVALID, f"Object is already held by {holder.name}, cannot grab again"
    if obj_id not in agent.near:
        return FAILURE, f"Agent must approach {obj.name} before grabbing"
    if agent.current_weight + weight > agent.max_weight:
        return FAILURE, weight_exceeded(agent, weight)
    if holder is agent:
        return FAILURE, "Already holding this object"
    old_parent = obj.parent
    world.detach(obj)
    obj.rel, obj.parent = "", agent.id
    agent.inventory.append(obj_id)
    agent.current_weight += weight
    for ability in obj.properties.get("provides_abilities") or ():
        sources = agent.sources.setdefault(ability, [])
        if obj_id not in sources:
            sources.append(obj_id)
        world.abilities_changed = True
    agent.near = set(agent.inventory)
    agent.near.add(agent.location)
    if old_parent in world.objects:
        agent.near |= world.furniture_group(old_parent)
    world.touch_agent(agent)
    return SUCCESS, f"{agent.name} successfully grabbed {obj.name}"


def place(world: World, agent: Agent, obj_id: str, rel: str | None, loc: str | None) -> Result:
    """Put a held object in/on a nearby location."""
    if rel is None or loc is None:
        return INVALID, PLACE_FORMAT
    if obj_id not in agent.inventory:
        return INVALID, f"Agent does not hold object: {obj_id}"
    rel = rel.lower()
    if loc != agent.location and loc not in agent.near and loc not in agent.inventory:
        return INVALID, f"Agent must approach {loc} before placing object"
    if loc not in world.rooms and loc not in world.objects:
        return INVALID, f"Target location does not exist: {loc}"
    if (
        rel == "in"
        and loc not in world.rooms
        and world.objects[loc].properties.get("is_container") is not True
    ):
        return INVALID, f"Target location {world.node_name(loc)} does not support 'in' placement"
    if rel == "on" and loc in world.rooms:
        return INVALID, "Cannot place object on room"
    room = loc if loc in world.rooms else world.room_of(loc)
    if room != agent.location:
        return INVALID, f"Agent must go to {world.rooms[room].name} first to place object on {world.node_name(loc)}"
    if "closed_container_place" in world.fixes and closed_target(world, rel, loc):
        return INVALID, f"Target location {world.node_name(loc)} is closed"
    if world.contains(obj_id, loc):  # our guard: the reference would make a cycle in its scene graph
        return INVALID, f"Cannot place {obj_id} in or on itself or its contents"
    obj = world.objects[obj_id]
    weight = world.total_weight(obj)
    world.detach(obj)
    world.attach(obj, rel, loc)
    agent.current_weight -= weight
    for ability in obj.properties.get("provides_abilities") or ():
        sources = agent.sources.get(ability)
        if sources and obj_id in sources:
            sources.remove(obj_id)
            if not sources:
                del agent.sources[ability]
        world.abilities_changed = True
    agent.near = set(agent.inventory)
    agent.near.add(agent.location)
    agent.near |= world.furniture_group(obj_id)
    world.touch_agent(agent)
    return SUCCESS, f"{agent.name} placed {obj.name} on {world.node_name(loc)}"


def explore(world: World, agent: Agent, target: str | None) -> Result:
    """Discover every object in the current room (recursively, closed containers included)."""
    if target is not None and target.lower() not in EXPLORE_MODES and target != agent.location:
        return INVALID, f"Agent must go to {world.node_name(target)} before exploring that room"
    room = agent.location
    objects = world.objects
    found = [oid for oid in world.descendants(room) if not objects[oid].discovered]
    for oid in found:
        objects[oid].discovered = True
    name = world.rooms[room].name
    if found:
        world.touch_many(room, found)
        return SUCCESS, f"{agent.name} thoroughly explored {name} and discovered {len(found)} new objects"
    return SUCCESS, f"{agent.name} explored {name} but found no new objects"


def look(world: World, agent: Agent, target: str | None) -> Result:
    """Look around the room, or at one reachable object (hidden from the action list)."""
    if target is None or target.upper() == "AROUND":
        return SUCCESS, f"{agent.name} looked around {world.rooms[agent.location].name}"
    error = interaction_error(world, agent, target) or closed_container_error(world, target)
    if error is not None:
        return INVALID, error
    return SUCCESS, f"{agent.name} looked at {world.objects[target].name}"
