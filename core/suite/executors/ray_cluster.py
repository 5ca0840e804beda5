"""Joining a Ray cluster, and the actor options (resources, environment) of each benchmark's simulators."""

from __future__ import annotations

import asyncio
import logging
import math
import os
import signal
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import ray
from omegaconf import DictConfig, OmegaConf

from suite.contract.errors import ConfigError, SuiteError
from suite.contract.records import Task
from suite.engine.host import PluginHost

#: Actor options that Ray takes by name; every other resource key is a custom resource, except EPISODES.
NAMED_OPTIONS = {"num_cpus": "CPU", "num_gpus": "GPU", "memory": "memory"}
#: The resource key that is no Ray resource: how many episodes one actor may run at once (default 1).
EPISODES = "episodes"


@contextmanager
def connected(address: str | None, node_ip_address: str | None = None) -> Iterator[None]:
    """Use the Ray this process is already connected to, else join `address` (None: start a local Ray) as a
    driver on the node at `node_ip_address` (None: the address Ray finds for this machine)."""
    if ray.is_initialized():
        yield
        return
    on_sigterm = signal.getsignal(signal.SIGTERM)
    try:
        ray.init(address=address or None, include_dashboard=False, logging_level=logging.WARNING,
                 _node_ip_address=node_ip_address or None)
    except ConnectionError as exc:
        raise SuiteError(f"cannot join the Ray cluster at {address!r}: {exc}") from None
    if on_sigterm is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_sigterm)  # Ray's own exits mid-loop: SIGTERM stays Ctrl-C's (`suite.cli`)
    try:
        yield
    finally:
        ray.shutdown()


def forwarded_env() -> dict[str, str]:
    """The driver's SUITE_* variables and PYTHONPATH, so actors load the same plugins, data and caches."""
    return {k: v for k, v in os.environ.items() if k.startswith("SUITE_") or k == "PYTHONPATH"}


def resources_of(host: PluginHost, cfg: DictConfig, benchmark: str) -> dict[str, float]:
    """What one simulator of `benchmark` needs: `ray.resources.<benchmark>` when set, else what its plugin declares
    (for the benchmark's configured settings when it declares `resources_for`)."""
    configured = (cfg.get("ray") or {}).get("resources") or {}
    spec = host.benchmark(benchmark)
    declared = configured.get(benchmark) or (
        spec.resources_for(cfg.get(benchmark) or OmegaConf.create({})) if spec.resources_for else spec.resources)
    values = OmegaConf.to_container(declared, resolve=True) if isinstance(declared, DictConfig) else declared
    if not isinstance(values, Mapping):
        raise ConfigError(f"ray.resources.{benchmark}: expected a mapping of resource names to amounts, not {values!r}")
    return {str(k): float(v) for k, v in values.items()}


def split_episodes(resources: dict[str, float]) -> tuple[dict[str, float], int]:
    """A benchmark's declared resources without EPISODES, and how many episodes one of its actors may run at once."""
    episodes = resources.get(EPISODES, 1)
    if episodes < 1 or episodes != int(episodes):
        raise ConfigError(f"`{EPISODES}` in the resources {resources} must be a whole number >= 1, not {episodes:g}")
    return {k: v for k, v in resources.items() if k != EPISODES}, int(episodes)


def actor_options(resources: dict[str, float], episodes: int = 1) -> dict[str, Any]:
    """Ray actor options for a simulator actor needing `resources` (custom keys become Ray custom resources) that
    runs up to `episodes` episodes at once (each an event stream, plus one call for the watchdog's question)."""
    options: dict[str, Any] = {"num_cpus": 0}
    custom = {}
    for key, amount in resources.items():
        if key == EPISODES:
            continue
        if key in NAMED_OPTIONS:
            options[key] = int(amount) if key == "memory" else amount
        else:
            custom[key] = amount
    if custom:
        options["resources"] = custom
    options["max_concurrency"] = episodes + 1
    options["runtime_env"] = {"env_vars": forwarded_env()}
    return options


def capacity(resources: dict[str, float], nodes: list[dict[str, float]]) -> int:
    """How many simulators needing `resources` fit at once on nodes with these resources (each on one node)."""
    needs = [(NAMED_OPTIONS.get(k, k), v) for k, v in resources.items() if v > 0]
    if not needs:
        return 1 << 30
    return sum(min(math.floor(node.get(key, 0.0) / amount + 1e-9) for key, amount in needs) for node in nodes)


def live_nodes() -> dict[str, dict[str, float]]:
    """The resources of every live node of the cluster, by node id."""
    return {node["NodeID"]: node["Resources"] for node in ray.nodes() if node.get("Alive")}


def node_resources() -> list[dict[str, float]]:
    """The resources of every live node of the cluster."""
    return list(live_nodes().values())


@dataclass(eq=False)
class Worker:
    """A started worker actor of `pool`, where it runs (`node`, `node_id`, and `gpus` when it holds some), and how
    many episodes it runs (`load`, at most `room`); a `retired` one takes no new episode."""

    actor: Any
    where: dict[str, Any]
    pool: Pool
    room: int = 1
    load: int = 0
    retired: bool = False


@dataclass(eq=False)
class Pool:
    """Episodes whose simulators need the same resources, each actor running up to `per_actor` of them at once;
    how many such actors fit (`capacity`), how many episode slots are bound to it, its started workers, how many
    are starting, and how many slots wait for (or start) one (`claimed`)."""

    resources: dict[str, float]
    per_actor: int = 1
    tasks: deque[Task] = field(default_factory=deque)
    capacity: int = 0
    bound: int = 0
    workers: list[Worker] = field(default_factory=list)
    starting: int = 0
    claimed: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def options(self) -> dict[str, Any]:
        """The Ray options of this pool's actors."""
        return actor_options(self.resources, self.per_actor)

    @property
    def slots(self) -> int:
        """How many of its episodes may run at once on the live nodes."""
        return self.capacity * self.per_actor

    def wake(self) -> None:
        """Tell the slots waiting for room in one of its workers that something changed."""
        self.changed.set()
        self.changed = asyncio.Event()


def plan(host: PluginHost, cfg: DictConfig, tasks: list[Task]) -> list[Pool]:
    """Group the episodes by resource needs, with how many of their actors fit; fail if a group can never run."""
    pools: dict[tuple[tuple[tuple[str, float], ...], int], Pool] = {}
    needs: dict[str, dict[str, float]] = {}
    for task in tasks:
        if task.benchmark not in needs:
            needs[task.benchmark] = resources_of(host, cfg, task.benchmark)
        need, per_actor = split_episodes(needs[task.benchmark])
        pools.setdefault((tuple(sorted(need.items())), per_actor), Pool(need, per_actor)).tasks.append(task)
    nodes = node_resources()
    for pool in pools.values():
        pool.capacity = capacity(pool.resources, nodes)
        if pool.capacity == 0:
            benches = ", ".join(sorted({t.benchmark for t in pool.tasks}))
            have = [{NAMED_OPTIONS.get(k, k): node.get(NAMED_OPTIONS.get(k, k), 0.0) for k in pool.resources}
                    for node in nodes]
            raise ConfigError(f"{benches} needs {pool.resources} per simulator, but no node of the Ray cluster has "
                              f"that (nodes: {have}); add such a node or set ray.resources")
    return list(pools.values())
