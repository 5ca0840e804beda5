"""`suite-household-player`: the household simulator as an AI2-THOR player, driven by `ai2thor.controller.Controller`.

`Controller(local_executable_path="suite-household-player", ...)` starts this program as if it were AI2-THOR's
Unity build and talks to it over ai2thor's FIFO protocol: two named pipes (paths in the AI2THOR_FIFO_* environment
variables), each message a run of fields, a field a header (one type byte, a big-endian 32-bit length) and a body;
the controller sends an ACTION field (JSON), the player answers a METADATA field (msgpack: `{"agents": [...],
"sequenceId": ...}`) and, when the step renders, the RGB, depth (float32 metres) and instance-id images bottom row
first; an END_OF_MESSAGE header ends each message.

Scenes are household scene files (`suite_household.scene_io`) named `<scene name>.json` in the folders given by
`--scenes DIR` or `SUITE_HOUSEHOLD_SCENES` (os.pathsep-separated): `Reset` to a name (FloorPlan names may carry
ai2thor's `_physics` suffix) and `CreateHouse` with a house whose `metadata.name` names one. Every other iTHOR name
(FloorPlan1-30 kitchens, 201-230 living rooms, 301-330 bedrooms, 401-430 bathrooms) is a room of that type generated
from a seed taken from the name, and any other ProcTHOR house a house generated with its rooms' types, seeded from
the house. See docs/household.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import struct
import sys
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from suite_household.actions import ACTIONS, ActionError
from suite_household.catalog import TYPES
from suite_household.controller import Controller, Event
from suite_household.generator import ROOM_TYPES, floorplan_room_type, generate_house, generate_room
from suite_household.geometry import facing_pose
from suite_household.obstacles import with_obstacles
from suite_household.scene_io import load_scene
from suite_household.visibility import visible_objects
from suite_household.world import Scene

HEADER = struct.Struct("!BI")
METADATA, ACTION, RGB_IMAGE, DEPTH_IMAGE, IDS_IMAGE, END_OF_MESSAGE = 1, 2, 4, 5, 9, 255
SCENES_ENV = "SUITE_HOUSEHOLD_SCENES"
#: The camera planes the player reports on Initialize (ai2thor scales depth with them).
NEAR_PLANE, FAR_PLANE = 0.1, 20.0
#: Settings of Initialize the embedded controller takes, and those accepted but without effect here.
SETTINGS = ("fieldOfView", "visibilityDistance", "renderDepthImage", "renderInstanceSegmentation", "gridSize",
            "rotateStepDegrees")
IGNORED_SETTINGS = ("snapToGrid", "agentMode", "quality", "renderSemanticSegmentation", "renderNormalsImage",
                    "renderFlowImage", "fastActionEmit", "autoSimulation", "makeAgentsVisible", "agentCount",
                    "continuous", "antiAliasing", "sequenceId", "renderImage", "action", "width", "height")
#: Per-step keys ai2thor's client may add to any action.
STEP_KEYS = ("sequenceId", "renderObjectImage", "renderClassImage", "renderSemanticSegmentation",
             "renderInstanceSegmentation", "renderDepthImage")
#: Poses are offered within this distance of the object's box, those nearest ARM_LENGTH first (metres).
POSE_RADIUS, ARM_LENGTH = 1.25, 0.6
#: AI2-THOR's iTHOR scenes: 30 of each room type, numbered from 1, 201, 301 and 401.
ITHOR_NUMBERS = (*range(1, 31), *range(201, 231), *range(301, 331), *range(401, 431))
ITHOR_NAME = re.compile(r"FloorPlan(\d+)(_physics)?")
#: What a generated ProcTHOR house reports as its scene name, as AI2-THOR does for every ProcTHOR house.
PROCEDURAL = "Procedural"


def stable_seed(text: str) -> int:
    """A seed that is the same for the same text in every process (str hashes are salted per process)."""
    return zlib.crc32(text.encode())


def ithor_names() -> list[str]:
    """Every iTHOR scene name, each also with ai2thor's `_physics` suffix."""
    return [f"FloorPlan{n}{suffix}" for n in ITHOR_NUMBERS for suffix in ("", "_physics")]


