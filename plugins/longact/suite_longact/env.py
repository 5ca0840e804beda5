"""One LongAct episode on an AI2-THOR-protocol controller: the 16 actions, the checklist every step, the
efficiency counter, and what the agent perceives (RGB, depth, instance segmentation, visible instances)."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from PIL import Image as PILImage
from suite.contract.records import Image, Observation, StepResult, Task
from suite_household.catalog import TYPES
from suite_household.render import Frame, instance_color
from suite_household.rules import RuleSet, knife_to_slice, slice_on_flat_surface, thor_rules
from suite_household.world import World

from suite_longact.checklist import Checklist, Item
from suite_longact.ids import OpaqueIds
from suite_longact.vocabulary import (
    EFFICIENCY_M,
    LOOKS,
    MANIPULATION,
    MOVES,
    ROTATIONS,
    STOP,
    THOR_ACTION,
)

#: what `privileged_hints` adds to each listed instance (the paper's segmentation gives id and type only)
PRIVILEGED_FIELDS = ("room", "on", "reachable", "state")
#: instances smaller than this many pixels of the segmentation are left out of the text list
MIN_PIXELS = 4
DEPTH_RANGE_M = 8.0


def longact_rules() -> RuleSet:
    """AI2-THOR's state changes, plus the paper's slicing preconditions (a held knife; a flat surface)."""
    return thor_rules().extend({"SliceObject": [knife_to_slice, slice_on_flat_surface]})


@dataclass
class StepCounts:
    """Raw and efficiency step counts: one efficiency step per 0.25 m moved, per 30 degrees, per interaction."""

    raw: int = 0
    nav_raw: int = 0
    manip_raw: int = 0
    invalid: int = 0
    distance_m: float = 0.0
    turns: int = 0
    looks: int = 0
    interactions: int = 0
    count_looks: bool = True
    failed: dict[str, int] = field(default_factory=dict)

    @property
    def nav(self) -> float:
        """Navigation efficiency steps."""
        return self.distance_m / EFFICIENCY_M + self.turns + (self.looks if self.count_looks else 0)

    @property
    def manip(self) -> int:
        """Manipulation efficiency steps (every attempted interaction)."""
        return self.interactions

    @property
    def efficiency(self) -> float:
        """All efficiency steps so far."""
        return self.nav + self.manip


class LongActEnv:
    """The Env protocol over a simulator (see backends); privileged agents turn observations off."""

    def __init__(self, task: Task, sim: Any, settings: dict[str, Any]) -> None:
        self.task = task
        self.sim = sim
        self.settings = settings
        self.checklist = Checklist([Item.from_dict(i) for i in task.data["checklist"]])
        self.counts = StepCounts(count_looks=bool(settings.get("count_looks", True)))
        self.observe = True
        self.stopped = False
        self.last = {"action": None, "success": True, "error": ""}
        self.hints = bool(settings.get("privileged_hints", False))
        self.ids = OpaqueIds({oid: o.type for oid, o in self.world.objects.items()}) \
            if settings.get("opaque_ids", True) else None

    # -- the Env protocol ------------------------------------------------------------------------------------
    def reset(self) -> Observation:
        """The first observation; the checklist's score at step 0."""
        self.checklist.start(self.world)
        return self.observation()

    def step(self, value: dict[str, Any]) -> StepResult:
        """One action: a failed or invalid one costs a step and changes nothing."""
        name = value.get("action")
        c = self.counts
        c.raw += 1
        if name == STOP:
            self.stopped = True
            self.last = {"action": STOP, "success": True, "error": ""}
            return self._result("Stop: episode ended by the agent.", done=True, changed=False)
        success, error = self._do(name, self._private(value.get("object")))
        if self.ids is not None and error:
            error = self.ids.scrub(error, self.world.objects)
        changed = success and name in MANIPULATION  # only a successful interaction changes objects
        self.last = {"action": _text(value), "success": success, "error": error}
        if not success:
            c.failed[name or "?"] = c.failed.get(name or "?", 0) + 1
        feedback = f"{_text(value)}: " + ("success" if success else f"failed ({error})")
        return self._result(feedback, done=False, changed=changed)

    def close(self) -> None:
        """Release the simulator."""
        self.sim.stop()

    # -- helpers ---------------------------------------------------------------------------------------------
    @property
    def world(self) -> World:
        """The simulator's current state (privileged agents and scoring read it)."""
        return self.sim.world

    def skip_observations(self) -> None:
        """Stop rendering and listing instances, and take the pack's ids (privileged agents never look)."""
        self.observe = False
        self.ids = None

    def _private(self, obj: Any) -> Any:
        """The pack id of the instance an action names (an id the agent was never shown names nothing, and fails)."""
        if self.ids is None or not isinstance(obj, str):
            return obj
        found = self.ids.private(obj)
        return found if found is not None else f"{obj} (an id never shown)"

    def _public(self, oid: str | None) -> str | None:
        return oid if self.ids is None or oid is None else self.ids.public(oid)

    def _do(self, name: Any, obj: Any) -> tuple[bool, str]:
        c = self.counts
        if name in MOVES:
            c.nav_raw += 1
            a = self.world.agent
            ok, err = self._call(action=name, moveMagnitude=self.settings["move_m"])
            if ok:
                b = self.world.agent
                c.distance_m += math.hypot(b.x - a.x, b.z - a.z)
            return ok, err
        if name in ROTATIONS:
            c.nav_raw += 1
            c.turns += 1
            return self._call(action=name, degrees=self.settings["rotate_deg"])
        if name in LOOKS:
            c.nav_raw += 1
            ok, err = self._call(action=name, degrees=self.settings["look_deg"])
            c.looks += ok
            return ok, err
        if name in THOR_ACTION:
            c.manip_raw += 1
            c.interactions += 1
            if not isinstance(obj, str) or not obj:
                return False, f"{name} needs an object id"
            return self._call(action=THOR_ACTION[name], objectId=obj)
        c.invalid += 1
        return False, f"unknown action {name!r}"

    def _call(self, **args: Any) -> tuple[bool, str]:
        return self.sim.step(**args)

    def _result(self, feedback: str, done: bool, changed: bool) -> StepResult:
        c = self.counts
        self.checklist.after_step(self.world, c.raw, c.efficiency, changed)
        info = {"success": self.last["success"], "gc": round(self.checklist.gc, 4),
                "met": sum(self.checklist.status), "nav": round(c.nav, 2), "manip": c.manip}
        obs = self.observation() if not done else Observation(text=feedback)
        return StepResult(obs, feedback=feedback, done=done, info=info, failed=not self.last["success"])

    def observation(self) -> Observation:
        """What the agent perceives now (only the last outcome once observations are skipped)."""
        if not self.observe:
            return Observation(data={"last": dict(self.last)})
        frame = self.sim.render_frame(rgb="rgb" in self.settings["images"])  # the text list needs no colours
        instances = visible_instances(self.world, frame, self.settings["interaction_distance"])
        if self.ids is not None:
            self.ids.type_of.update({oid: o.type for oid, o in self.world.objects.items()})  # pieces of a slice
            for d in instances:
                d["id"], d["on"] = self._public(d["id"]), self._public(d["on"])
        if not self.hints:  # the paper's inputs: what RGB-D and the segmentation give (id, type, pixel, depth)
            instances = [{k: v for k, v in d.items() if k not in PRIVILEGED_FIELDS} for d in instances]
        ids = [self._public(i) for i in frame.ids] if self.ids is not None else list(frame.ids)
        images = []
        modes = self.settings["images"]
        step = self.counts.raw
        if "rgb" in modes:
            images.append(Image(png=png_bytes(frame.require_rgb()), label=f"rgb {step}"))
        if "depth" in modes:
            depth = np.clip(frame.depth / DEPTH_RANGE_M, 0, 1)
            images.append(Image(png=png_bytes((255 - depth * 255).astype(np.uint8)), label=f"depth {step}"))
        if "segmentation" in modes:
            colors = np.array([instance_color(i) for i in ids], dtype=np.uint8)
            images.append(Image(png=png_bytes(np.take(colors, frame.owner, axis=0)), label=f"segmentation {step}"))
        w = self.world
        held = w.objects.get(w.held) if w.held else None
        room = w.room_at(w.agent.x, w.agent.z)
        room_type = next((r.type for r in w.scene.rooms if r.id == room), "doorway")
        data = {
            "instances": instances,
            "held": self._public(held.id) if held else None,
            "last": dict(self.last),
            "step": step,
            "camera": {"width": self.settings["width"], "height": self.settings["height"],
                       "fov": self.settings["field_of_view"], "y": round(w.agent.camera[1], 3)},
            "depth": frame.depth,
            "segmentation": (frame.owner, ids),
        }
        if self.hints:  # extras the paper's agent is not given (`privileged_hints`)
            data["room"] = room_type
            data["pose"] = {"x": round(w.agent.x, 2), "z": round(w.agent.z, 2), "yaw": round(w.agent.yaw) % 360,
                            "horizon": round(w.agent.horizon)}
        return Observation(text="", images=images, data=data)


