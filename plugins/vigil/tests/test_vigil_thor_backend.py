"""`vigil.env.backend=ai2thor` through the shared adapter (suite_household.thor_backend + adapter), driven through
ai2thor 5.0.0's real Controller with `suite-household-player` serving the pack's houses (test_thor_player.py
compares whole episodes with the household backend); skipped without the thor extra where it needs ai2thor."""

from __future__ import annotations

import pytest
from suite.engine.host import default_config
from suite_household.testing import record_thor_steps, use_household_player
from suite_vigil.plugin import PACK_DIR, make_env

from .conftest import first


def test_the_generated_packs_houses_go_to_ai2thor_as_houses(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ai2thor.controller")
    use_household_player(monkeypatch, PACK_DIR / "houses")
    sent = record_thor_steps(monkeypatch)
    task = first("PG")
    env = make_env("vigil", type(task)(task.benchmark, task.id, {**task.data, "backend": "ai2thor"}), None)
    env.skip_images()
    env.reset()
    assert not env.sim.embedded
    init = next(args for action, args in sent if action == "Initialize")
    assert (init["fieldOfView"], init["visibilityDistance"], init["renderInstanceSegmentation"]) == (90.0, 6.0, True)
    house = next(args["house"] for action, args in sent if action == "CreateHouse")
    assert house["metadata"]["name"] == task.data["episode"]["house"]
    assert env.sim.ctl.settings["width"] == 640 and env.sim.event.metadata["screenHeight"] == 480
    env.close()


def test_ray_gives_each_ai2thor_simulator_a_gpu() -> None:
    from omegaconf import OmegaConf
    from suite.engine.host import build_host
    from suite.executors.ray_cluster import resources_of

    host = build_host()
    cfg = default_config(sorted(host.registry.benchmarks))
    assert resources_of(host, cfg, "vigil") == {"num_cpus": 1.0, "episodes": 8.0}
    OmegaConf.update(cfg, "vigil.env.backend", "ai2thor")
    assert resources_of(host, cfg, "vigil") == {"num_cpus": 1.0, "num_gpus": 1.0}
