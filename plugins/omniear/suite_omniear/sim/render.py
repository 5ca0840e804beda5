"""The observation text (the reference's natural-language environment description), cached per block.

Object subtrees, each room's Objects section and the agent blocks are cached; a step invalidates only
what it touched (`World.dirty_*`). Each room's Agents section is assembled afresh on every render, so an
agent moving leaves the rooms' Objects sections alone. Texts built only from what never changes (an
object's properties, a room's title, a held item's entry) are kept for the renderer's lifetime, and
floats go through a small memo, as formatting them is the costliest part of the text. Rooms are
rendered in sorted id order (the reference used set order).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

from suite_omniear.sim.world import Agent, Obj, World

OVERVIEW = "================ Environment Overview ================"
ROOMS_HEADER = "================ Room Details ================"
AGENTS_HEADER = "================ Agent Details ================"
#: Keys the property list never prints as `key: value` (size, weight and abilities get their own lines).
_SPECIAL_PROPERTIES = frozenset({"size", "weight", "provides_abilities", "length", "width", "height"})


@lru_cache(maxsize=4096)
def _float_text(value: float) -> str:
    """str() of a non-zero float, memoized (formatting floats is the costliest part of the text)."""
    return str(value)


def number_text(value: Any) -> str:
    """str(value), through the memo for non-zero floats (0.0 and -0.0 are equal keys but print apart)."""
    return _float_text(value) if type(value) is float and value else str(value)


def size_text(size: Any) -> str | None:
    """`L m x W m x H m` for a three-item size list, else None (no Size line)."""
    if not (isinstance(size, (list, tuple)) and len(size) == 3):
        return None
    length, width, height = (number_text(v) for v in size)
    return f"Size: {length}m x {width}m x {height}m (L x W x H)"


def property_section(props: dict[str, Any], ind: str) -> str:
    """The `• Properties:` section at indent `ind`: Size, Weight, Provides Abilities, then the rest."""
    size = size_text(props.get("size"))
    lines = [] if size is None else [size]
    if "weight" in props:
        lines.append(f"Weight: {number_text(props['weight'])}kg")
    abilities = props.get("provides_abilities")
    if abilities:
        lines.append(f"Provides Abilities: {', '.join(abilities)}")
    lines += [f"{k}: {v}" for k, v in props.items() if k not in _SPECIAL_PROPERTIES]
    if not lines:
        return ""
    sep = f"\n{ind}    - "
    return f"\n{ind}  • Properties:{sep}{sep.join(lines)}"


def state_section(states: dict[str, Any], ind: str) -> str:
    """The `• States:` section at indent `ind` (one `- key: value` line per state)."""
    sep = f"\n{ind}    - "
    return f"\n{ind}  • States:" + "".join([f"{sep}{k}: {v}" for k, v in states.items()])


def held_item_entry(obj: Obj) -> str:
    """A held object's Inventory entry: name, id, type, abilities and every property."""
    props = obj.properties
    text = f"\n    - {obj.name} (ID: {obj.id}, Type: {obj.type})"
    abilities = props.get("provides_abilities")
    if abilities:
        text += f"\n      Provides Abilities: {', '.join(abilities)}"
    return text + "".join([f"\n      {k}: {v}" for k, v in props.items() if k != "provides_abilities"])


