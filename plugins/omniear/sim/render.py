"""The observation text (the reference's natural-language environment description), cached per block.

Object subtrees, room blocks and agent blocks are cached; a step invalidates only what it touched
(`World.dirty_*`). Rooms are rendered in sorted id order (the reference used set order).
"""

from __future__ import annotations

from typing import Any

from suite_omniear.sim.world import Agent, Obj, World

OVERVIEW = "================ Environment Overview ================"
ROOMS_HEADER = "================ Room Details ================"
AGENTS_HEADER = "================ Agent Details ================"
#: Keys the property list never prints as `key: value` (size, weight and abilities get their own lines).
_SPECIAL_PROPERTIES = frozenset({"size", "weight", "provides_abilities", "length", "width", "height"})


def size_text(size: Any) -> str | None:
    """`L m x W m x H m` for a three-number size list, else None (no Size line)."""
    if isinstance(size, list | tuple) and len(size) == 3:
        return f"Size: {size[0]}m x {size[1]}m x {size[2]}m (L x W x H)"
    return None


def property_lines(props: dict[str, Any]) -> list[str]:
    """Size, Weight and Provides Abilities first, then every other property as `key: value`."""
    lines = []
    size = size_text(props.get("size"))
    if size is not None:
        lines.append(size)
    if "weight" in props:
        lines.append(f"Weight: {props['weight']}kg")
    abilities = props.get("provides_abilities")
    if abilities:
        lines.append(f"Provides Abilities: {', '.join(abilities)}")
    lines.extend(f"{k}: {v}" for k, v in props.items() if k not in _SPECIAL_PROPERTIES)
    return lines


