"""What every tracker shares, built on the public lifecycle hooks only: whether a run asked for it (`run.trackers`),
its settings (`tracking.<name>`, an environment variable where one is null), what it logs (the run's parameters, the
report's headline metrics with their intervals, the episodes as a table, the HTML report), the tracker run id kept in
the run folder for a resume, and the rule that a tracker's failure is a warning, never the run's."""

from __future__ import annotations

import json
import os
import re
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suite.contract.hookspecs import hookimpl
from suite.contract.records import EpisodeRecord
from suite.contract.runinfo import RunInfo
from suite.contract.secrets import redact_tree
from suite.launch.consoles import err_console

from suite_trackers import __version__

if TYPE_CHECKING:
    from suite.api import Run

#: The file in the run folder that keeps each tracker's run id, so a resumed run continues the same tracker run.
IDS_FILE = "trackers.json"
#: The columns of the per-episode table (metrics follow as `metric.<name>`).
EPISODE_COLUMNS = ("episode_id", "benchmark", "task_id", "task_category", "outcome", "failure_category",
                   "failure_reason", "end_reason", "steps", "prompt_tokens", "completion_tokens", "cost_usd",
                   "duration_s")


class Tracker(ABC):
    """A results tracker as a pluggy plugin: subclasses say how to `start`, `log_episode` and `finish` a run in
    their library; this class decides when, and turns any exception of theirs into one warning per run."""

    #: its name in `run.trackers` and the section `tracking.<name>` of its settings
    name = ""
    #: what `suite plugins` lists as its version
    __version__ = __version__

    def __init__(self) -> None:
        """A tracker following no run yet."""
        self.handles: dict[Path, Any] = {}  # run folder -> the library's run (or its client and id) while it goes on
        self.warned: set[Path] = set()  # the run folders a failure was already reported for

    @hookimpl
    def on_run_start(self, run: RunInfo) -> None:
        """Open (or, for a resumed run, reopen) the tracker run and log the run's parameters."""
        if self.name in (run.config.get("run", {}).get("trackers") or []):
            with self.guarded(run):
                self.handles[run.path] = self.start(run, self.settings(run), saved_id(run.path, self.name))
                save_id(run.path, self.name, self.run_id(self.handles[run.path]))

    @hookimpl
    def on_episode_end(self, run: RunInfo, record: EpisodeRecord) -> None:
        """Log one finished episode as it is stored (the live view; the table comes at the end); none after a
        failure of this tracker in the run (a server that timed out once would hold up every episode)."""
        handle = self.handles.get(run.path)
        if handle is not None and run.path not in self.warned:  # after a failure, no call that could wait again
            with self.guarded(run):
                self.log_episode(handle, record)

    @hookimpl
    def on_run_end(self, run: RunInfo, status: str) -> None:
        """Log the report's headline metrics, the episode table and the HTML report, then close the tracker run."""
        handle = self.handles.pop(run.path, None)
        if handle is not None:
            with self.guarded(run):
                self.finish(handle, run, status)
        self.warned.discard(run.path)  # a resume in this process starts with a clean slate

    @contextmanager
    def guarded(self, run: RunInfo) -> Iterator[None]:
        """Run library calls; an exception of theirs (an error of the library, the network) is a warning, once per
        run."""
        try:
            yield
        except Exception as exc:  # any failure of a tracker: the episodes are stored whatever it does
            if run.path not in self.warned:
                self.warned.add(run.path)
                text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                err_console.print(f"warning: tracker {self.name}: {text}; the run goes on (its results are in "
                                  f"{run.path})", highlight=False, markup=False, soft_wrap=True)

    def settings(self, run: RunInfo) -> dict[str, Any]:
        """This tracker's section of the run's config (`tracking.<name>`)."""
        return dict(run.config.get("tracking", {}).get(self.name) or {})

    @abstractmethod
    def start(self, run: RunInfo, settings: dict[str, Any], resume_id: str | None) -> Any:
        """Open the tracker run (continue `resume_id` when given) with the run's parameters; returns its handle."""

    @abstractmethod
    def run_id(self, handle: Any) -> str:
        """The tracker's id of the run `handle` is for (kept in the run folder)."""

    @abstractmethod
    def log_episode(self, handle: Any, record: EpisodeRecord) -> None:
        """Log one finished episode."""

    @abstractmethod
    def finish(self, handle: Any, run: RunInfo, status: str) -> None:
        """Log the end of the run (see `final_metrics`, `episode_table`, `report_site`) and close the tracker run."""