def room_title(world: World, room_id: str) -> str:
    """A room's title line and its property lines."""
    room = world.rooms[room_id]
    text = f"▶ Room: {room.name} (ID: {room.id})"
    if room.properties:
        text += "\n  • Room Properties:" + "".join([f"\n    - {k}: {v}" for k, v in room.properties.items()])
    return text


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
        self._fixed: dict[tuple[str, str], str] = {}  # texts of what never changes: room titles, held items
        self._header = (
            f"{OVERVIEW}\nTotal: {len(world.rooms)} rooms, {len(world.objects)} objects, "
            f"{len(world.agents)} agents\n\n{ROOMS_HEADER}"
        )

    def _child_blocks(self, children: list[str], depth: int) -> list[str]:
        """The blocks of the visible objects among `children` at `depth`."""
        objects, show_all = self.world.objects, self.show_all
        return [self.object_block(o, depth) for o in (objects[c] for c in children) if show_all or o.discovered]

    def _fixed_text(self, kind: str, key: str, build: Callable[[], str]) -> str:
        """A text built only from what never changes, built once."""
        text = self._fixed.get((kind, key))
        if text is None:
            text = self._fixed[(kind, key)] = build()
        return text

    def _property_section(self, obj: Obj, ind: str) -> str:
        """The Properties section (properties never change; the text is kept per indent)."""
        cached = self._properties.get(obj.id)
        if cached is None or cached[0] != ind:
            cached = self._properties[obj.id] = (ind, property_section(obj.properties, ind))
        return cached[1]

    def object_block(self, obj: Obj, depth: int) -> str:
        """The object's lines and its visible descendants', indented for `depth`."""
        cached = self._objects.get(obj.id)
        if cached is not None and cached[0] == depth:
            return cached[1]
        ind = " " * (4 + 2 * depth)
        where = "inside" if obj.rel == "in" else "on top of"
        text = (
            f"{ind}◆ {obj.name} (ID: {obj.id}, Type: {obj.type})\n"
            f"{ind}  • Location: {where} {self.world.node_name(obj.parent)} (ID: {obj.parent})"
        )
        if obj.states:
            text += state_section(obj.states, ind)
        text += self._property_section(obj, ind)
        kids = self._child_blocks(obj.children, depth + 1) if obj.children else None
        if kids:
            # One join, so the (possibly long) child blocks are copied once.
            text = "\n".join([f"{text}\n{ind}  • Contains Objects:", *kids])
        self._objects[obj.id] = (depth, text)
        return text

    def _room_objects(self, room_id: str) -> str:
        """A room's Objects section: its visible object trees."""
        section = self._rooms.get(room_id)
        if section is None:
            kids = self._child_blocks(self.world.rooms[room_id].children, 0)
            if kids:
                section = "\n".join(["  • Objects:", *kids])
            else:
                section = "  • Objects: Not yet discovered"
            self._rooms[room_id] = section
        return section

    def _agent_sections(self) -> dict[str, str]:
        """The Agents section of each room an agent is in (agents in their listing order)."""
        sections: dict[str, str] = {}
        for agent in self.world.agents.values():
            entry = (f"\n    - Agent: {agent.name} (ID: {agent.id})\n"
                     f"      Items held: {len(agent.inventory)}, Abilities: {len(agent.sources)}")
            sections[agent.location] = sections.get(agent.location, "  • Agents:") + entry
        return sections

    def agent_block(self, agent: Agent) -> str:
        """One agent's details: location, load, abilities with sources, inventory, cooperative mode."""
        cached = self._agents.get(agent.id)
        if cached is not None:
            return cached
        world = self.world
        text = (
            f"▶ Agent: {agent.name} (ID: {agent.id})\n"
            f"  • Location: {world.node_name(agent.location)} (ID: {agent.location})\n"
            "  • Physical Properties:\n"
            f"    - Load: {number_text(agent.current_weight)}/{agent.max_weight}kg\n"
            f"    - Grasp Capacity: {len(agent.inventory)}/{agent.max_grasp_limit} items\n"
            f"    - max_size: {agent.max_size}"
        )
        if agent.sources:
            text += "\n  • Abilities:"
            for ability in agent.abilities:
                sources = ", ".join(
                    f"{world.objects[s].name} (ID: {s})" for s in sorted(agent.sources[ability])
                )
                text += f"\n    - {ability}, Source: {sources}"
        else:
            text += "\n  • Abilities: None"
        if agent.inventory:
            objects = world.objects
            text += "\n  • Inventory:" + "".join(
                [self._fixed_text("held", oid, partial(held_item_entry, objects[oid])) for oid in agent.inventory]
            )
        else:
            text += "\n  • Inventory: None"
        if agent.corp_object is not None:
            text += (
                f"\n  • Cooperative Mode: Currently cooperatively holding "
                f"{world.node_name(agent.corp_object)} (ID: {agent.corp_object})"
            )
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
        agent_sections = self._agent_sections()
        parts = [self._header]
        for rid in world.room_order:
            parts.append(self._fixed_text("room", rid, partial(room_title, world, rid)))
            if rid in agent_sections:
                parts.append(agent_sections[rid])
            parts += (self._room_objects(rid), "")
        parts.append(AGENTS_HEADER)
        for agent in world.agents.values():
            parts += (self.agent_block(agent), "")
        self._text = "\n".join(parts)
        return self._text
