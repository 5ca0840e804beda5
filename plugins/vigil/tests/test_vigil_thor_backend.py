"""`vigil.env.backend=ai2thor` through the shared adapter (suite_household.thor_backend + adapter).

AI2-THOR cannot start here, so `ai2thor.controller.Controller` is replaced by a fake that answers with the
embedded simulator's events (AI2-THOR's metadata keys, frames, segmentation): the episode then runs through
ThorController and a world read back from metadata, exactly the path a real AI2-THOR takes.
"""

from __future__ import annotations

import pytest
from suite.errors import ConfigError
from suite_household.controller import Controller
from suite_household.testing import install_fake_ai2thor
from suite_vigil.episodes import house
from suite_vigil.plugin import PACK_DIR, make_env
from suite_vigil.tests.conftest import first, oracle_actions, report, run


class FakeThor:
    """Stands in for ai2thor.controller.Controller on a pack house (scene = the house name)."""

    made: list[dict] = []

    def __init__(self, scene: str, **settings: object) -> None:
        FakeThor.made.append({"scene": scene, **settings})
        self._ctl = Controller(house(str(PACK_DIR), scene), interactionDistance=1.5, **settings)
        self.last_event = self._ctl.last_event

    def step(self, **args: object) -> object:
        self.last_event = self._ctl.step(**args)
        return self.last_event

    def stop(self) -> None:
        """Nothing to release."""


@pytest.fixture
def fake_ai2thor(monkeypatch: pytest.MonkeyPatch) -> type[FakeThor]:
    FakeThor.made = []
    return install_fake_ai2thor(monkeypatch, FakeThor)


def on_thor(task):
    ep = {**task.data["episode"], "thor_scene": task.data["episode"]["house"]}
    return type(task)(task.benchmark, task.id, {**task.data, "episode": ep, "backend": "ai2thor"},
                      task.category, task.max_steps, task.meta)


@pytest.mark.parametrize("family", ["AI", "SM"])
def test_an_episode_settles_the_same_on_both_backends(fake_ai2thor: type[FakeThor], family: str) -> None:
    task = first(family)
    actions = [*oracle_actions(task), report("success")]
    on_household, _ = run(task, actions)
    thor_task = on_thor(task)
    env = make_env("vigil", thor_task, None)
    env.skip_images()
    env.reset()
    assert not env.sim.embedded
    on_ai2thor, _ = run(thor_task, actions, env)
    assert on_ai2thor.metrics["B"] and on_household.metrics["B"]
    keep = ("W", "W_strict", "B", "FR", "NR", "steps", "progress_final", "too_far", "path_blocked")
    assert {k: on_ai2thor.metrics[k] for k in keep} == {k: on_household.metrics[k] for k in keep}
    made = fake_ai2thor.made[0]
    assert (made["width"], made["height"], made["fieldOfView"], made["visibilityDistance"]) == (640, 480, 90.0, 6.0)
    assert made["renderInstanceSegmentation"] is True


def test_the_generated_pack_needs_a_thor_scene_for_ai2thor() -> None:
    task = first("PG")
    with pytest.raises(ConfigError, match="thor_scene"):
        make_env("vigil", type(task)(task.benchmark, task.id, {**task.data, "backend": "ai2thor"}), None)


def test_ray_gives_each_ai2thor_simulator_a_gpu() -> None:
    from omegaconf import OmegaConf
    from suite import config as configmod
    from suite.executors.ray_cluster import resources_of
    from suite.plugins import build_host

    host = build_host()
    cfg = configmod.defaults(sorted(host.registry.benchmarks))
    assert resources_of(host, cfg, "vigil") == {"num_cpus": 1.0}
    OmegaConf.update(cfg, "vigil.env.backend", "ai2thor")
    assert resources_of(host, cfg, "vigil") == {"num_cpus": 1.0, "num_gpus": 1.0}
