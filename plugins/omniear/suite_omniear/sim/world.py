"""The world state graph: rooms, objects (with containment), agents, and what each step touched."""

from __future__ import annotations

from typing import Any

from suite_omniear.data import AttributeTable, SceneSpec, TaskSpec

ITEM_DEFAULT_SIZE = (0.1, 0.1, 0.1)


class Room:
    """A room node: id, display name, properties and its direct children in insertion order."""

    __slots__ = ("id", "name", "properties", "children")

    def __init__(self, room_id: str, name: str, properties: dict[str, Any]) -> None:
        self.id = room_id
        self.name = name
        self.properties = properties
        self.children: list[str] = []


class Obj:
    """An object node: `rel` is "in"/"on" under `parent`, or "" while held (then `parent` is the agent id)."""

    __slots__ = ("id", "name", "type", "properties", "states", "rel", "parent", "discovered", "children")

    def __init__(
        self,
        obj_id: str,
        name: str,
        obj_type: str,
        properties: dict[str, Any],
        states: dict[str, Any],
        rel: str,
        parent: str,
    ) -> None:
        self.id = obj_id
        self.name = name
        self.type = obj_type
        self.properties = properties
        self.states = states
        self.rel = rel
        self.parent = parent
        self.discovered = False
        self.children: list[str] = []

    @property
    def location_id(self) -> str:
        """The reference's location string: "in:x"/"on:x", or the holding agent's id."""
        return f"{self.rel}:{self.parent}" if self.rel else self.parent

    @property
    def weight(self) -> Any:
        """The object's own weight property (0 when absent)."""
        return self.properties.get("weight", 0)


class Agent:
    """An agent: capacity, position, inventory, bound abilities, proximity set and cooperative-carry mode."""

    __slots__ = (
        "id",
        "name",
        "max_weight",
        "max_grasp_limit",
        "max_size",
        "location",
        "spawn_room",
        "inventory",
        "current_weight",
        "sources",
        "near",
        "corp_object",
    )

    def __init__(
        self, agent_id: str, name: str, max_weight: Any, max_grasp_limit: int, max_size: Any, room: str
    ) -> None:
        self.id = agent_id
        self.name = name
        self.max_weight = max_weight
        self.max_grasp_limit = max_grasp_limit
        self.max_size = max_size
        self.location = room
        self.spawn_room = room
        self.inventory: list[str] = []
        self.current_weight = 0.0
        self.sources: dict[str, list[str]] = {}
        self.near: set[str] = {room}
        self.corp_object: str | None = None

    @property
    def abilities(self) -> list[str]:
        """The bound abilities, sorted."""
        return sorted(self.sources)


