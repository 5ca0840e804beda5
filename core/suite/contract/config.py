"""Run configuration with omegaconf: defaults, per-benchmark sections, CLI overrides, redaction."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

from suite.contract.errors import ConfigError, PluginError
from suite.contract.registry import Registry
from suite.contract.secrets import redact_tree


def mapping_config(node: object, where: str) -> DictConfig:
    """`node` as a DictConfig: a ConfigError naming `where` when it holds something other than a mapping."""
    if not isinstance(node, DictConfig):
        raise ConfigError(f"{where}: expected a mapping of settings, not {type(node).__name__}")
    return node


def copy_config(cfg: DictConfig) -> DictConfig:
    """An independent copy of a config (changing it leaves `cfg` as it was)."""
    return mapping_config(OmegaConf.create(OmegaConf.to_container(cfg)), "config copy")


def plain(node: object, resolve: bool = True) -> dict[str, Any]:
    """A config section as a plain dict (interpolations resolved unless `resolve` is False; an absent section is an
    empty dict)."""
    if node is None:
        return {}
    if not isinstance(node, DictConfig):
        raise ConfigError(f"expected a mapping of settings, not {type(node).__name__}")
    values = OmegaConf.to_container(node, resolve=resolve)
    return {str(key): value for key, value in values.items()} if isinstance(values, dict) else {}


def _core_defaults() -> DictConfig:
    """The core's own sections (`run`, `model`, `ray`, `report`) from `suite.configs/default.yaml`."""
    text = (resources.files("suite.configs") / "default.yaml").read_text(encoding="utf-8")
    return mapping_config(OmegaConf.create(text), "suite.configs/default.yaml")


def section_defaults(name: str, shipped: Path | Mapping[str, Any] | None) -> DictConfig:
    """A benchmark's default section as its plugin ships it (`BenchmarkSpec.config_defaults`): a YAML file whose
    top-level key is the benchmark's name (beside it, `agent.<name>` sections of the plugin's own agents), or the
    section as a dict; an empty section when it ships none."""
    if shipped is None:
        return OmegaConf.create({name: {}})
    if isinstance(shipped, Mapping):
        return OmegaConf.create({name: dict(shipped)})
    try:
        loaded = OmegaConf.load(shipped)
    except (OSError, OmegaConfBaseException, ValueError, yaml.YAMLError) as exc:
        raise PluginError(f"{name}: config defaults {shipped} cannot be read: {exc}".splitlines()[0]) from None
    keys = list(loaded.keys()) if isinstance(loaded, DictConfig) else []
    if name not in keys or set(keys) - {name, "agent"}:
        raise PluginError(f"{name}: config defaults {shipped} must hold the top-level key {name!r} with the "
                          "benchmark's settings under it (and at most `agent`, the sections of its own agents)")
    return mapping_config(loaded, str(shipped))


def defaults(benchmarks: list[str], registry: Registry | None = None) -> DictConfig:
    """The default config: the core's sections plus each benchmark's section, as the plugin that declared it in
    `registry` ships it (`suite.engine.host.default_config` builds the registry of the installed plugins)."""
    cfg = _core_defaults()
    for name in benchmarks:
        spec = registry.benchmarks.get(name) if registry is not None else None
        cfg = mapping_config(OmegaConf.merge(cfg, section_defaults(name, spec.config_defaults if spec else None)), name)
    return cfg


def _flat_keys(node: Any, prefix: str = "") -> list[str]:
    keys = []
    if isinstance(node, DictConfig):
        for key in node.keys():
            path = prefix + str(key)
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
        try:
            parsed = _parse_value(value)
        except (yaml.YAMLError, OmegaConfBaseException) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            quoted = json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted one
            raise ConfigError(f"override {key.strip()!r}: its value is not valid YAML ({reason}); quote a text value "
                              f"that holds ': ' or brackets, e.g. {key.strip()}='{quoted}'") from None
        _set_known(cfg, key.strip(), parsed)
    return cfg


def _set_known(cfg: DictConfig, key: str, value: Any, source: str = "") -> None:
    """Set an existing key (any key under `model.params`); an unknown one is a ConfigError naming the nearest."""
    try:
        if not _key_exists(cfg, key):
            raise ConfigKeyError(key)
        OmegaConf.update(cfg, key, value, merge=True)
    except (ConfigAttributeError, ConfigKeyError):
        raise ConfigError(f"{source}{_unknown_key(cfg, key)}") from None
    except OmegaConfBaseException as exc:
        raise ConfigError(f"{source}config key {key!r}: {exc}".splitlines()[0]) from None


def apply_file(cfg: DictConfig, path: Path) -> DictConfig:
    """Lay a YAML file of settings over the config (`--config FILE`): the same keys as `key=value` overrides, nested
    (`omniear: {max_steps: 20}`), each checked as an override is."""
    apply_overrides(cfg, [])  # the struct flags overrides rely on
    try:
        loaded = OmegaConf.to_container(OmegaConf.load(path))
    except (OSError, OmegaConfBaseException, ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"--config {path}: cannot be read as YAML: {exc}".splitlines()[0]) from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"--config {path}: expected a mapping of settings, e.g. `omniear: {{max_steps: 20}}`")
    for key, value in _leaves({str(k): v for k, v in loaded.items()}):
        _set_known(cfg, key, value, f"--config {path}: ")
    return cfg


#: Settings whose value is a mapping with keys of the user's choosing (set whole, never checked key by key).
OPEN_MAPPINGS = ("model.params", "ray.resources")


def _leaves(node: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted key, value) of every setting in a nested mapping; a mapping under an open key is one value."""
    out: list[tuple[str, Any]] = []
    for key, value in node.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and path not in OPEN_MAPPINGS:
            out += _leaves(value, path + ".")
        else:
            out.append((path, value))
    return out


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
    """The config as a plain dict with every credential replaced by REDACTED (`suite.contract.secrets`' rule)."""
    tree = redact_tree(OmegaConf.to_container(cfg, resolve=True))
    return tree if isinstance(tree, dict) else {}


def save(cfg: DictConfig, path: Path) -> None:
    """Write the resolved, redacted config as YAML."""
    path.write_text(OmegaConf.to_yaml(OmegaConf.create(redacted(cfg))), encoding="utf-8")


def load_saved(path: Path) -> DictConfig:
    """Read a run's saved config as plain YAML data: a tag is refused and a `${...}` is kept as text, so reading a
    run folder never resolves or runs anything it holds; a ConfigError naming the file when it is not such YAML."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError) as exc:
        problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(f"{path}: not a readable saved config (plain YAML): {problem}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a saved config (expected a mapping of settings, not {type(data).__name__})")
    try:
        return mapping_config(OmegaConf.create(_literal(data)), str(path))
    except OmegaConfBaseException as exc:  # a value YAML has but a config cannot hold (a date, bytes)
        raise ConfigError(f"{path}: not a saved config: {str(exc).splitlines()[0]}") from None


def _literal(node: Any) -> Any:
    """Saved data with every `${` escaped, so omegaconf reads each string back as the text it is."""
    if isinstance(node, str):
        return re.sub(r"(\\*)\$\{", lambda m: "\\" * (2 * len(m.group(1))) + "\\${", node)
    if isinstance(node, dict):
        return {key: _literal(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_literal(value) for value in node]
    return node
