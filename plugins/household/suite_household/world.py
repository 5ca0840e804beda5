"""World state: rooms, walls, objects (immutable records), the agent's pose and its held object."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from suite_household.catalog import TYPES

WALL_HEIGHT = 2.5
WALL_THICKNESS = 0.1
AGENT_RADIUS = 0.2
STANDING_CAMERA_Y = 1.576
CROUCHING_CAMERA_Y = 0.901
AGENT_CENTER_Y = 0.901

Box = tuple[float, float, float, float, float, float]  # xmin, ymin, zmin, xmax, ymax, zmax


@dataclass(frozen=True, slots=True)
class Obj:
    """One simulated object; replaced (never mutated) when its state changes."""

    id: str
    type: str
    name: str
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    facing: int = 0
    room: str = ""
    parent: str | None = None
    is_open: bool = False
    is_toggled: bool = False
    is_dirty: bool = False
    is_cooked: bool = False
    is_sliced: bool = False
    is_broken: bool = False
    fill: str | None = None
    temperature: str = "RoomTemp"
    picked_up: bool = False
    controls: tuple[str, ...] = ()

    @property
    def box(self) -> Box:
        """The axis-aligned bounding box in world coordinates."""
        (x, y, z), (sx, sy, sz) = self.center, self.size
        return (x - sx / 2, y - sy / 2, z - sz / 2, x + sx / 2, y + sy / 2, z + sz / 2)

    @property
    def bottom(self) -> float:
        """Height of the object's lowest point."""
        return self.center[1] - self.size[1] / 2

    @property
    def top(self) -> float:
        """Height of the object's highest point."""
        return self.center[1] + self.size[1] / 2

    @property
    def front(self) -> tuple[float, float]:
        """Unit vector (x, z) the object's front faces."""
        return _FACING[self.facing % 360]


_FACING = {0: (0.0, 1.0), 90: (1.0, 0.0), 180: (0.0, -1.0), 270: (-1.0, 0.0)}


@dataclass(frozen=True, slots=True)
class Agent:
    """The agent's pose: position on the floor, yaw, camera pitch (horizon, + looks down) and stance."""

    x: float
    z: float
    yaw: float = 0.0
    horizon: float = 0.0
    standing: bool = True

    @property
    def camera(self) -> tuple[float, float, float]:
        """Camera position in world coordinates."""
        return (self.x, STANDING_CAMERA_Y if self.standing else CROUCHING_CAMERA_Y, self.z)


@dataclass(frozen=True)
class Room:
    """A rectangular room: id, type (Kitchen, LivingRoom, Bedroom, Bathroom) and floor rectangle."""

    id: str
    type: str
    x0: float
    z0: float
    x1: float
    z1: float

    def contains(self, x: float, z: float, margin: float = 0.0) -> bool:
        """Whether (x, z) lies inside the floor rectangle shrunk by `margin`."""
        return self.x0 + margin <= x <= self.x1 - margin and self.z0 + margin <= z <= self.z1 - margin


@dataclass(frozen=True)
class Wall:
    """A straight, axis-aligned wall segment (door gaps are separate segments)."""

    x0: float
    z0: float
    x1: float
    z1: float

    @property
    def box(self) -> Box:
        """The wall as a solid box of WALL_THICKNESS."""
        t = WALL_THICKNESS / 2
        return (
            min(self.x0, self.x1) - t,
            0.0,
            min(self.z0, self.z1) - t,
            max(self.x0, self.x1) + t,
            WALL_HEIGHT,
            max(self.z0, self.z1) + t,
        )


@dataclass(frozen=True)
class Fixture:
    """A static, non-interactive box (stove body, counter island base): drawn and collided with only."""

    box: Box
    color: tuple[int, int, int]


