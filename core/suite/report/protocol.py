"""Whether each run of a report followed its benchmarks' paper protocol: its saved config against each benchmark's
`paper` preset (see suite.contract.protocols), with the settings that differ and whether its prompts were replaced."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from suite.contract.config import load_saved
from suite.contract.errors import ConfigError
from suite.contract.protocols import PAPER, differences, load_protocol
from suite.store.run_folder import CONFIG_NAME

if TYPE_CHECKING:
    from suite.engine.host import PluginHost


def run_protocol(host: PluginHost | None, run_dir: Path, benchmarks: list[str]) -> dict[str, dict[str, Any]]:
    """Per benchmark of the run that declares a paper protocol: `{"protocol": "paper", "follows": bool,
    "differs": [...]}` (`differs`: `key=value (the paper's: value)` and `prompts replaced (...)`); none for a run folder
    without its saved config or a benchmark without a preset."""
    config = run_dir / CONFIG_NAME
    if host is None or not config.is_file():
        return {}
    try:
        saved = load_saved(config)
    except ConfigError:
        return {}
    out = {}
    for bench in benchmarks:
        spec = host.registry.benchmarks.get(bench)
        if spec is None or PAPER not in spec.protocols:
            continue
        differs = differences(load_protocol(bench, PAPER, spec.protocols[PAPER]), saved)
        out[bench] = {"protocol": PAPER, "follows": not differs, "differs": differs}
    return out


def row_protocol(labels: list[dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """A report row's label per benchmark from its runs': it follows the protocol only when every run did, and
    differs in every setting any run differed in."""
    out: dict[str, dict[str, Any]] = {}
    for label in labels:
        for bench, one in label.items():
            merged = out.setdefault(bench, {"protocol": one["protocol"], "follows": True, "differs": []})
            merged["follows"] = merged["follows"] and one["follows"]
            merged["differs"] += [d for d in one["differs"] if d not in merged["differs"]]
    return out


def protocol_note(bench: str, label: dict[str, Any], where: str) -> str:
    """One report line: the run followed the paper's protocol, or which of its settings differ."""
    if label["follows"]:
        return f"protocol: {bench}: the paper's protocol [{where}]"
    return f"protocol: {bench}: NOT the paper's protocol: {'; '.join(label['differs'])} [{where}]"