class World:
    """Mutable simulator state plus the sets of rooms, objects and agents a step touched (for rendering)."""

    def __init__(
        self, scene: SceneSpec, task: TaskSpec, table: AttributeTable, fixes: frozenset[str] = frozenset()
    ) -> None:
        self.table = table
        self.fixes = fixes
        self.scene_abilities = scene.abilities
        self.rooms: dict[str, Room] = {r.id: Room(r.id, r.name, dict(r.properties)) for r in scene.rooms}
        self.room_order = sorted(self.rooms)
        self.objects: dict[str, Obj] = {}
        for spec in scene.objects:
            props = dict(spec.properties)
            states = dict(spec.states)
            if spec.type == "ITEM":
                props.setdefault("fragile", False)
                props.setdefault("size", list(ITEM_DEFAULT_SIZE))
            elif spec.type == "FURNITURE" and props.get("is_container") is True:
                states.setdefault("is_open", False)
            rel, _, parent = spec.location_id.rpartition(":")
            self.objects[spec.id] = Obj(spec.id, spec.name, spec.type, props, states, rel or "in", parent)
        for spec in scene.objects:
            obj = self.objects[spec.id]
            if obj.parent not in self.rooms and (obj.parent not in self.objects or obj.parent == obj.id):
                obj.rel, obj.parent = "in", self.room_order[0]
            self.node_children(obj.parent).append(obj.id)
        start = self.room_order[0]
        self.agents: dict[str, Agent] = {
            a.id: Agent(a.id, a.name, a.max_weight, a.max_grasp_limit, a.max_size, start) for a in task.agents
        }
        #: What changed since the last render: objects, rooms whose object tree changed, agents.
        self.dirty_rooms: set[str] = set(self.rooms)
        self.dirty_objects: set[str] = set(self.objects)
        self.dirty_agents: set[str] = set(self.agents)
        self.abilities_changed = True
        #: Counts changes of object positions and states (what validation checks look at).
        self.version = 0

    # --- graph queries -------------------------------------------------------------------------------
    def node_children(self, node_id: str) -> list[str]:
        """The child list of a room or object node."""
        room = self.rooms.get(node_id)
        return room.children if room is not None else self.objects[node_id].children

    def node_name(self, node_id: str) -> str:
        """Display name of a room, object or agent id (the id itself when unknown)."""
        if node_id in self.rooms:
            return self.rooms[node_id].name
        if node_id in self.objects:
            return self.objects[node_id].name
        if node_id in self.agents:
            return self.agents[node_id].name
        return node_id

    def room_of(self, obj_id: str) -> str:
        """The room an object resolves to; through a holding agent, that agent's spawn room (quirk 15)."""
        parent = self.objects[obj_id].parent
        seen = 0
        while parent not in self.rooms:
            agent = self.agents.get(parent)
            if agent is not None:
                return agent.location if "spawn_room" in self.fixes else agent.spawn_room
            parent = self.objects[parent].parent
            seen += 1
            if seen > len(self.objects):
                return self.room_order[0]
        return parent

    def holder(self, obj_id: str) -> Agent | None:
        """The agent directly holding an object, if any."""
        obj = self.objects[obj_id]
        return None if obj.rel else self.agents.get(obj.parent)

    def total_weight(self, obj: Obj) -> Any:
        """Own weight plus the weights of the direct children (not recursive)."""
        return obj.weight + sum(self.objects[child].weight for child in obj.children)

    def descendants(self, node_id: str) -> list[str]:
        """All objects below a node, depth first in child order."""
        objects = self.objects
        out: list[str] = []
        stack = self.node_children(node_id)[::-1]
        while stack:
            oid = stack.pop()
            out.append(oid)
            children = objects[oid].children
            if children:
                stack += children[::-1]
        return out

    def contains(self, obj_id: str, node_id: str) -> bool:
        """Whether `node_id` is the object itself or somewhere inside it."""
        return node_id == obj_id or node_id in self.descendants(obj_id)

    def furniture_group(self, obj_id: str) -> set[str]:
        """The nearest FURNITURE at or above an object plus its discovered descendants; else the object."""
        objects = self.objects
        node = obj_id
        while node in objects:
            obj = objects[node]
            if obj.type == "FURNITURE":
                group = {d for d in self.descendants(node) if objects[d].discovered}
                group.add(node)
                return group
            node = obj.parent
        return {obj_id}

    # --- mutations -----------------------------------------------------------------------------------
    def touch(self, obj_id: str) -> None:
        """Mark an object, its ancestors and the room or agent block that shows it as changed."""
        self.version += 1
        node = obj_id
        while node in self.objects:
            self.dirty_objects.add(node)
            node = self.objects[node].parent
        if node in self.rooms:
            self.dirty_rooms.add(node)
        elif node in self.agents:
            self.dirty_agents.add(node)

    def touch_many(self, room: str, obj_ids: list[str]) -> None:
        """Mark many objects of one room, and their ancestors, as changed (one walk per unmarked chain)."""
        dirty, objects = self.dirty_objects, self.objects
        for node in obj_ids:
            while node in objects and node not in dirty:
                dirty.add(node)
                node = objects[node].parent
        self.dirty_rooms.add(room)

    def touch_agent(self, agent: Agent) -> None:
        """Mark an agent's details block as changed (rooms list their agents afresh on every render)."""
        self.dirty_agents.add(agent.id)

    def detach(self, obj: Obj) -> None:
        """Remove an object from its parent's child list (touching the old position)."""
        self.touch(obj.id)
        if obj.rel:
            self.node_children(obj.parent).remove(obj.id)
        else:
            self.agents[obj.parent].inventory.remove(obj.id)

    def attach(self, obj: Obj, rel: str, parent: str) -> None:
        """Put an object `rel` ("in"/"on") under a room or object, last in the child order."""
        obj.rel, obj.parent = rel, parent
        self.node_children(parent).append(obj.id)
        self.touch(obj.id)

    def move_agent(self, agent: Agent, room: str) -> None:
        """Teleport an agent to a room."""
        agent.location = room
        self.touch_agent(agent)

    def set_state(self, obj: Obj, key: str, value: Any) -> None:
        """Set one state flag of an object."""
        obj.states[key] = value
        self.touch(obj.id)
