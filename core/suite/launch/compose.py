"""A run's config from what the user gave: defaults, `--config` files, `key=value` overrides and flags, each checked
against its schema before anything runs."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from suite.contract import config as configmod
from suite.contract import protocols, settings
from suite.contract.errors import ConfigError
from suite.contract.extras import Requirement, check_requirements
from suite.engine import runner
from suite.engine.host import PluginHost, default_config

#: The task-selection flags `run`, `validate` and `tasks` share, and the settings they set.
SELECTION_FLAGS = {"limit": "run.limit", "tasks": "run.tasks", "seed": "run.seed"}
#: The flags of `suite run` and the settings they set.
RUN_FLAGS = {
    "plugins": "run.plugins", "model": "run.model", "agent": "run.agent", "label": "run.label", "limit": "run.limit",
    "tasks": "run.tasks", "repeats": "run.repeats", "seed": "run.seed", "out": "run.out",
    "concurrency": "run.concurrency",
    "max_cost": "run.max_cost", "executor": "run.executor", "ray_address": "ray.address", "cache": "model.cache",
    "protocol": "run.protocol",
}

#: What each tracker of `run.trackers` needs installed (the trackers themselves are the plugins of suite_trackers).
TRACKER_EXTRAS = {"wandb": Requirement("run.trackers=[wandb]", "wandb", "wandb"),
                  "mlflow": Requirement("run.trackers=[mlflow]", "mlflow", "mlflow")}


@dataclass(frozen=True)
class Options:
    """What a command is given over the defaults (or a resumed run's saved config), as the CLI's flags and the
    Python API's arguments both say it: flag values by name (None: not given), `key=value` overrides, config files,
    a data directory, whether a resume re-runs infra failures, and whether it trusts the endpoint its folder names."""

    flags: Mapping[str, Any] = field(default_factory=dict)
    overrides: Sequence[str] = ()
    config_files: Sequence[str] = ()
    data_dir: str | None = None
    retry_infra: bool = False
    trust_endpoint: bool = False

    @classmethod
    def of(cls, args: argparse.Namespace) -> Options:
        """The options a parsed command line holds."""
        return cls(vars(args), list(getattr(args, "overrides", None) or []),
                   list(getattr(args, "config_files", None) or []), getattr(args, "data_dir", None),
                   bool(getattr(args, "retry_infra", False)), bool(getattr(args, "trust_endpoint", False)))


def split_names(value: Any) -> list[str]:
    """A comma-separated string or a list as a list of names (None: none)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def compose_config(host: PluginHost, options: Options, flags: dict[str, str]) -> DictConfig:
    """Defaults, then the protocol preset `run.protocol` names (each benchmark's that has it), then `--config`
    files, `key=value` overrides and flags; unknown keys fail with a suggestion."""
    cfg = default_config(sorted(host.registry.benchmarks), host)
    apply_options(cfg, options, flags)
    name = cfg.run.get("protocol")
    if name:  # again from the defaults, the presets first, so that whatever the user set wins over them
        cfg = default_config(sorted(host.registry.benchmarks), host)
        for bench, spec in sorted(host.registry.benchmarks.items()):
            if str(name) in spec.protocols:
                protocols.apply_protocol(cfg, protocols.load_protocol(bench, str(name), spec.protocols[str(name)]))
        apply_options(cfg, options, flags)
    return cfg


def apply_options(cfg: DictConfig, options: Options, flags: dict[str, str]) -> None:
    """`--config FILE`s (in the order given), then `key=value` overrides, then flags over `cfg`."""
    for name in options.config_files:
        path = Path(name)
        if not path.is_file():
            raise ConfigError(f"--config {name}: no such file")
        configmod.apply_file(cfg, path)
    configmod.apply_overrides(cfg, list(options.overrides))
    apply_flags(cfg, options.flags, flags)


def apply_flags(cfg: DictConfig, values: Mapping[str, Any], flags: dict[str, str]) -> None:
    """Command-line flags over the config (they win over `key=value` overrides)."""
    for attr, key in flags.items():
        value = values.get(attr)
        if value is not None:
            configmod.set_value(cfg, key, split_names(value) if attr == "plugins" else value)


def apply_data_dir(cfg: DictConfig, benchmarks: list[str], data_dir: str | None) -> None:
    """`--data-dir DIR` as the data directory of the one selected benchmark."""
    if not data_dir:
        return
    if len(benchmarks) != 1:
        raise ConfigError("--data-dir needs exactly one benchmark; use <benchmark>.data_dir=DIR for several")
    OmegaConf.update(cfg, f"{benchmarks[0]}.data_dir", data_dir, force_add=True)


def check_extras(host: PluginHost, cfg: DictConfig, benchmarks: list[str]) -> None:
    """Refuse, in one line naming the extra, a setting whose optional package is not installed."""
    needed = [Requirement("--executor ray", "ray", "ray")] if str(cfg.run.executor) == "ray" else []
    needed += [TRACKER_EXTRAS[name] for name in split_names(cfg.run.get("trackers")) if name in TRACKER_EXTRAS]
    for bench in benchmarks:
        requires = host.benchmark(bench).requires
        needed += list(requires(cfg.get(bench) or OmegaConf.create({}))) if requires is not None else []
    check_requirements(needed)


def check_run_settings(host: PluginHost, cfg: DictConfig, benchmarks: list[str]) -> None:
    """Check the core's settings and each benchmark's section against their schemas (one line on the first error)."""
    flags = {key: "--" + attr.replace("_", "-") for attr, key in RUN_FLAGS.items()}
    settings.check_settings(cfg, {b: host.benchmark(b).config_schema for b in benchmarks}, flags)
    name = cfg.run.get("protocol")
    lacking = [b for b in benchmarks if name and str(name) not in host.benchmark(b).protocols]
    if lacking:
        offered = sorted({p for b in benchmarks for p in host.benchmark(b).protocols})
        raise ConfigError(f"--protocol {name}: {', '.join(lacking)} has no such protocol preset"
                          f"{'; presets: ' + ', '.join(offered) if offered else ''}")
    agents = (host.registry.find_agent(str(cfg.run.agent), b) for b in benchmarks)
    for agent in {id(a): a for a in agents if a is not None}.values():  # a general agent once, not per benchmark
        if agent.check is not None:
            agent.check(cfg)


def resolve_model_presets(host: PluginHost, cfg: DictConfig, benchmarks: list[str]) -> None:
    """Replace each `<benchmark>.model_preset: auto` by the preset the benchmark picks for the run's model (null when
    none), so that the run's saved config shows the choice; `auto` for a benchmark that picks none is refused."""
    for bench in benchmarks:
        section = cfg.get(bench)
        if section is None or section.get("model_preset") != "auto":
            continue
        pick = host.benchmark(bench).model_preset_for
        if pick is None:
            raise ConfigError(f"{bench}.model_preset: auto needs a benchmark that picks a preset by model; "
                              f"{bench} picks none: name a preset or null")
        section.model_preset = pick(str(cfg.run.model or "")) if cfg.run.model else None


def saved_run_config(host: PluginHost, path: Path, benchmarks: list[str]) -> DictConfig:
    """A run folder's saved config (read as data, see `load_saved`), every setting checked: a ConfigError naming the
    file on the first one its schema refuses (a folder edited or damaged since the run)."""
    saved = configmod.load_saved(path)
    try:
        check_run_settings(host, saved, benchmarks)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return saved


def planning_config(host: PluginHost, options: Options, plugins: list[str]) -> tuple[DictConfig, list[str]]:
    """The config and benchmarks of a command that plans tasks without running a model (`tasks`, `validate`,
    `audit`), every setting checked."""
    cfg = compose_config(host, options, SELECTION_FLAGS)
    benchmarks = runner.resolve_benchmarks(host, plugins)
    apply_data_dir(cfg, benchmarks, options.data_dir)
    check_run_settings(host, cfg, benchmarks)
    return cfg, benchmarks
