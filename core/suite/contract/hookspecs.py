"""The plugin contract: every hook a benchmark plugin or a tracker may implement (pluggy project `suite`).

Benchmark hooks take the benchmark name first and are dispatched only to the plugin that declared that
benchmark in `register`; lifecycle hooks are broadcast to every plugin. `docs/plugins.md` documents
each hook; a test fails when a hook here is undocumented or untested.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from omegaconf import DictConfig

    from suite.contract.env import Env
    from suite.contract.records import Action, EpisodeRecord, Observation, Settlement, StepRecord, Task, Trajectory
    from suite.contract.registry import Registry
    from suite.contract.runinfo import RunInfo

PROJECT = "suite"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

#: Hooks dispatched to the single plugin that owns the benchmark named in their first argument.
BENCHMARK_HOOKS = ("load_tasks", "make_env", "build_prompt", "parse_action", "settle")
#: Hooks called on every plugin.
BROADCAST_HOOKS = ("register", "on_run_start", "on_episode_end", "on_run_end")


@hookspec
def register(registry: Registry) -> None:
    """Declare this plugin's benchmarks, agents, env backends, data sources and report views.

    Called once per process when the plugin manager is built (in the driver and in every actor).
    Returns nothing; call `registry.add_benchmark(...)`, `registry.add_agent(...)` and so on.
    """


@hookspec(firstresult=True)
def load_tasks(benchmark: str, config: DictConfig) -> list[Task]:
    """Load the benchmark's episode list from its configured data.

    Called once per run, in the driver. `config` is the benchmark's own config section (its
    `data_dir` already resolved). Returns every task, each validated against the plugin's JSON Schema;
    malformed files raise `suite.contract.errors.DataError` naming the file, the JSON pointer and the expectation.
    """
    raise NotImplementedError  # a specification: pluggy calls the plugins' implementations, never this


@hookspec(firstresult=True)
def make_env(benchmark: str, task: Task, config: DictConfig) -> Env:
    """Build the environment of one episode.

    Called once per episode, in the process where the episode runs (driver or actor). Returns an object
    with `reset() -> Observation`, `step(action) -> StepResult` and `close()`.
    """
    raise NotImplementedError  # a specification: pluggy calls the plugins' implementations, never this


@hookspec(firstresult=True)
def build_prompt(
    benchmark: str, task: Task, observation: Observation, history: list[StepRecord]
) -> list[dict[str, Any]]:
    """Turn the current observation and the steps so far into chat messages for the model.

    Called every step of a model-driven agent, where the episode runs. Returns OpenAI-style chat
    messages; images as `image_url` parts holding data URLs.
    """
    raise NotImplementedError  # a specification: pluggy calls the plugins' implementations, never this


@hookspec(firstresult=True)
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """Parse the model's reply into an action.

    Called every step of a model-driven agent, where the episode runs. Returns an `Action`, or
    `Action.failure(reason)` when the reply cannot be parsed; it must never raise.
    """
    raise NotImplementedError  # a specification: pluggy calls the plugins' implementations, never this


@hookspec(firstresult=True)
def settle(benchmark: str, task: Task, trajectory: Trajectory, env: Env) -> Settlement:
    """Score a finished episode.

    Called once per episode, where it ran, before `env.close()`. Returns a `Settlement`: the outcome in
    the shared taxonomy, the benchmark's own failure category, a failure reason and the metrics. The
    core merges it into the stored `EpisodeRecord`; an infra end (model_error, env_error, timeout)
    overrides any outcome but success.
    """
    raise NotImplementedError  # a specification: pluggy calls the plugins' implementations, never this


@hookspec
def on_run_start(run: RunInfo) -> None:
    """A run starts (or resumes). Called once, in the driver, before the first episode."""


@hookspec
def on_episode_end(run: RunInfo, record: EpisodeRecord) -> None:
    """An episode's record was stored. Called in the driver, once per finished episode."""


@hookspec
def on_run_end(run: RunInfo, status: str) -> None:
    """A run ends with `status` (complete, interrupted, stopped). Called once, in the driver."""
