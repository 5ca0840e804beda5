"""A benchmark's named protocol presets (`--protocol paper`): the settings its paper ran with, where our defaults
differ on purpose and why, and how far a run's saved config is from a preset.

A preset is a YAML file the plugin ships and declares (`BenchmarkSpec.protocols = {"paper": path}`):

    description: the settings of the paper's runs (Tables 1-3)
    settings:                  # dotted keys from the config's root -> the paper's value
      vigil.sv_world: visible
    defaults_differ:           # keys whose default is not the paper's, on purpose -> why
      vigil.sv_world: our SV needs the preset state untouched (a validity fix)

`run.protocol` applies every selected benchmark's preset of that name under the user's `--config` files, overrides
and flags; a report compares each run's saved config with the preset and says whether the run followed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf

from suite.contract.errors import ConfigError

PAPER = "paper"
_MISSING = object()


@dataclass(frozen=True)
class Protocol:
    """One named preset of a benchmark: its settings and the defaults that differ from it on purpose."""

    benchmark: str
    name: str
    description: str
    settings: dict[str, Any] = field(default_factory=dict)
    defaults_differ: dict[str, str] = field(default_factory=dict)


def load_protocol(benchmark: str, name: str, path: Path) -> Protocol:
    """The preset in `path`; a ConfigError naming the file when it is not one."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{benchmark}: protocol {name!r} ({path}) cannot be read: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("settings"), dict):
        raise ConfigError(f"{benchmark}: protocol {name!r} ({path}) needs a `settings` mapping")
    settings = {str(k): v for k, v in raw["settings"].items()}
    outside = [k for k in settings if not k.startswith((f"{benchmark}.", "agent."))]
    if outside:
        raise ConfigError(f"{benchmark}: protocol {name!r} sets {', '.join(outside)}: a preset sets only its own "
                          f"section ({benchmark}.*) and agent sections (agent.*)")
    differ = {str(k): str(v) for k, v in (raw.get("defaults_differ") or {}).items()}
    return Protocol(benchmark, name, str(raw.get("description") or ""), settings, differ)


def apply_protocol(cfg: DictConfig, protocol: Protocol) -> None:
    """Set the preset's settings in `cfg` (the keys must exist: a preset names real settings)."""
    for key, value in protocol.settings.items():
        if OmegaConf.select(cfg, key, default=_MISSING) is _MISSING:
            raise ConfigError(f"{protocol.benchmark}: protocol {protocol.name!r} sets {key}, which is no setting")
        OmegaConf.update(cfg, key, value, merge=False)


def _plain(value: Any) -> Any:
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value


def differences(protocol: Protocol, cfg: DictConfig | Mapping[str, Any]) -> list[str]:
    """The preset's settings a config does not have, as `key=value (the paper's: value)`; and `prompts replaced` when
    the benchmark's or an agent's `prompt_dir` is set. Empty: the config follows the preset."""
    conf = cfg if isinstance(cfg, DictConfig) else OmegaConf.create(dict(cfg))
    out = []
    for key, wanted in protocol.settings.items():
        value = _plain(OmegaConf.select(conf, key, default=None))
        if value != wanted:
            out.append(f"{key}={_show(value)} (the paper's: {_show(wanted)})")
    for key in prompt_dirs(conf, protocol.benchmark):
        out.append(f"prompts replaced ({key})")
    return out


def prompt_dirs(cfg: DictConfig, benchmark: str) -> list[str]:
    """The `prompt_dir` settings a run set for `benchmark`: its section's and its agent's (`agent.<run.agent>`)."""
    keys = [f"{benchmark}.prompt_dir", f"agent.{OmegaConf.select(cfg, 'run.agent', default='direct')}.prompt_dir"]
    return [k for k in keys if OmegaConf.select(cfg, k, default=None)]


def _show(value: Any) -> str:
    """A value as a config override would write it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace(" ", "") if isinstance(value, list | dict) else str(value)
