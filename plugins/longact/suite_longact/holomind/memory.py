"""HoloMind's memories on CPU: a symbolic spatial memory of instances and an episodic memory (status, history,
experience). The spatial memory is built only from what the agent perceives: each instance of the segmentation
list is placed in the world by back-projecting its pixel with its depth from the agent's pose."""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from suite_longact.env import png_bytes

#: furniture that tells a room's type, for guessing rooms when the observation does not name them (the paper's
#: agent reads that from its images; ours, without `privileged_hints`, from the segmentation's types)
LANDMARKS = {"Fridge": "Kitchen", "StoveBurner": "Kitchen", "Sofa": "LivingRoom", "Television": "LivingRoom",
             "Bed": "Bedroom", "Dresser": "Bedroom", "Toilet": "Bathroom", "Bathtub": "Bathroom"}
#: pixels of context kept around an instance's crop
CROP_PAD = 4
#: rules the experience starts with (the paper's examples of Episodic Experience)
PRIORS = ("The hand holds one object at a time: place what you hold before picking something else.",
          "Objects must rest on a flat surface (counter, table) before they can be sliced, with a knife in hand.")


def back_project(pose: dict[str, Any], camera: dict[str, Any], u: float, v: float,
                 depth: float) -> tuple[float, float, float]:
    """World (x, y, z) of pixel (u, v) at z-depth `depth` seen from the pose (AI2-THOR's camera conventions)."""
    w, h = camera["width"], camera["height"]
    tv = math.tan(math.radians(camera["fov"]) / 2)
    th = tv * w / h
    xc = ((u + 0.5) / w * 2 - 1) * th
    yc = (1 - (v + 0.5) / h * 2) * tv
    yaw, pitch = math.radians(pose["yaw"]), math.radians(pose["horizon"])
    fwd = (math.sin(yaw) * math.cos(pitch), -math.sin(pitch), math.cos(yaw) * math.cos(pitch))
    right = (math.cos(yaw), 0.0, -math.sin(yaw))
    up = (fwd[1] * right[2] - fwd[2] * right[1], fwd[2] * right[0] - fwd[0] * right[2],
          fwd[0] * right[1] - fwd[1] * right[0])
    cam = (pose["x"], camera["y"], pose["z"])
    x, y, z = (cam[i] + depth * (fwd[i] + xc * right[i] + yc * up[i]) for i in range(3))
    return x, y, z


@dataclass
class Instance:
    """What the agent knows of one object."""

    id: str
    type: str
    room: str
    on: str | None
    state: list[str]
    position: tuple[float, float, float]
    last_seen: int
    views: int = 1
    crop: bytes | None = None  # PNG of the object cut from the frame where it showed the most pixels
    crop_pixels: int = 0