class SceneLibrary:
    """Household scenes by name, from scene files in a list of folders."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders

    def names(self) -> list[str]:
        """Every scene name the folders hold (FloorPlan names also with ai2thor's `_physics` suffix)."""
        names = {p.stem for folder in self.folders if folder.is_dir() for p in folder.glob("*.json")}
        return sorted(names | {f"{n}_physics" for n in names if n.startswith("FloorPlan")} | set(ithor_names()))

    def load(self, name: str) -> Scene:
        """The scene called `name`: from the folders, else generated for an iTHOR name; ActionError otherwise."""
        stem = name.removesuffix("_physics") if name.startswith("FloorPlan") else name
        for folder in self.folders:
            path = folder / f"{stem}.json"
            if path.is_file():
                return load_scene(path)
        found = ITHOR_NAME.fullmatch(name)
        if found and int(found.group(1)) in ITHOR_NUMBERS:
            return generate_room(floorplan_room_type(stem), stable_seed(stem), name=name)
        raise ActionError(f"Scene {name!r} is neither an iTHOR scene nor in the player's scene folders "
                          f"({SCENES_ENV})")

    def house(self, house: dict[str, Any]) -> Scene:
        """The scene of a ProcTHOR house: the one its `metadata.name` names in the folders (with the objects the house
        adds to it standing on the floor as movable obstacles, as a CR episode's box), else a house of its rooms'
        types generated from a seed taken from the house; ActionError for a room type we cannot build."""
        name = str((house.get("metadata") or {}).get("name"))
        if any((folder / f"{name}.json").is_file() for folder in self.folders):
            scene = self.load(name)
            known = {o.id for o in scene.objects}
            kinds = {o.get("id"): str(o.get("assetId")).rsplit("_", 1)[0] for o in house.get("objects") or []}
            try:
                return with_obstacles(scene, [{"objectId": o["id"], "type": kinds[o["id"]], "position": o["position"],
                                               "size": list(TYPES[kinds[o["id"]]].size)}
                                              for o in house.get("objects") or [] if o.get("id") not in known])
            except (KeyError, ValueError) as exc:
                raise ActionError(f"CreateHouse: {exc}") from None
        types = [str(room.get("roomType")) for room in house.get("rooms") or []]
        unknown = sorted({t for t in types if t not in ROOM_TYPES})
        if not types or unknown:
            raise ActionError(f"CreateHouse: the household player builds rooms of type {', '.join(ROOM_TYPES)}; "
                              f"this house has {', '.join(unknown) or 'no rooms'}")
        try:
            return generate_house(stable_seed(json.dumps(house, sort_keys=True)), types, name=PROCEDURAL)
        except RuntimeError as exc:
            raise ActionError(f"CreateHouse: {exc}") from None


class Player:
    """Answers ai2thor's actions with the embedded controller; session actions (Reset, Initialize, ...) here."""

    def __init__(self, library: SceneLibrary, width: int, height: int, headless: bool = False) -> None:
        self.library = library
        self.width, self.height = width, height
        #: started with -nographics (ai2thor's headless=True): metadata only, nothing rendered
        self.headless = headless
        self.settings: dict[str, Any] = {}
        self.scene: Scene | None = None
        self.ctl: Controller | None = None

    def handle(self, action: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[int, bytes]]]:
        """One action: the metadata message and the image fields it answers with."""
        name = str(action.get("action"))
        session = {"GetScenesInBuild": self._scenes, "Reset": self._reset, "Initialize": self._initialize,
                   "ChangeResolution": self._resolution, "ChangeQuality": self._accept, "CreateHouse": self._house,
                   "InitialRandomSpawn": self._accept, "DisableObject": self._disable,
                   "GetInteractablePoses": self._poses}
        code, ret = "", None
        try:
            if name in session:
                success, error, ret = True, "", session[name](action)
                event = self._step("Pass", action)
            elif name not in ACTIONS:
                success, error, code = False, f"Invalid action: {name}", "InvalidAction"
                event = self._step("Pass", action)
            else:
                event = self._step(name, action)
                success, error = event.outcome if event is not None else (True, "")
                ret = event.metadata["actionReturn"] if event is not None else None
        except (ActionError, TypeError, ValueError, KeyError) as exc:
            success, error, event = False, f"{name}: {exc}", self._step("Pass", action) if self.ctl else None
        meta = self._metadata(event, name, success, error, code, ret)
        return {"agents": [meta], "sequenceId": action.get("sequenceId", 0), "activeAgentId": 0,
                "thirdPartyCameras": []}, self._images(event, action)

    def _step(self, name: str, action: dict[str, Any]) -> Event | None:
        if self.ctl is None:
            if name == "Pass":
                return None
            raise ActionError(f"{name}: no scene is loaded (Reset first)")
        args = {k: v for k, v in action.items() if k not in STEP_KEYS}
        args["action"] = name
        if name == "Pass":
            args = {"action": "Pass", "renderImage": action.get("renderImage", True)}
        if self.headless:
            args["renderImage"] = False
        return self.ctl.step(**args)

    def _metadata(self, event: Event | None, name: str, success: bool, error: str, code: str,
                  ret: Any) -> dict[str, Any]:
        meta = dict(event.metadata) if event is not None else {
            "sceneName": "", "objects": [], "inventoryObjects": [], "agent": None, "fov": 90.0}
        meta.update(lastAction=name, lastActionSuccess=success, errorMessage=error, errorCode=code,
                    actionReturn=ret, screenWidth=self.width, screenHeight=self.height, depthFormat="Meters",
                    thirdPartyCameras=[], agentId=0, isSceneAtRest=True,
                    colors=[{"name": oid, "color": list(c)} for oid, c in
                            (event.object_id_to_color.items() if event is not None else ())])
        return meta

    def _images(self, event: Event | None, action: dict[str, Any]) -> list[tuple[int, bytes]]:
        if event is None or event.frame is None or action.get("renderImage") is False:
            return []
        fields = [(RGB_IMAGE, np.ascontiguousarray(event.frame[::-1]).tobytes())]
        if event.depth_frame is not None:
            fields.append((DEPTH_IMAGE, np.ascontiguousarray(event.depth_frame[::-1], dtype=np.float32).tobytes()))
        if event.instance_segmentation_frame is not None:
            fields.append((IDS_IMAGE, np.ascontiguousarray(event.instance_segmentation_frame[::-1]).tobytes()))
        return fields

    def _accept(self, action: dict[str, Any]) -> None:
        """Actions with nothing to do here: the scene file already holds the placement and the quality."""

    def _scenes(self, action: dict[str, Any]) -> list[str]:
        return self.library.names()

    def _reset(self, action: dict[str, Any]) -> None:
        scene_name = str(action.get("sceneName"))
        self.scene = None if scene_name == "Procedural" else self.library.load(scene_name)
        self._rebuild()

    def _house(self, action: dict[str, Any]) -> None:
        self.scene = self.library.house(action.get("house") or {})
        self._rebuild()

    def _initialize(self, action: dict[str, Any]) -> dict[str, float]:
        unknown = sorted(k for k in action if k not in SETTINGS and k not in IGNORED_SETTINGS)
        if unknown:
            raise ActionError(f"Initialize: the household player does not take {', '.join(unknown)}")
        self.settings.update({k: action[k] for k in SETTINGS if k in action})
        self._rebuild()
        return {"cameraNearPlane": NEAR_PLANE, "cameraFarPlane": FAR_PLANE}

    def _resolution(self, action: dict[str, Any]) -> None:
        self.width, self.height = int(action["x"]), int(action["y"])
        self._rebuild()

    def _rebuild(self) -> None:
        self.ctl = None if self.scene is None else Controller(
            self.scene, width=self.width, height=self.height, **self.settings)

    def _disable(self, action: dict[str, Any]) -> None:
        world = self._world_ctl().world
        oid = str(action.get("objectId"))
        if oid not in world.objects:
            raise ActionError(f"DisableObject: no object {oid}")
        for child in world.children(oid):
            world.reparent(child, None)
        if world.held == oid:
            world.held = None
        world.remove(oid)

    def _world_ctl(self) -> Controller:
        if self.ctl is None:
            raise ActionError("no scene is loaded (Reset first)")
        return self.ctl

    def _poses(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        """Reachable poses facing the object from which it is visible: cells about an arm's length away first
        (AI2-THOR's own order is its grid's), the stance nearer the object's height first."""
        ctl = self._world_ctl()
        world, oid = ctl.world, str(action.get("objectId"))
        if oid not in world.objects:
            raise ActionError(f"GetInteractablePoses: no object {oid}")
        obj, start = world.objects[oid], world.agent
        cx, cy, cz = obj.center
        x0, _, z0, x1, _, z1 = obj.box
        cells = []
        for x, z in ctl.nav.reachable((start.x, start.z), ctl.grid_size):
            d = math.hypot(max(x0 - x, 0, x - x1), max(z0 - z, 0, z - z1))
            if d <= POSE_RADIUS:
                cells.append((round(abs(d - ARM_LENGTH), 3), x, z))
        standings = [bool(s) for s in action.get("standings") or (True, False)]
        standings.sort(key=lambda standing: standing != (cy > 0.55))
        poses = []
        for _, x, z in sorted(cells):
            for standing in standings:
                pose = facing_pose(x, z, (cx, cy, cz), standing)
                world.set_agent(pose)
                if visible_objects(world, ctl.width, ctl.height, ctl.fov, ctl.visibility_distance, only={oid})[oid]:
                    poses.append({"x": x, "y": 0.9, "z": z, "rotation": pose.yaw, "horizon": pose.horizon,
                                  "standing": pose.standing})
        world.set_agent(start)
        return poses


def _plain(value: Any) -> Any:
    """msgpack's fallback for numpy scalars and tuples."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot send {type(value).__name__}")


def write_message(pipe: BinaryIO, metadata: dict[str, Any], images: list[tuple[int, bytes]]) -> None:
    """One message to the controller: metadata, image fields, end-of-message."""
    # installed with ai2thor (the thor extra), like everything that talks to the player; msgpack ships no types
    import msgpack  # type: ignore[import-untyped]

    body = msgpack.packb(metadata, default=_plain, use_bin_type=True)
    parts = [HEADER.pack(METADATA, len(body)), body]
    for field, data in images:
        parts += [HEADER.pack(field, len(data)), data]
    parts.append(HEADER.pack(END_OF_MESSAGE, 0))
    pipe.write(b"".join(parts))
    pipe.flush()


def read_action(pipe: BinaryIO) -> dict[str, Any] | None:
    """The next action from the controller, or None when it closed the pipe."""
    action = None
    while True:
        header = pipe.read(HEADER.size)
        if len(header) < HEADER.size:
            return None
        field, length = HEADER.unpack(header)
        if field == END_OF_MESSAGE:
            return action
        body = pipe.read(length)
        if field == ACTION:
            action = json.loads(body)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="suite-household-player", description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", action="append", default=[], help="a folder of household scene files")
    parser.add_argument("-screen-width", type=int, default=300)
    parser.add_argument("-screen-height", type=int, default=300)
    parser.add_argument("-nographics", action="store_true", help="headless: metadata only")
    args, _unity_only = parser.parse_known_args(argv)  # -batchmode, -screen-quality, ...: Unity's, no effect here
    return args


def main(argv: list[str] | None = None) -> int:
    """Serve one ai2thor controller over its FIFO pipes until it closes them."""
    args = _arguments(argv)
    server_type = os.environ.get("AI2THOR_SERVER_TYPE", "")
    if server_type != "FIFO":
        print(f"suite-household-player: AI2THOR_SERVER_TYPE must be FIFO (got {server_type!r}); start it through "
              "ai2thor.controller.Controller(local_executable_path=...)", file=sys.stderr)
        return 2
    folders = [Path(p) for p in args.scenes]
    folders += [Path(p) for p in os.environ.get(SCENES_ENV, "").split(os.pathsep) if p]
    player = Player(SceneLibrary(folders), args.screen_width, args.screen_height, args.nographics)
    with open(os.environ["AI2THOR_FIFO_SERVER_PIPE_PATH"], "wb") as out:
        write_message(out, *player.handle({"action": "Pass", "sequenceId": 0, "renderImage": False}))
        with open(os.environ["AI2THOR_FIFO_CLIENT_PIPE_PATH"], "rb") as inp:
            while (action := read_action(inp)) is not None:
                write_message(out, *player.handle(action))
    return 0


if __name__ == "__main__":
    sys.exit(main())
