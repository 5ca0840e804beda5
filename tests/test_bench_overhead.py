"""The arithmetic bench/overhead.py prints beside its measurements (the ceilings of workload (b))."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def overhead() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "bench" / "overhead.py"
    spec = importlib.util.spec_from_file_location("bench_overhead", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ceiling_over_two_cores_is_the_lag_of_the_slowest_episode(overhead: ModuleType) -> None:
    # 10 steps of 100 ms; each step 2 ms of CPU; 64 episodes on 2 cores lag (32 - 1) x 2 ms behind the first
    assert overhead.efficiency_ceiling(2.0, 2.0, 2) == pytest.approx(1000 / (1000 + 10 * 2 + 31 * 2))


def test_one_process_is_capped_by_its_throughput(overhead: ModuleType) -> None:
    # 2 ms a step: at most 50 steps per 100 ms round where 64 are needed
    assert overhead.efficiency_ceiling(1.5, 2.0, 1) == pytest.approx(50 / 64)
    assert overhead.efficiency_ceiling(0.0, 0.0, 1) == 1.0


def test_the_cpu_allowed_for_the_target_gives_exactly_the_target(overhead: ModuleType) -> None:
    target = overhead.TARGET_EFFICIENCY
    assert overhead.cpu_for_target(2) == pytest.approx(1000 * (1 / target - 1) / 41)
    for workers in (1, 2, 4):  # the lag alone gives the target (the throughput cap may bind before it)
        allowed = overhead.cpu_for_target(workers)
        assert overhead.efficiency_ceiling(allowed, 0.0, workers) == pytest.approx(target)


def test_cpu_per_step_is_the_seconds_shared_over_the_steps(overhead: ModuleType) -> None:
    assert overhead.per_step_ms(0.6, 300) == pytest.approx(2.0)
    assert overhead.per_step_ms(1.0, 0) == 0.0