class Renderer:
    """Builds the observation text; `show_all` is the global ("World Graph") mode."""

    def __init__(self, world: World, show_all: bool) -> None:
        self.world = world
        self.show_all = show_all
        self._objects: dict[str, tuple[int, str]] = {}
        self._rooms: dict[str, str] = {}
        self._agents: dict[str, str] = {}
        self._text: str | None = None
        self._properties: dict[str, tuple[str, str]] = {}
        self._header = (
            f"{OVERVIEW}\nTotal: {len(world.rooms)} rooms, {len(world.objects)} objects, "
            f"{len(world.agents)} agents\n\n{ROOMS_HEADER}"
        )

    def _visible_children(self, children: list[str]) -> list[Obj]:
        objects = self.world.objects
        if self.show_all:
            return [objects[c] for c in children]
        return [o for o in (objects[c] for c in children) if o.discovered]

    def _property_block(self, obj: Obj, ind: str) -> str:
        """The Properties section (properties never change; the text is kept per indent)."""
        cached = self._properties.get(obj.id)
        if cached is None or cached[0] != ind:
            lines = property_lines(obj.properties)
            text = (
                f"{ind}  • Properties:\n" + "\n".join(f"{ind}    - {line}" for line in lines) if lines else ""
            )
            cached = self._properties[obj.id] = (ind, text)
        return cached[1]

    def object_block(self, obj: Obj, depth: int) -> str:
        """The object's lines and its visible descendants', indented for `depth`."""
        cached = self._objects.get(obj.id)
        if cached is not None and cached[0] == depth:
            return cached[1]
        world = self.world
        ind = " " * (4 + 2 * depth)
        where = "inside" if obj.rel == "in" else "on top of"
        lines = [
            f"{ind}◆ {obj.name} (ID: {obj.id}, Type: {obj.type})",
            f"{ind}  • Location: {where} {world.node_name(obj.parent)} (ID: {obj.parent})",
        ]
        if obj.states:
            lines.append(f"{ind}  • States:")
            lines.extend(f"{ind}    - {k}: {v}" for k, v in obj.states.items())
        props = self._property_block(obj, ind)
        if props:
            lines.append(props)
        kids = self._visible_children(obj.children)
        if kids:
            lines.append(f"{ind}  • Contains Objects:")
            lines.extend(self.object_block(k, depth + 1) for k in kids)
        text = "\n".join(lines)
        self._objects[obj.id] = (depth, text)
        return text

    def room_block(self, room_id: str) -> str:
        """One room: properties, the agents in it and its visible objects."""
        cached = self._rooms.get(room_id)
        if cached is not None:
            return cached
        world = self.world
        room = world.rooms[room_id]
        lines = [f"▶ Room: {room.name} (ID: {room.id})"]
        if room.properties:
            lines.append("  • Room Properties:")
            lines.extend(f"    - {k}: {v}" for k, v in room.properties.items())
        agents = [a for a in world.agents.values() if a.location == room_id]
        if agents:
            lines.append("  • Agents:")
            for agent in agents:
                lines.append(f"    - Agent: {agent.name} (ID: {agent.id})")
                lines.append(f"      Items held: {len(agent.inventory)}, Abilities: {len(agent.sources)}")
        kids = self._visible_children(room.children)
        if kids:
            lines.append("  • Objects:")
            lines.extend(self.object_block(k, 0) for k in kids)
        else:
            lines.append("  • Objects: Not yet discovered")
        text = "\n".join(lines)
        self._rooms[room_id] = text
        return text

    def agent_block(self, agent: Agent) -> str:
        """One agent's details: location, load, abilities with sources, inventory, cooperative mode."""
        cached = self._agents.get(agent.id)
        if cached is not None:
            return cached
        world = self.world
        lines = [
            f"▶ Agent: {agent.name} (ID: {agent.id})",
            f"  • Location: {world.node_name(agent.location)} (ID: {agent.location})",
            "  • Physical Properties:",
            f"    - Load: {agent.current_weight}/{agent.max_weight}kg",
            f"    - Grasp Capacity: {len(agent.inventory)}/{agent.max_grasp_limit} items",
            f"    - max_size: {agent.max_size}",
        ]
        if agent.sources:
            lines.append("  • Abilities:")
            for ability in agent.abilities:
                sources = ", ".join(
                    f"{world.objects[s].name} (ID: {s})" for s in sorted(agent.sources[ability])
                )
                lines.append(f"    - {ability}, Source: {sources}")
        else:
            lines.append("  • Abilities: None")
        if agent.inventory:
            lines.append("  • Inventory:")
            for oid in agent.inventory:
                obj = world.objects[oid]
                lines.append(f"    - {obj.name} (ID: {obj.id}, Type: {obj.type})")
                abilities = obj.properties.get("provides_abilities")
                if abilities:
                    lines.append(f"      Provides Abilities: {', '.join(abilities)}")
                lines.extend(
                    f"      {k}: {v}" for k, v in obj.properties.items() if k != "provides_abilities"
                )
        else:
            lines.append("  • Inventory: None")
        if agent.corp_object is not None:
            lines.append(
                f"  • Cooperative Mode: Currently cooperatively holding "
                f"{world.node_name(agent.corp_object)} (ID: {agent.corp_object})"
            )
        text = "\n".join(lines)
        self._agents[agent.id] = text
        return text

    def render(self) -> str:
        """The full observation text, rebuilding only the blocks touched since the last call."""
        world = self.world
        if self._text is not None and not (world.dirty_objects or world.dirty_rooms or world.dirty_agents):
            return self._text
        for oid in world.dirty_objects:
            self._objects.pop(oid, None)
        for rid in world.dirty_rooms:
            self._rooms.pop(rid, None)
        for aid in world.dirty_agents:
            self._agents.pop(aid, None)
        world.dirty_objects.clear()
        world.dirty_rooms.clear()
        world.dirty_agents.clear()
        parts = [self._header]
        for rid in world.room_order:
            parts.append(self.room_block(rid))
            parts.append("")
        parts.append(AGENTS_HEADER)
        for agent in world.agents.values():
            parts.append(self.agent_block(agent))
            parts.append("")
        self._text = "\n".join(parts)
        return self._text
