"""`vigil.images=false` (the benchmark's `blind_config`): the env renders no frame, and every blind baseline scores
exactly as it does with frames, step by step (the audit runs them so: issue 21's time budget)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from suite.engine.host import build_host, default_config
from suite.validity.baselines import baseline_episode, baselines_of
from suite_vigil.plugin import make_env
from suite_vigil.vocabulary import FAMILY_CODES

from .conftest import config, first


def test_no_frame_is_rendered_or_sent_with_images_off() -> None:
    task = first("PG")
    blind = make_env("vigil", task, config(images=False))
    seen = make_env("vigil", task, config())
    try:
        assert blind.reset().images == [] and blind.sim.event.frame is None
        assert [i.label for i in seen.reset().images] == ["current"]
    finally:
        blind.close()
        seen.close()


def _episode(result: object) -> tuple:
    trajectory, settlement = result.trajectory, result.settlement
    return (settlement.outcome, settlement.metrics, [(s.reply, s.feedback, s.info) for s in trajectory.steps])


@pytest.mark.parametrize("family", FAMILY_CODES)
def test_every_blind_baseline_plays_the_same_episode_without_frames(family: str) -> None:
    host = build_host()
    spec = host.benchmark("vigil")
    cfg = default_config(sorted(host.registry.benchmarks))
    cfg.vigil.data_dir = config().data_dir
    task = first(family)
    blind = [b for b in baselines_of(spec) if b.blind and b.learner is None  # a learned one needs the pack to fit on
             and family in (b.config.get("vigil.families") or FAMILY_CODES)]
    assert {"stop-at-once", "random", "vigil-blind-combined"} <= {b.name for b in blind}
    for baseline in blind:
        without = baseline_episode(host, task, baseline, cfg)
        with_frames = baseline_episode(host, task, replace(baseline, blind=False), cfg)
        assert _episode(without) == _episode(with_frames), baseline.name
