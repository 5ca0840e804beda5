"""What a run folder's saved config may decide when it is resumed or replayed, and what it may not.

A run folder may come from anyone (a colleague's, one downloaded with a paper). Its `config.yaml` says what the run
measures, which a resume must keep; it must not decide where this user's credentials go: a resume refuses a model
endpoint (`model.params.api_base`, `base_url`, or one a benchmark's `model_defaults` sets) that this command line
does not name, unless `--trust-endpoint` is given, and never takes a cluster address (`ray.address`,
`ray.node_ip_address`) from the folder. Credentials the folder holds redacted are dropped, so the environment's
(or this command line's) are used."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from suite.contract.config import plain
from suite.contract.errors import ConfigError
from suite.contract.secrets import REDACTED, redact_url

#: The model parameters that say where model calls (and the key that goes with them) are sent.
ENDPOINT_KEYS = ("api_base", "base_url")
#: Addresses of executors and clusters: this command line's only.
ADDRESS_KEYS = ("address", "node_ip_address")


def from_folder(saved: DictConfig) -> DictConfig:
    """The saved config as a resume or a replay starts from it: no cluster address, no credential left redacted."""
    cfg = saved.copy()
    if "ray" in cfg:
        for key in ADDRESS_KEYS:
            if key in cfg.ray:
                cfg.ray[key] = None
    if "model" in cfg and "params" in cfg.model:
        cfg.model.params = OmegaConf.create(_without_redacted(plain(cfg.model.params)))
    return cfg


def _without_redacted(node: dict[Any, Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key, value in node.items():
        if isinstance(value, dict):
            value = _without_redacted(value)
        if value != REDACTED and value != {}:
            out[key] = value
    return out


def endpoints(node: Any, prefix: str = "") -> dict[str, Any]:
    """Every model endpoint a config sets, by dotted key: `model.params.api_base`, and one a benchmark's
    `model_defaults` or `model_presets` passes to litellm."""
    if not isinstance(node, dict):
        return {}
    found: dict[str, Any] = {}
    for key, value in node.items():
        path = f"{prefix}{key}"
        if key in ENDPOINT_KEYS and value is not None and not isinstance(value, dict):
            found[path] = value
        else:
            found.update(endpoints(value, path + "."))
    return found


def check_endpoint(root: Path, saved: DictConfig, cfg: DictConfig, trusted: bool,
                   command_line: Callable[[DictConfig], None]) -> None:
    """Refuse to resume `root` with a model endpoint that came from its folder and not from this command line
    (`command_line` applies this command's config files, overrides and flags), unless `--trust-endpoint`."""
    if trusted:
        return
    probe = saved.copy()
    for key in endpoints(OmegaConf.to_container(saved)):
        OmegaConf.update(probe, key, None)
    command_line(probe)
    named = endpoints(OmegaConf.to_container(probe))
    for key, value in sorted(endpoints(OmegaConf.to_container(cfg)).items()):
        if named.get(key) != value:
            raise ConfigError(
                f"{root} sends its model calls, with your credentials, to {key}={redact_url(str(value))} from its "
                f"folder: name it on this command line ({key}=...) or pass --trust-endpoint"
            )