@dataclass(frozen=True)
class Scene:
    """A generated house: static structure, the initial objects and the agent's start pose."""

    name: str
    seed: int
    rooms: tuple[Room, ...]
    walls: tuple[Wall, ...]
    fixtures: tuple[Fixture, ...]
    objects: tuple[Obj, ...]
    agent: Agent
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(xmin, zmin, xmax, zmax) of all rooms."""
        return (
            min(r.x0 for r in self.rooms),
            min(r.z0 for r in self.rooms),
            max(r.x1 for r in self.rooms),
            max(r.z1 for r in self.rooms),
        )


class World:
    """The mutable simulation state of one scene; every change bumps `version`."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.objects: dict[str, Obj] = {o.id: o for o in scene.objects}
        self.agent = scene.agent
        self.held: str | None = next((o.id for o in scene.objects if o.picked_up), None)
        self.version = 0
        self._children: dict[str, list[str]] = {}
        for o in scene.objects:
            if o.parent is not None:
                self._children.setdefault(o.parent, []).append(o.id)

    def snapshot(self) -> World:
        """A frozen copy of the state now (records are immutable, so only the indexes are copied)."""
        snap = World.__new__(World)
        snap.scene, snap.agent, snap.held, snap.version = self.scene, self.agent, self.held, self.version
        snap.objects = dict(self.objects)
        snap._children = {k: list(v) for k, v in self._children.items() if v}
        return snap

    def get(self, object_id: str) -> Obj:
        """The record of an object; KeyError when it does not exist."""
        return self.objects[object_id]

    def set(self, object_id: str, **changes: Any) -> Obj:
        """Replace fields of an object's record and return the new record."""
        new = replace(self.objects[object_id], **changes)
        self.objects[object_id] = new
        self.version += 1
        return new

    def set_agent(self, agent: Agent) -> None:
        """Replace the agent's pose."""
        self.agent = agent
        self.version += 1

    def children(self, object_id: str) -> list[str]:
        """Ids of the objects directly in or on `object_id`."""
        return self._children.get(object_id, [])

    def descendants(self, object_id: str) -> list[str]:
        """Ids of everything transitively in or on `object_id`."""
        out: list[str] = []
        stack = list(self.children(object_id))
        while stack:
            oid = stack.pop(0)
            out.append(oid)
            stack.extend(self.children(oid))
        return out

    def ancestors(self, object_id: str) -> list[str]:
        """Ids of the receptacles holding `object_id`, innermost first."""
        out: list[str] = []
        parent = self.objects[object_id].parent
        while parent is not None:
            out.append(parent)
            parent = self.objects[parent].parent
        return out

    def reparent(self, object_id: str, parent: str | None) -> None:
        """Move an object into `parent` (None: held or free), keeping the child index in step."""
        old = self.objects[object_id].parent
        if old is not None:
            self._children[old].remove(object_id)
        if parent is not None:
            self._children.setdefault(parent, []).append(object_id)
        self.set(object_id, parent=parent)

    def translate(self, object_id: str, dx: float, dy: float, dz: float) -> None:
        """Move an object and everything on or in it by (dx, dy, dz)."""
        for oid in [object_id, *self.descendants(object_id)]:
            x, y, z = self.objects[oid].center
            self.set(oid, center=(round(x + dx, 4), round(y + dy, 4), round(z + dz, 4)))

    def add(self, obj: Obj) -> None:
        """Add a new object (e.g. a slice)."""
        self.objects[obj.id] = obj
        if obj.parent is not None:
            self._children.setdefault(obj.parent, []).append(obj.id)
        self.version += 1

    def remove(self, object_id: str) -> None:
        """Remove an object that has no contents (e.g. a sliced whole)."""
        obj = self.objects.pop(object_id)
        if obj.parent is not None:
            self._children[obj.parent].remove(object_id)
        self._children.pop(object_id, None)
        self.version += 1

    def enclosed(self, object_id: str) -> bool:
        """Whether some closed openable receptacle encloses the object."""
        for aid in self.ancestors(object_id):
            a = self.objects[aid]
            if TYPES[a.type].openable and not a.is_open and a.type != "Laptop":
                return True
        return False

    def room_at(self, x: float, z: float) -> str | None:
        """Id of the room containing (x, z), if any."""
        for room in self.scene.rooms:
            if room.contains(x, z):
                return room.id
        return None
