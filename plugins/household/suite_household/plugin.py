"""Registers the simulator backends that AI2-THOR-based benchmarks select with `env.backend`.

`household` is the embedded, CPU-only simulator of this package; `ai2thor` hands the same controller calls
to `ai2thor.controller.Controller` (extra `[thor]`, a display or GPU, and the Unity build).
"""

from __future__ import annotations

from functools import partial

from suite.contract.hookspecs import hookimpl
from suite.contract.registry import Registry

from suite_household.thor_backend import BACKENDS, make_controller


@hookimpl
def register(registry: Registry) -> None:
    """Declare the `household` and `ai2thor` env backends: `factory(scene, **settings) -> controller`."""
    for name in BACKENDS:
        registry.add_env_backend(name, partial(make_controller, name))
