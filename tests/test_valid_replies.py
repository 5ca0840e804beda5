"""Every benchmark's `valid_reply` (what `scripted/random` and `scripted/first-option` answer) parses as an action."""

from __future__ import annotations

import random

import pytest
from omegaconf import OmegaConf
from suite.engine.host import build_host, default_config
from suite.engine.runner import resolve_data

BUILTIN = ["agentvqa", "asgard", "counter", "longact", "omniear", "vigil"]


def test_every_benchmark_declares_valid_replies() -> None:
    """So that `suite run --model scripted/random` runs every benchmark offline (see docs/plugins.md)."""
    host = build_host()
    missing = sorted(name for name, spec in host.registry.benchmarks.items() if spec.valid_reply is None)
    assert not missing, f"declare BenchmarkSpec.valid_reply for {missing} (docs/plugins.md, offline baselines)"


@pytest.mark.parametrize("bench", BUILTIN)
def test_valid_replies_parse_as_actions(bench: str) -> None:
    host = build_host()
    cfg = default_config(sorted(host.registry.benchmarks))
    resolve_data(host, cfg, [bench])
    section = cfg.get(bench) or OmegaConf.create({})
    tasks = list(host.call("load_tasks", bench, config=section))
    valid_reply = host.benchmark(bench).valid_reply
    for task in (tasks[0], tasks[-1]):
        env = host.call("make_env", bench, task=task, config=section)
        observation = env.reset()
        replies = [valid_reply(task, observation, None)] + [
            valid_reply(task, observation, random.Random(seed)) for seed in range(8)
        ]
        env.close()
        assert valid_reply(task, observation, random.Random(3)) == replies[4]  # seeded: the same draw
        for reply in replies:
            action = host.call("parse_action", bench, task=task, reply=reply)
            assert action.ok, (reply, action.parse_error)
            assert getattr(action.value, "invalid", None) is None, (reply, action.value)  # Vigil's invalid action
