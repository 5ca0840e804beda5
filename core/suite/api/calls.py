"""Run, resume, validate and audit from Python: the CLI's own functions (`suite.launch`, `suite.audit`) called with
plain arguments; `arun` and `aresume` await the run on the caller's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from suite.api.runs import Run, run_folder
from suite.contract.errors import SuiteError
from suite.engine.host import build_host
from suite.engine.runner import RunSession
from suite.launch.compose import Options, split_names
from suite.launch.session import execute, execute_session, open_session, progress_shown
from suite.launch.validation import Validation, validate_tasks
from suite.validity.selected import audit_selected

Names = str | Sequence[str]


def run(plugins: Names, *, model: str | None = None, agent: str | None = None, limit: int | None = None,
        seed: int = 0, overrides: Mapping[str, Any] | None = None, out: str | Path | None = None,
        tasks: Names | None = None, repeats: int | None = None, label: str | None = None,
        concurrency: int | None = None, max_cost: float | None = None, executor: str | None = None,
        ray_address: str | None = None, cache: bool | None = None, data_dir: str | Path | None = None,
        config_files: Sequence[str | Path] = (), progress: bool = True) -> Run:
    """Run benchmarks as `suite run` does (each argument is its flag; `overrides` its `key=value`s) and return the
    finished run; progress goes to standard error (`progress=False`: none)."""
    _no_running_loop("run")
    options = _new_run(**locals())
    return _executed(*open_session(build_host(), options), progress)


async def arun(plugins: Names, *, model: str | None = None, agent: str | None = None, limit: int | None = None,
               seed: int = 0, overrides: Mapping[str, Any] | None = None, out: str | Path | None = None,
               tasks: Names | None = None, repeats: int | None = None, label: str | None = None,
               concurrency: int | None = None, max_cost: float | None = None, executor: str | None = None,
               ray_address: str | None = None, cache: bool | None = None, data_dir: str | Path | None = None,
               config_files: Sequence[str | Path] = (), progress: bool = True) -> Run:
    """`run`, its episodes awaited on the caller's event loop (a notebook's, a server's)."""
    options = _new_run(**locals())
    return await _aexecuted(*open_session(build_host(), options), progress)


def resume(run: Run | str | Path, *, concurrency: int | None = None, max_cost: float | None = None,
           executor: str | None = None, ray_address: str | None = None, retry_infra: bool = False,
           overrides: Mapping[str, Any] | None = None, trust_endpoint: bool = False, progress: bool = True) -> Run:
    """Run the unfinished episodes of a run as `suite run --resume` does (`retry_infra`: also those that ended in
    an infra failure; `trust_endpoint`: as `--trust-endpoint`); only how it runs may change."""
    _no_running_loop("resume")
    options = _resumed(concurrency, max_cost, executor, ray_address, retry_infra, overrides, trust_endpoint)
    return _executed(*open_session(build_host(), options, run_folder(run)), progress)


async def aresume(run: Run | str | Path, *, concurrency: int | None = None, max_cost: float | None = None,
                  executor: str | None = None, ray_address: str | None = None, retry_infra: bool = False,
                  overrides: Mapping[str, Any] | None = None, trust_endpoint: bool = False,
                  progress: bool = True) -> Run:
    """`resume`, its episodes awaited on the caller's event loop."""
    options = _resumed(concurrency, max_cost, executor, ray_address, retry_infra, overrides, trust_endpoint)
    return await _aexecuted(*open_session(build_host(), options, run_folder(run)), progress)


def validate(plugins: Names, *, limit: int | None = None, tasks: Names | None = None, seed: int | None = None,
             overrides: Mapping[str, Any] | None = None, data_dir: str | Path | None = None,
             out: str | Path | None = None, progress: bool = True) -> Validation:
    """Schema-check the selected tasks and run the oracle on each, as `suite validate` does (`.passed`: every task
    solved)."""
    _no_running_loop("validate")
    flags = {"limit": limit, "tasks": _joined(tasks), "seed": seed}
    options = Options(flags, _override_list(overrides), data_dir=_text(data_dir))
    return validate_tasks(build_host(), options, split_names(plugins), _text(out), progress)


def audit(plugins: Names, *, baselines: Names | None = None, limit: int | None = None, full: bool = False,
          seed: int = 0, jobs: int | None = None, overrides: Mapping[str, Any] | None = None,
          data_dir: str | Path | None = None, out: str | Path | None = None) -> dict[str, Any]:
    """Every declared shortcut baseline of the benchmarks, as `suite audit --format json` prints it (`passed`: no
    baseline above its ceiling)."""
    _no_running_loop("audit")
    options = Options({"limit": limit, "seed": seed}, _override_list(overrides), data_dir=_text(data_dir))
    return audit_selected(build_host(), options, split_names(plugins), seed=seed, baselines=split_names(baselines),
                          limit=limit, full=full, jobs=jobs, out=_text(out))


def _new_run(plugins: Names, overrides: Mapping[str, Any] | None, out: str | Path | None, tasks: Names | None,
             data_dir: str | Path | None, config_files: Sequence[str | Path], progress: bool,
             **flags: Any) -> Options:
    """The options of a new run: the flags `suite run` would be given."""
    flags.update(plugins=split_names(plugins), out=_text(out), tasks=_joined(tasks))
    return Options(flags, _override_list(overrides), [str(f) for f in config_files], _text(data_dir))


def _resumed(concurrency: int | None, max_cost: float | None, executor: str | None, ray_address: str | None,
             retry_infra: bool, overrides: Mapping[str, Any] | None, trust_endpoint: bool) -> Options:
    flags = {"concurrency": concurrency, "max_cost": max_cost, "executor": executor, "ray_address": ray_address}
    return Options(flags, _override_list(overrides), retry_infra=retry_infra, trust_endpoint=trust_endpoint)


def _executed(session: RunSession, planned: list, progress: bool) -> Run:
    """Run the planned episodes on a suite event loop (Ctrl-C ends the run as interrupted, resumable)."""
    try:
        execute_session(session, planned, progress)
    finally:
        session.store.close()
    return Run(session.store.root)


async def _aexecuted(session: RunSession, planned: list, progress: bool) -> Run:
    """Await the planned episodes on the running loop (a cancelled run is stored as interrupted, resumable)."""
    try:
        with progress_shown(session, planned) if progress else contextlib.nullcontext():
            await execute(session, planned)
    finally:
        session.store.close()
    return Run(session.store.root)


def _no_running_loop(name: str) -> None:
    """Refuse a blocking call made on a running event loop (it cannot start the run's own loop there)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    hint = f"await suite.a{name}(...) instead" if name in ("run", "resume") else "call it outside the loop"
    raise SuiteError(f"suite.{name}() cannot run inside a running event loop (a notebook cell, an async function): "
                     f"{hint}")


def _override_list(overrides: Mapping[str, Any] | None) -> list[str]:
    """`{key: value}` as the CLI's `key=value` overrides (each value as JSON, which YAML reads back as given)."""
    return [f"{key}={json.dumps(value)}" for key, value in (overrides or {}).items()]


def _joined(names: Names | None) -> str | None:
    return ",".join(split_names(names)) if names is not None else None


def _text(path: str | Path | None) -> str | None:
    return str(path) if path is not None else None
