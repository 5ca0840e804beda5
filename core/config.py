"""Run configuration with omegaconf: defaults, per-benchmark sections, CLI overrides, redaction."""

from __future__ import annotations

import difflib
import re
from importlib import resources
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException
from suite.errors import ConfigError

#: Names of values that hold credentials (`max_tokens` and the like are counts, not secrets).
SECRET_KEY = re.compile(r"(api[_-]?key|token$|secret|password|authorization)", re.IGNORECASE)
REDACTED = "<redacted>"


def _config_text(name: str) -> str | None:
    path = resources.files("suite.configs") / f"{name}.yaml"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def defaults(benchmarks: list[str], extra: dict[str, dict[str, Any]] | None = None) -> DictConfig:
    """The default config: default.yaml plus one section per installed benchmark."""
    cfg = OmegaConf.create(_config_text("default"))
    for name in benchmarks:
        text = _config_text(name)
        section = OmegaConf.create(text) if text else OmegaConf.create({name: (extra or {}).get(name, {})})
        cfg = OmegaConf.merge(cfg, section)
    return cfg


def _flat_keys(node: Any, prefix: str = "") -> list[str]:
    keys = []
    if isinstance(node, DictConfig):
        for key in node.keys():
            path = f"{prefix}{key}"
            keys.append(path)
            keys += _flat_keys(node._get_node(key), path + ".")
    return keys


def apply_overrides(cfg: DictConfig, overrides: list[str]) -> DictConfig:
    """Apply `key=value` overrides; an unknown key is an error naming the nearest valid one."""
    OmegaConf.set_struct(cfg, True)
    if "model" in cfg:
        OmegaConf.set_struct(cfg.model.params, False)  # any litellm keyword is allowed here
    if "ray" in cfg and "resources" in cfg.ray:
        OmegaConf.set_struct(cfg.ray.resources, False)  # any benchmark's simulator resources may be set here
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override {item!r} is not of the form key=value")
        key, _, value = item.partition("=")
        key = key.strip()
        try:
            if not _key_exists(cfg, key):
                raise ConfigKeyError(key)
            OmegaConf.update(cfg, key, _parse_value(value), merge=True)
        except (ConfigAttributeError, ConfigKeyError):
            raise ConfigError(_unknown_key(cfg, key)) from None
        except OmegaConfBaseException as exc:
            raise ConfigError(f"config key {key!r}: {exc}".splitlines()[0]) from None
    return cfg


def _key_exists(cfg: DictConfig, key: str) -> bool:
    node: Any = cfg
    for part in key.split("."):
        if not isinstance(node, DictConfig) or part not in node:
            return False
        if part == "params" and node is cfg.get("model"):
            return True
        node = node._get_node(part)
    return True


def _unknown_key(cfg: DictConfig, key: str) -> str:
    close = difflib.get_close_matches(key, _flat_keys(cfg), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown config key {key!r}{hint}"


def _parse_value(text: str) -> Any:
    return OmegaConf.create({"v": OmegaConf.from_dotlist([f"v={text}"]).v}).v if text else ""


def set_value(cfg: DictConfig, key: str, value: Any) -> None:
    """Set a known key (used for command-line flags)."""
    OmegaConf.update(cfg, key, value, merge=True, force_add=False)


def redacted(cfg: DictConfig) -> dict[str, Any]:
    """The config as a plain dict with every secret-looking value replaced."""
    return _redact(OmegaConf.to_container(cfg, resolve=True))


def _redact(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: (REDACTED if SECRET_KEY.search(str(k)) and isinstance(v, str) and v else _redact(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_redact(v) for v in node]
    return node


def save(cfg: DictConfig, path: Path) -> None:
    """Write the resolved, redacted config as YAML."""
    path.write_text(OmegaConf.to_yaml(OmegaConf.create(redacted(cfg))), encoding="utf-8")


def load_saved(path: Path) -> DictConfig:
    """Read a run's saved config."""
    return OmegaConf.load(path)
