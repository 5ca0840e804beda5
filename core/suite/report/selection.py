"""How a run chose its tasks (all of them, `--tasks`, or a seeded `--limit` sample), for the report to say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from suite.contract.config import load_saved
from suite.store.run_folder import CONFIG_NAME


def run_selection(run_dir: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """The run's task selection per benchmark as stored at its start (`available` is None for runs made before
    the suite recorded it: their config still says the limit, ids and seed)."""
    if meta.get("selection"):
        return dict(meta["selection"])
    config = run_dir / CONFIG_NAME
    run = load_saved(config).get("run", {}) if config.is_file() else {}
    return {bench: {"available": None, "selected": None, "limit": run.get("limit"), "tasks": run.get("tasks"),
                    "seed": run.get("seed"), "repeats": run.get("repeats") or 1}
            for bench in meta.get("benchmarks", [])}


def selection_note(bench: str, sel: dict[str, Any]) -> str:
    """One line, e.g. `omniear: 20 of 56 tasks (a seeded random sample: --limit 20, seed 0), 1 repeat each`."""
    count = "" if sel.get("selected") is None else f"{sel['selected']} "
    total = "an unrecorded number of" if sel.get("available") is None else str(sel["available"])
    how = []
    if sel.get("tasks"):
        how.append(f"--tasks {sel['tasks']}")
    if sel.get("limit") is not None:
        kind = "stratified (the benchmark's strata keep their shares)" if sel.get("stratified") else "random"
        how.append(f"a seeded {kind} sample: --limit {sel['limit']}, seed {sel.get('seed')}")
    picked = f"{count}of {total} tasks ({'; '.join(how)})" if how else f"all {count}tasks"
    repeats = int(sel.get("repeats") or 1)
    return f"{bench}: {picked}, {repeats} repeat{'s' if repeats != 1 else ''} each"


def run_fixes(run_dir: Path, benchmarks: list[str]) -> dict[str, list[str]]:
    """The opt-in corrections of reference quirks (`<benchmark>.fixes`) each benchmark of a run had on, for the
    benchmarks that have such a setting ([]: every reference quirk kept)."""
    config = run_dir / CONFIG_NAME
    saved = load_saved(config) if config.is_file() else OmegaConf.create()
    fixes = {}
    for bench in benchmarks:
        section = saved.get(bench)
        if section is not None and "fixes" in section:
            fixes[bench] = sorted(str(f) for f in section.fixes or [])
    return fixes


def fixes_note(bench: str, fixes: list[str]) -> str:
    """One line saying which reference quirks a benchmark's run kept and which fixes it had on."""
    if not fixes:
        return f"fixes: {bench}: none (every reference quirk kept; see {bench}.fixes)"
    return f"fixes: {bench}: {', '.join(fixes)} on (the other reference quirks kept)"
