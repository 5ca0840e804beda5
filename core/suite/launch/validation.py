"""`suite validate` as the CLI and the Python API run it: the data's schema check, then the oracle on every task."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from suite.engine.host import PluginHost
from suite.launch.compose import Options, planning_config
from suite.launch.consoles import err_console
from suite.launch.session import execute_session, start_session


@dataclass(frozen=True)
class Validation:
    """The oracle's run over the selected tasks: how it ended and every episode's record."""

    status: str
    benchmarks: list[str]
    records: list[dict[str, Any]]

    def solved(self, benchmark: str) -> tuple[int, int]:
        """(tasks the oracle solved, tasks run) of one benchmark."""
        mine = [r for r in self.records if r["benchmark"] == benchmark]
        return sum(r["outcome"] == "success" for r in mine), len(mine)

    @property
    def unsolved(self) -> list[dict[str, Any]]:
        """The records of the tasks the oracle did not solve."""
        return [r for r in self.records if r["outcome"] != "success"]

    @property
    def passed(self) -> bool:
        """Whether the run completed and the oracle solved every task."""
        return self.status == "complete" and not self.unsolved


def validate_tasks(host: PluginHost, options: Options, plugins: list[str], out: str | None = None,
                   progress: bool = True) -> Validation:
    """Schema-check the selected tasks of `plugins`, then run the oracle on each (its run folder kept only at `out`)."""
    cfg, benchmarks = planning_config(host, options, plugins)
    OmegaConf.update(cfg, "run.agent", "oracle")
    OmegaConf.update(cfg, "run.plugins", benchmarks)
    for bench in benchmarks:
        host.registry.agent("oracle", bench)
    with tempfile.TemporaryDirectory(prefix="suite-validate-") as scratch:  # the oracle run, unless `out` keeps it
        session, tasks = start_session(host, cfg, out or str(Path(scratch) / "run"))
        err_console.print(f"schema check passed: {len(tasks)} tasks in {', '.join(benchmarks)}", highlight=False)
        try:
            status = execute_session(session, tasks, progress)
            records = session.store.records()
        finally:
            session.store.close()
    return Validation(status, benchmarks, records)