def _text(value: dict[str, Any]) -> str:
    obj = value.get("object")
    return f"{value.get('action')} {obj}" if obj else str(value.get("action"))


def png_bytes(array: np.ndarray) -> bytes:
    """An image array as PNG bytes (fast compression: frames are encoded at every step)."""
    buf = io.BytesIO()
    PILImage.fromarray(array).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


@cache
def _pixel_index(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every pixel of an h x w frame, flattened."""
    return np.repeat(np.arange(h, dtype=float), w), np.tile(np.arange(w, dtype=float), h)


def visible_instances(world: World, frame: Frame, reach: float) -> list[dict[str, Any]]:
    """The instances of the segmentation frame: id, type, room, receptacle, distance, in reach, state, and the
    pixel (u, v) of the mask nearest its centroid with the depth there (what a perception module would read)."""
    owner = frame.owner.ravel()
    counts = np.bincount(owner, minlength=len(frame.ids))
    row_index, col_index = _pixel_index(*frame.owner.shape)
    rows = np.bincount(owner, weights=row_index, minlength=len(frame.ids))
    cols = np.bincount(owner, weights=col_index, minlength=len(frame.ids))
    rooms = {r.id: r.type for r in world.scene.rooms}
    out: list[dict[str, Any]] = []
    ax, az = world.agent.x, world.agent.z
    for idx in np.flatnonzero(counts >= MIN_PIXELS):
        oid = frame.ids[int(idx)]
        obj = world.objects.get(oid)
        if obj is None or obj.type == "Floor":
            continue
        x0, _, z0, x1, _, z1 = obj.box
        dist = math.hypot(max(x0 - ax, 0, ax - x1), max(z0 - az, 0, az - z1))
        parent = world.objects.get(obj.parent) if obj.parent else None
        u, v = int(cols[idx] / counts[idx]), int(rows[idx] / counts[idx])
        if frame.owner[v, u] != idx:  # a concave mask: the nearest pixel of the instance instead
            vs, us = np.nonzero(frame.owner == idx)
            k = int(np.argmin((vs - v) ** 2 + (us - u) ** 2))
            v, u = int(vs[k]), int(us[k])
        out.append({"id": oid, "type": obj.type, "room": rooms.get(obj.room, obj.room),
                    "on": parent.id if parent else None, "distance": round(dist, 2),
                    "reachable": dist <= reach, "state": _state(obj), "pixel": [u, v],
                    "depth": round(float(frame.depth[v, u]), 3), "pixels": int(counts[idx])})
    out.sort(key=lambda d: d["distance"])
    return out


def _state(obj: Any) -> list[str]:
    t = TYPES[obj.type]
    out = []
    if t.openable:
        out.append("open" if obj.is_open else "closed")
    if t.toggleable:
        out.append("on" if obj.is_toggled else "off")
    if obj.is_sliced:
        out.append("sliced")
    if obj.is_cooked:
        out.append("cooked")
    if obj.fill:
        out.append(f"filled with {obj.fill}")
    return out




def env_settings(config: Any) -> dict[str, Any]:
    """The simulator and observation settings of the benchmark config (defaults: the plugin's config.yaml)."""
    cfg = config or {}
    get = cfg.get
    size = int(get("image_size") or 300)
    images = get("images")
    return {
        "width": size, "height": size,
        "field_of_view": float(get("field_of_view") or 90),
        "visibility_distance": float(get("visibility_distance") or 1.5),
        "interaction_distance": float(get("interaction_distance") or 1.5),
        "move_m": float(get("move_m") or 0.05),
        "rotate_deg": float(get("rotate_deg") or 30),
        "look_deg": float(get("look_deg") or 30),
        "count_looks": bool(get("count_looks", True)),
        "privileged_hints": bool(get("privileged_hints", False)),
        "opaque_ids": bool(get("opaque_ids", True)),
        "images": tuple(images if images is not None else ("rgb", "depth", "segmentation")),
        "ir": {k: (get("ir") or {}).get(k) for k in ("n", "accumulated", "axis", "normalise")
               if (get("ir") or {}).get(k)},
    }


def make_env_from_data(task: Task, config: Any) -> LongActEnv:
    """The episode's house, set up, on the embedded household simulator."""
    from suite_longact.backends import HouseholdSim
    from suite_longact.houses import BUILT, episode_scene

    settings = env_settings(config)
    episode = task.data["episode"]
    scene = episode_scene(task.data["house"], episode["setup"], BUILT)
    return LongActEnv(task, HouseholdSim(scene, settings, longact_rules()), settings)
