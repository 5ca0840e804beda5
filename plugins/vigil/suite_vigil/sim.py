"""Building an episode's simulator on either backend: the paper's camera, the start pose, the preset states."""

from __future__ import annotations

from typing import Any

from suite.contract.errors import ConfigError
from suite_household.adapter import SimAdapter
from suite_household.procthor import procthor_house
from suite_household.thor_backend import make_controller

from suite_vigil.episodes import episode_scene

#: Section 2: 640x480 frames, 90 degree field of view, 6.0 m visibility, instance segmentation (evaluator only).
CAMERA: dict[str, Any] = {"width": 640, "height": 480, "fieldOfView": 90.0, "visibilityDistance": 6.0,
                          "renderInstanceSegmentation": True, "gridSize": 0.25}
INTERACTION_DISTANCE = 1.5
BACKENDS = ("household", "ai2thor")


class SetupError(RuntimeError):
    """An episode's preset could not be applied (an env_error, never an agent failure)."""


def make_sim(episode: dict[str, Any], backend: str, data_dir: str, render: bool = True) -> SimAdapter:
    """The episode's house on `backend`, the agent at its start pose, its preset states applied; `render` False:
    the embedded backend renders no frame (steps skip it, pixel lookups render an instance buffer when needed)."""
    if backend == "household":
        ctl = make_controller("household", episode_scene(data_dir, episode),
                              interactionDistance=INTERACTION_DISTANCE, **CAMERA, renderImage=render)
    elif backend == "ai2thor":
        scene = episode.get("thor_scene") or procthor_house(episode_scene(data_dir, episode))
        ctl = make_controller("ai2thor", scene, **CAMERA)
    else:
        raise ConfigError(f"vigil.env.backend: {backend!r} is unknown; choose one of {', '.join(BACKENDS)}")
    sim = SimAdapter(ctl)
    pose = episode["agent_init"]
    setup = [("TeleportFull", {"position": pose["position"], "rotation": {"x": 0, "y": pose["rotation"], "z": 0},
                               "horizon": pose["horizon"], "standing": pose["standing"]})]
    setup += [(o["action"], {"objectId": o["objectId"], "forceAction": True}) for o in episode["state_overrides"]]
    for n, (action, args) in enumerate(setup):
        sim.render = render and n == len(setup) - 1  # only the last setup step renders the first frame
        ok, error = sim.step(action, **args)
        if not ok:
            sim.close()
            raise SetupError(f"{episode['episode_id']}: {action} failed at setup: {error}")
    sim.render = render
    return sim
