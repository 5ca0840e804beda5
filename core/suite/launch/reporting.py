"""The cross-benchmark report of run folders as `suite report` and the Python API make it: the report settings a run
saved, the plugin host (or none, with a warning), and the summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from suite.contract import config as configmod
from suite.contract.errors import ConfigError, PluginError
from suite.contract.settings import check_settings
from suite.engine.host import PluginHost, build_host, default_config
from suite.launch.consoles import err_console
from suite.report import summarize
from suite.store.run_folder import CONFIG_NAME


def report_summary(roots: list[Path], reference: bool | None = None) -> tuple[PluginHost | None, dict[str, Any]]:
    """The report summary of `roots` (the first is the baseline) and the host it read the plugins with; `reference`
    None takes `report.reference` from the first saved config."""
    cfg = report_settings(roots)
    host = host_or_none()
    with_reference = bool(reference if reference is not None else cfg.get("reference", False))
    return host, summarize(host, roots, cfg.bootstrap, cfg.confidence, cfg.seed, with_reference)


def report_settings(roots: list[Path]) -> DictConfig:
    """The report section of the first run folder that saved its config (a run that crashed early may not
    have), else the defaults."""
    saved = next((root / CONFIG_NAME for root in roots if (root / CONFIG_NAME).is_file()), None)
    cfg = default_config([])
    if saved is None:
        return cfg.report
    cfg.report = configmod.load_saved(saved).get("report") or cfg.report
    try:  # a folder's settings are data: a damaged one is a clear line, not a traceback in the statistics
        check_settings(cfg, {})
    except ConfigError as exc:
        raise ConfigError(f"{saved}: {exc}") from None
    return cfg.report


def host_or_none() -> PluginHost | None:
    """The plugin host, or None (with a warning) when the plugins cannot be loaded: the report then shows outcomes."""
    try:
        return build_host()
    except PluginError as exc:
        err_console.print(f"warning: {exc}; the report shows outcomes only", highlight=False)
        return None