def setting(settings: dict[str, Any], key: str, variable: str, default: str | None = None) -> str | None:
    """A tracker setting: its config value, else the environment variable `variable`, else `default`."""
    value = settings.get(key)
    return str(value) if value is not None else os.environ.get(variable) or default


def parameters(run: RunInfo) -> dict[str, str]:
    """The run's parameters as flat `key: text` pairs: its identity, the data it ran on (kind, path, SHA-256), and its
    config, credentials redacted (`suite.contract.secrets`)."""
    identity = {"run_id": run.run_id, "agent": run.agent, "model": run.model, "seed": run.seed,
                "benchmarks": ",".join(run.benchmarks), "suite_version": run.meta.get("suite_version")}
    data = {bench: {k: v for k, v in (d or {}).items() if k in ("kind", "path", "sha256")}
            for bench, d in (run.meta.get("data") or {}).items()}
    tree = redact_tree({"suite": identity, "data": data, "config": run.config})
    return {clean_key(key): value for key, value in flatten(tree).items()}


def flatten(node: Any, prefix: str = "") -> dict[str, str]:
    """Dotted keys to text values (a list as JSON; an empty mapping as `{}`)."""
    if isinstance(node, dict) and node:
        return {k: v for key, value in node.items() for k, v in flatten(value, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): node if isinstance(node, str) else json.dumps(node)}


def clean_key(key: str) -> str:
    """A key both libraries accept: letters, digits and `_-./ ` kept, anything else as `_`."""
    return re.sub(r"[^\w\-./ ]", "_", key)


def folder(run: RunInfo) -> Run:
    """The run folder through the Python API (imported when first needed: every command loads the plugins)."""
    from suite.api import load

    return load(run.path)


def final_metrics(run: RunInfo) -> dict[str, float]:
    """The headline metrics of the run's report (`suite.load(path).report()`, the `suite report --format json`
    object) as `<benchmark>/<metric>` with `_ci_low`, `_ci_high` and `_n` beside each, plus each benchmark's episode
    and outcome counts; a report of several rows (labels) prefixes each row's with its position."""
    rows = folder(run).report()["rows"]
    found: dict[str, float] = {}
    for index, row in enumerate(rows):
        prefix = f"row{index}/" if len(rows) > 1 else ""
        for bench, cell in row["benchmarks"].items():
            found[f"{prefix}{bench}/episodes"] = float(cell["episodes"])
            for outcome, count in cell.get("outcomes", {}).items():
                found[f"{prefix}{bench}/outcome/{outcome}"] = float(count)
            for metric, stats in cell["metrics"].items():
                base = f"{prefix}{bench}/{metric}"
                for field, suffix in (("mean", ""), ("ci_low", "_ci_low"), ("ci_high", "_ci_high"), ("n", "_n")):
                    if stats.get(field) is not None:
                        found[clean_key(base + suffix)] = float(stats[field])
    return found


def episode_table(run: RunInfo) -> tuple[list[str], list[list[Any]]]:
    """Every finished episode of the run (a resumed run's earlier ones too) as columns and rows: the record's
    outcome fields, then one `metric.<name>` column per metric any episode has."""
    records = folder(run).records()
    metrics = sorted({name for record in records for name in (record.get("metrics") or {})})
    columns = [*EPISODE_COLUMNS, *(f"metric.{name}" for name in metrics)]
    rows = [[record.get(c) for c in EPISODE_COLUMNS] + [_cell((record.get("metrics") or {}).get(m)) for m in metrics]
            for record in records]
    return columns, rows


def _cell(value: Any) -> Any:
    """A metric value as a table cell: a number or text as it is, anything else as JSON."""
    return value if value is None or isinstance(value, int | float | str) else json.dumps(value)


def report_site(run: RunInfo, use: Callable[[Path], None]) -> None:
    """Build the run's HTML report (`suite.load(path).site`) in a temporary folder and hand the folder to `use`."""
    with tempfile.TemporaryDirectory(prefix="suite-report-") as out:
        folder(run).site(out)
        use(Path(out))


def saved_id(root: Path, name: str) -> str | None:
    """The tracker run id kept in the run folder for tracker `name`, if a start saved one."""
    try:
        found = json.loads((root / IDS_FILE).read_text(encoding="utf-8")).get(name)
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, str) else None


def save_id(root: Path, name: str, run_id: str) -> None:
    """Keep tracker `name`'s run id in the run folder (written whole, then renamed into place)."""
    path = root / IDS_FILE
    try:
        ids = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        ids = {}
    ids = {**(ids if isinstance(ids, dict) else {}), name: run_id}
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(ids, indent=1, sort_keys=True), encoding="utf-8")
    partial.replace(path)