class SpatialMemory:
    """Instances keyed by id (the segmentation's instance ids), merged across views, queried by text."""

    def __init__(self) -> None:
        self.instances: dict[str, Instance] = {}

    def update(self, data: dict[str, Any]) -> None:
        """Add or merge the instances of one observation; positions are averaged by their pixel counts."""
        pose, camera, step = data.get("pose"), data.get("camera"), int(data.get("step", 0))
        if not pose or not camera:
            return
        for d in data.get("instances") or []:
            pos = back_project(pose, camera, d["pixel"][0], d["pixel"][1], d["depth"])
            old = self.instances.get(d["id"])
            if old is None:
                self.instances[d["id"]] = Instance(d["id"], d["type"], d.get("room") or "", d.get("on"),
                                                   list(d.get("state") or []), pos, step)
                continue
            a = old.views / (old.views + 1)
            x, y, z = (a * p + (1 - a) * q for p, q in zip(old.position, pos, strict=True))
            old.position = (x, y, z)
            old.views = min(old.views + 1, 8)
            old.room, old.on = d.get("room") or old.room, d.get("on", old.on)
            old.state, old.last_seen = list(d.get("state", old.state)), step
        held = data.get("held")
        if held and held in self.instances:
            self.instances[held].on = "hand"

    def keep_views(self, data: dict[str, Any], rgb_png: bytes) -> None:
        """Keep, for each instance in view, the crop of the RGB frame (PNG, decoded only when some crop is kept)
        around its pixels when it shows more of them than in any earlier view (the paper's memory keeps views of
        each instance to verify candidates by)."""
        owner, ids = data.get("segmentation") or (None, [])
        if owner is None:
            return
        index = {oid: k for k, oid in enumerate(ids)}
        counts = np.bincount(owner.ravel(), minlength=len(ids))
        better = [(inst, k) for d in data.get("instances") or []
                  if (inst := self.instances.get(d["id"])) is not None and (k := index.get(d["id"])) is not None
                  and counts[k] > inst.crop_pixels]
        if not better:
            return
        rgb = np.asarray(Image.open(io.BytesIO(rgb_png)).convert("RGB"))
        if owner.shape != rgb.shape[:2]:
            return
        for inst, k in better:
            ys, xs = np.nonzero(owner == k)
            pad = CROP_PAD
            box = rgb[max(0, ys.min() - pad):ys.max() + pad + 1, max(0, xs.min() - pad):xs.max() + pad + 1]
            inst.crop, inst.crop_pixels = png_bytes(np.ascontiguousarray(box)), int(counts[k])

    def room_at(self, x: float, z: float) -> str:
        """The room type of the remembered landmark nearest (x, z) ('' when none is known yet)."""
        marks = [(math.hypot(i.position[0] - x, i.position[2] - z), LANDMARKS[i.type])
                 for i in self.instances.values() if i.type in LANDMARKS]
        return min(marks)[1] if marks else ""

    def room(self, inst: Instance) -> str:
        """The instance's room: as observed, else guessed from the nearest landmark."""
        return inst.room or self.room_at(inst.position[0], inst.position[2])

    def query(self, text: str, k: int = 5) -> list[Instance]:
        """The top-k instances whose type, room, receptacle and state words best match the text."""
        words = set(_words(text))
        scored = []
        for inst in self.instances.values():
            name = set(_words(inst.type))
            if not name & words and inst.type.lower() not in text.lower().replace(" ", ""):
                continue
            context = set(_words(self.room(inst))) | set(_words(inst.on.split("|")[0] if inst.on else "")) | {
                w for s in inst.state for w in _words(s)}
            score = 2 * len(name & words) + len(context & words) + (inst.type.lower() in text.lower().replace(" ", ""))
            scored.append((-score, -inst.last_seen, inst.id, inst))
        return [s[3] for s in sorted(scored)[:k]]

    def describe(self, instances: list[Instance]) -> str:
        """Lines for a prompt: id, type, room, on/in, state."""
        return "\n".join(f"{i.id} | {i.type} | {self.room(i) or '?'} | {i.on or '-'} | {', '.join(i.state) or '-'}"
                         for i in instances) or "(none known)"


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", text or "")]


@dataclass
class EpisodicMemory:
    """Status (held object, room, pose), history (completed sub-goals) and experience (rules and fixes)."""

    status: dict[str, Any] = field(default_factory=dict)
    history: list[str] = field(default_factory=list)
    experience: list[str] = field(default_factory=lambda: list(PRIORS))

    def update(self, data: dict[str, Any], room: str = "") -> None:
        """Refresh the status from an observation (the room as observed, else as guessed)."""
        self.status = {"held": data.get("held"), "room": data.get("room") or room or "unknown room",
                       "pose": data.get("pose")}

    def text(self, history: int = 12) -> str:
        """The memory as prompt text."""
        done = "\n".join(f"- {h}" for h in self.history[-history:]) or "- nothing yet"
        rules = "\n".join(f"- {e}" for e in self.experience)
        s = self.status
        return (f"Status: holding {s.get('held') or 'nothing'}, in the {s.get('room')}, pose {s.get('pose')}\n"
                f"Completed sub-goals:\n{done}\nExperience:\n{rules}")
