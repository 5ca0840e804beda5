"""The geometry a candidate episode is drawn against: one house's lattice, what a pose sees, what blind walks and
fixed clicks would reach (the rules that keep blind baselines off a family), and type names as words."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from typing import Any

from suite_household.controller import Controller
from suite_household.render import Renderer
from suite_household.visibility import visible_objects
from suite_household.world import Agent

from suite_vigil import goals
from suite_vigil.oracle import lattice_of

YAW_OFFSET = 40.0  # a visible target's bearing is drawn within this many degrees either side of the view axis
HORIZONS = (0.0, 15.0, 30.0)  # camera pitches a start pose draws from, whatever the target
#: VS: a blind walk straight on from the start, in any of these headings (degrees from the start's), looking round
#: every WALK_LOOK metres up to WALK_REACH metres, must not bring the target into view (walk k metres, then spin)
WALK_HEADINGS = tuple(range(0, 360, 15))
WALK_REACH, WALK_LOOK = 5.0, 0.5
#: DA: no straight walk from the start within this many degrees either side of its view axis (every 5 degrees)
#: comes within reach of the target (turn a little, then walk straight on)
APPROACH_CONE = 60
STRIDE = 0.25
#: PG: a blind click at a fixed point must miss the target: no point of a 7x7 grid of the frame (80 px by 60 px
#: apart) nor the thirds' crossings lies on it
CLICK_POINTS = tuple((x, y) for y in range(60, 480, 60) for x in range(80, 640, 80)) + \
    tuple((x, y) for x in (213, 427) for y in (160, 320))


def words(object_type: str) -> str:
    """A type as words: AlarmClock -> alarm clock, TVStand -> TV stand."""
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+", object_type)
    return " ".join(p if p.isupper() and len(p) > 1 else p.lower() for p in parts)


def snake(object_type: str) -> str:
    """A type as an id token: AlarmClock -> alarm_clock."""
    return words(object_type).lower().replace(" ", "_")


def size_class(size: tuple[float, float, float]) -> str:
    """PG's size class of an object by its largest dimension (large >= 0.8 m, medium >= 0.3 m)."""
    m = max(size)
    return "large" if m >= 0.8 else ("medium" if m >= 0.3 else "small")


class Site:
    """Geometry queries on one house for the builders (a controller reset before each draw)."""

    def __init__(self, name: str, ctl: Controller) -> None:
        self.name = name
        self.ctl = ctl
        self.lattice = lattice_of(ctl)
        self.cells = sorted(self.lattice.index.values())
        self.small = Renderer(ctl.width // 4, ctl.height // 4, ctl.fov)
        self._counts = Counter(o.type for o in ctl.world.objects.values())

    @property
    def world(self) -> Any:
        """The live world."""
        return self.ctl.world

    def counts(self) -> Counter:
        """Instances per type in the house."""
        return self._counts

    def visible(self, pose: Agent, oid: str) -> set[str]:
        """Which of the object and the other instances of its type are visible from a pose."""
        self.world.set_agent(pose)
        c = self.ctl
        otype = self.world.objects[oid].type
        same = {o.id for o in self.world.objects.values() if o.type == otype}
        seen = visible_objects(self.world, c.width, c.height, c.fov, c.visibility_distance, only=same)
        return {k for k in same if seen[k]}

    def pixels(self, pose: Agent, oid: str) -> int:
        """Pixels of the object's instance seen from a pose, in 640x480 terms (counted on a quarter-size buffer)."""
        self.world.set_agent(pose)
        frame = self.small.render(self.world, shade_colors=False)
        return 16 * int((frame.owner == frame.ids.index(oid)).sum()) if oid in frame.ids else 0

    def glancing(self, oid: str, cell: tuple[float, float], rng: random.Random) -> Agent:
        """A standing pose at `cell` whose view axis is a random offset (up to YAW_OFFSET either side) from the
        object's bearing, the camera pitch drawn from HORIZONS: the object may be anywhere in the frame."""
        cx, _, cz = self.world.objects[oid].center
        x, z = cell
        yaw = (math.degrees(math.atan2(cx - x, cz - z)) + rng.uniform(-YAW_OFFSET, YAW_OFFSET)) % 360
        return Agent(x, z, float(round(yaw)), rng.choice(HORIZONS), True)

    def hidden_all_round(self, oid: str, cell: tuple[float, float]) -> bool:
        """Whether the object stays out of view from `cell` at every 45 degree heading and pitch 0 or 30."""
        for yaw in range(0, 360, 45):
            for horizon in (0.0, 30.0):
                if oid in self.visible(Agent(cell[0], cell[1], float(yaw), horizon, True), oid):
                    return False
        return True

    def straight_walk(self, x: float, z: float, yaw: float, reach: float) -> list[tuple[float, float]]:
        """The positions a walk straight on from (x, z) at heading `yaw` passes, 0.25 m at a time, up to `reach`
        metres or until something blocks it."""
        rad = math.radians(yaw)
        dx, dz = STRIDE * math.sin(rad), STRIDE * math.cos(rad)
        out: list[tuple[float, float]] = []
        for _ in range(int(round(reach / STRIDE))):
            if self.ctl.nav.path_blocker(x, z, x + dx, z + dz) is not None:
                break
            x, z = x + dx, z + dz
            out.append((x, z))
        return out

    def seen_on_a_straight_walk(self, oid: str, pose: Agent) -> bool:
        """VS: whether a blind agent who turns to any of WALK_HEADINGS, walks straight on and looks round every
        WALK_LOOK metres (up to WALK_REACH) would see the object."""
        every = int(round(WALK_LOOK / STRIDE))
        for heading in WALK_HEADINGS:
            path = self.straight_walk(pose.x, pose.z, pose.yaw + heading, WALK_REACH)
            if any(not self.hidden_all_round(oid, cell) for cell in path[every - 1::every]):
                return True
        return False

    def reached_walking_straight(self, oid: str, pose: Agent) -> bool:
        """DA: whether a blind agent who turns by up to APPROACH_CONE degrees either way (every 5) and walks
        straight on would pass within reach (goals.NEAR) of the object."""
        x0, _, z0, x1, _, z1 = self.world.objects[oid].box
        for turn in range(-APPROACH_CONE, APPROACH_CONE + 1, 5):
            for x, z in self.straight_walk(pose.x, pose.z, pose.yaw + turn, 10.0):
                if math.hypot(max(x0 - x, 0, x - x1), max(z0 - z, 0, z - z1)) < goals.NEAR:
                    return True
        return False

    def under_fixed_points(self, oid: str, pose: Agent) -> bool:
        """PG: whether the object lies under any of CLICK_POINTS of the 640x480 frame seen from a pose."""
        self.world.set_agent(pose)
        w, h = self.ctl.width, self.ctl.height
        return any(self.ctl.object_at(x / w, y / h) == oid for x, y in CLICK_POINTS)

    def room_of(self, x: float, z: float) -> str | None:
        """The room a position is in."""
        return self.world.room_at(x, z)

    def cells_between(self, oid: str, lo: float, hi: float) -> list[tuple[float, float]]:
        """Lattice cells whose box distance to the object is in [lo, hi]."""
        x0, _, z0, x1, _, z1 = self.world.objects[oid].box
        out = []
        for x, z in self.cells:
            d = math.hypot(max(x0 - x, 0, x - x1), max(z0 - z, 0, z - z1))
            if lo <= d <= hi:
                out.append((x, z))
        return out
