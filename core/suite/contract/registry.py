"""What plugins declare through the `register` hook: benchmarks, agents, backends, data sources."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suite.contract.errors import PluginError
from suite.contract.extras import Requirement

if TYPE_CHECKING:
    from suite.contract.records import Image, Observation, Task
    from suite.engine.agents import Agent, AgentContext


@dataclass(frozen=True)
class Metric:
    """A headline metric of a benchmark: the per-episode `metrics[name]` averaged over episodes.

    With `macro_by`, the mean of the group means instead, episodes grouped by `metrics[macro_by]` (e.g. a mean
    over datasets, each dataset weighing the same), bootstrapped within the groups.

    `unit` names what a metric that is not a rate counts (e.g. `steps`): the report draws the paired differences of
    metrics of one unit on one chart (default: percentage points for a rate, else a unit of its own, the label)."""

    name: str
    label: str
    percent: bool = True
    higher_is_better: bool = True
    macro_by: str | None = None
    unit: str | None = None


class Cell(str):
    """A detail-table cell: the text the tables show, carrying the numbers behind it (the report's JSON gives them
    as numeric fields), e.g. `Cell("50.0 (n=4)", percent=50.0, n=4)`."""

    values: dict[str, float | int | None]

    def __new__(cls, text: str, **values: float | int | None) -> Cell:
        """A cell showing `text` whose numbers are `values`."""
        cell = super().__new__(cls, text)
        cell.values = values
        return cell


@dataclass
class DetailTable:
    """A per-benchmark table a plugin renders from its episode records (report detail view); a cell is text, a
    number, None, or a `Cell` (text with its numbers)."""

    title: str
    columns: list[str]
    rows: list[list[Any]]


#: The margin (percent points) over chance that a shortcut baseline may reach when it declares no ceiling of its own.
SHORTCUT_MARGIN = 5.0
#: The key of the whole pack in a per-stratum ceiling or chance mapping.
OVERALL = "*"


#: What a learned baseline's policy may be given at each step (`ShortcutBaseline.reads`), and what each part is.
READS = {
    "text": "the observation's text",
    "frames": "the observation's images",
    "step": "the step index (0 at the first step)",
    "category": "the task's category (Task.category)",
    "history": "its own earlier replies and the env's feedback to each",
}


@dataclass(frozen=True)
class Reading:
    """What a learned baseline's policy is given at one step: the parts its baseline `reads` (`READS`), every
    other part None."""

    text: str | None = None
    frames: tuple[Image, ...] | None = None
    step: int | None = None
    category: str | None = None
    history: tuple[tuple[str, str], ...] | None = None  # (its reply, the env's feedback) per earlier step


#: a fitted learned baseline: its reply to a step from what it may read, parsed by the benchmark's `parse_action`
LearnedPolicy = Callable[[Reading], str]
#: fits a learned baseline on the training tasks (labels included: they are the training data) and returns its policy
Learner = Callable[[Sequence["Task"]], LearnedPolicy]


@dataclass(frozen=True)
class ShortcutBaseline:
    """A policy that uses strictly less than the task needs; `suite audit` runs it over the pack.

    `ceiling` and `chance` are percent points of the audited metric, for the whole pack (a number, or the key
    `"*"` of a mapping) and per stratum (the other keys of a mapping: `str(BenchmarkSpec.strata(task))`). A row
    with no ceiling is shown but never fails the audit.

    With a `learner` it is a *learned* baseline: the audit cross-fits it (`folds` folds of the pack by a seeded
    hash of the task id; the learner is fitted on the other folds' tasks and its policy runs, through the runner,
    on the held-out fold's), so every task is scored once by a policy that never saw it; the policy is given only
    what `reads` names. A fixed baseline with a `limit` runs on a seeded, stratified subset of the audited sample."""

    name: str  # e.g. "stop-at-once", "blind-forward"
    description: str  # what it ignores and what it does
    model: str | None = None  # a litellm model string, usually "scripted/<name>" registered by the plugin
    agent: str = "direct"  # the agent it runs with (a plugin may register a baseline agent instead of a script)
    config: Mapping[str, Any] = field(default_factory=dict)  # setting overrides for its runs, {"vigil.feedback": False}
    ceiling: float | Mapping[str, float] = SHORTCUT_MARGIN  # highest allowed headline score, overall or per stratum
    chance: float | Mapping[str, float] | None = None  # the chance level of the metric, same keys
    metric: str | None = None  # the headline metric audited (default: the benchmark's first headline metric)
    #: True: it never reads a frame, so the audit runs it under the benchmark's `blind_config` (no frames rendered)
    blind: bool = False
    learner: Learner | None = None  # set: a learned baseline, fitted on part of the pack and scored on the rest
    reads: tuple[str, ...] = ()  # what a learned baseline's policy is given at each step: keys of READS
    folds: int = 5  # the folds a learned baseline is cross-fitted over
    #: at most this many tasks of the audited sample (a seeded, stratified subset), for a fixed baseline too slow to
    #: run on all of them (one that plays a benchmark's whole step budget); None: the whole sample
    limit: int | None = None

    @property
    def kind(self) -> str:
        """"learned" for a baseline fitted on part of the pack (it has a `learner`), else "fixed"."""
        return "fixed" if self.learner is None else "learned"

    @property
    def sees_frames(self) -> bool:
        """Whether it may read a frame: not when `blind`, nor when it is learned and its `reads` leave out frames."""
        return not self.blind and (self.learner is None or "frames" in self.reads)

    def ceiling_for(self, key: str) -> float | None:
        """The ceiling of the whole pack (`key` "*") or of one stratum; None where none is declared."""
        return level_for(self.ceiling, key)

    def chance_for(self, key: str) -> float | None:
        """The chance level of the whole pack (`key` "*") or of one stratum; None where none is declared."""
        return level_for(self.chance, key)


def level_for(value: float | Mapping[str, float] | None, key: str) -> float | None:
    """A ceiling's or chance level's value for `key`: a plain number holds for the whole pack only."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        found = value.get(key)
        return None if found is None else float(found)
    return float(value) if key == OVERALL else None


@dataclass
class BenchmarkSpec:
    """A benchmark as declared by its plugin."""

    name: str
    description: str
    headline: Sequence[Metric]
    plugin: str = ""
    detail_tables: Callable[[list[dict[str, Any]]], list[DetailTable]] | None = None
    #: the paper's published numbers, a JSON file valid against core/suite/jsonschemas/reference.schema.json, shown as
    #: `paper: <model>` rows by `suite report --reference` (docs/plugins.md)
    reference: Path | None = None
    resources: dict[str, float] = field(default_factory=lambda: {"num_cpus": 1})
    #: what one simulator needs under the benchmark's config section (e.g. a GPU with a real simulator backend);
    #: replaces `resources` for the Ray executor when given
    resources_for: Callable[[Any], dict[str, float]] | None = None
    #: what a run of this benchmark records in its metadata (`benchmark_meta.<name>`), from its config section:
    #: e.g. the SHA-256 of the rendered prompt template and the prompt profile
    run_metadata: Callable[[Any], dict[str, Any]] | None = None
    #: the optional packages its config section needs (e.g. `env.backend=ai2thor` needs the `thor` extra): given the
    #: section, the `Requirement`s it makes; a run whose requirement is not installed fails before it starts
    requires: Callable[[Any], Sequence[Requirement]] | None = None
    #: checks, before the run folder is made, what the selected tasks' episodes will read beyond the task itself
    #: (the files they open, the ids their goals and checklists name): `check_tasks(tasks, section)` raises a
    #: DataError naming the file and the JSON pointer of the first problem (what `load_tasks` cannot afford to check
    #: for every task of a pack, e.g. a house regenerated from its seed)
    check_tasks: Callable[[list[Task], Any], None] | None = None
    #: its simulator's calls are pure Python that finish in microseconds and never block: the local executor
    #: runs them on the event loop instead of handing each to a worker thread (a thread gives such code no
    #: parallelism under the GIL, and waking one costs more than the call)
    inline_env: bool = False
    #: its `parse_action` is pure Python, linear in the reply and never blocks: the `direct` agent parses a reply of
    #: at most `suite.engine.agents.INLINE_PARSE_CHARS` on the event loop (a bounded call, cheaper than a thread's
    #: wake-up) and only longer ones in a worker thread, where a slow parse stalls only its own episode
    inline_parse: bool = False
    #: the stratum of a task: `--limit` then draws a stratified sample that keeps each stratum's share
    #: (`suite.data.sampling.stratified_sample`) instead of a plain one
    strata: Callable[[Task], Hashable] | None = None
    #: a JSON Schema (a dict, or the Path of a .json file) of the benchmark's config section: every run checks the
    #: section against it before its first episode, so a bad setting fails in one line instead of in every episode
    config_schema: dict[str, Any] | Path | None = None
    #: the defaults of the benchmark's config section, shipped from the plugin's own package: a YAML file whose
    #: top-level key is the benchmark's name (and, beside it, `agent: {<agent>: {...}}` for the plugin's own agents),
    #: or the section as a dict; `<benchmark>.key=value` and `--config FILE` override them exactly as for the
    #: built-in plugins, and `config_schema` must describe every key of the section
    config_defaults: Path | dict[str, Any] | None = None
    #: whether its config sends the model images: given its config section, None when it sends none, else the
    #: setting that turns them off ('' when none does); a model that takes no images then fails before the run
    images: Callable[[Any], str | None] | None = None
    #: a valid reply to a step, for the offline baseline models `scripted/random` and `scripted/first-option`
    #: (and any script registered with `valid_reply=True`): `valid_reply(task, observation, rng)` is a complete
    #: reply that `parse_action` accepts, drawn with `rng` (a `random.Random`), or the first option when `rng`
    #: is None
    valid_reply: Callable[[Task, Observation, random.Random | None], str] | None = None
    #: how many times in all the `direct` agent asks the model for one step while its reply is empty (''): a
    #: harness that re-asks an empty reply before scoring the turn (AsgardBench's asks 3 times) sets it above 1
    empty_reply_attempts: int = 1
    #: where the benchmark's protocol itself ends an episode that makes no progress: the episode ends as `stalled`
    #: (the agent's failure) after this many identical failed actions in a row (`StepResult.failed`); None: its
    #: protocol has no such rule (`run.stall_limit` then sets one for a run that is not the paper's protocol)
    stall_limit: int | None = None
    #: named protocol presets (`--protocol NAME`): name -> a YAML file of settings (see suite.contract.protocols);
    #: `paper` is the paper's protocol, which every report row is labelled against
    protocols: dict[str, Path] = field(default_factory=dict)
    #: for `<benchmark>.model_preset: auto`: the preset the paper's protocol gives a model (None: the defaults), e.g.
    #: by whether the model reasons first; the run's saved config holds the choice
    model_preset_for: Callable[[str], str | None] | None = None
    #: the reply of a policy that does nothing: stop, report done or answer at once (or, where the benchmark has
    #: no such action, a reply that changes nothing); the generic `stop-at-once` baseline answers it every step
    stop_reply: Callable[[Task, Observation], str] | None = None
    #: the chance level of the headline metric in percent points (overall, or per stratum with the key "*" for
    #: the whole pack), for the generic baselines `stop-at-once` and `random`: their ceiling is chance + 5
    chance: float | Mapping[str, float] | None = None
    #: policies that use strictly less than the task needs, with their ceilings: `suite audit` runs them, and the
    #: generic `stop-at-once` and `random` besides unless one of these has that name (`suite.validity.baselines`)
    baselines: Sequence[ShortcutBaseline] = ()
    #: the category rows of `suite audit` (the keys of per-stratum ceilings): default `strata`, a tuple joined
    #: with "/"
    audit_by: Callable[[Task], Hashable] | None = None
    #: the seeded stratified sample `suite audit` takes without `--limit` or `--full` (None: every task), where a
    #: pass over every task would not fit the audit's time budget (bench/audit.py)
    audit_limit: int | None = None
    #: setting overrides under which the benchmark sends (and its env renders) no frames: `suite audit` and
    #: `suite.validity.baselines.baseline_episode` run every `blind` baseline under them, which must leave its scores
    #: unchanged (it never reads a frame) while sparing the rendering, {"vigil.images": False}
    blind_config: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class AgentSpec:
    """An agent: `direct` (model per step), a privileged oracle, a baseline, a reference agent..."""

    name: str
    factory: Callable[[AgentContext], Agent]
    description: str
    uses_model: bool = False
    benchmarks: tuple[str, ...] | None = None
    plugin: str = ""
    #: for an agent that builds its own prompts: given the run config, None when it sends the model no images, else
    #: the setting that turns them off ('' when none does); it replaces the benchmark's `images` for the vision check
    images: Callable[[Any], str | None] | None = None
    #: True when the agent hands the model the benchmark's `valid_reply` (the `direct` agent): only such an agent can
    #: be played by a script that answers with the benchmark's valid replies (`scripted/random`, `first-option`)
    valid_replies: bool = False
    #: a model that plays the agent offline (e.g. `scripted/holomind-rules`), named when a run is refused
    offline_model: str = ""
    #: given the run config, raises a one-line ConfigError before the run for settings the agent cannot serve
    check: Callable[[Any], None] | None = None


@dataclass
class DataSource:
    """Where a benchmark's data comes from: the official release (pullable) and the generated pack."""

    benchmark: str
    official: str
    pack_dir: Path | None = None
    pack_label: str = ""
    pull: Callable[[Path, Any], None] | None = None
    is_data_dir: Callable[[Path], bool] | None = None
    pack_manifest: str = "PACK.json"  # a data dir holding this file is a generated pack, wherever it was copied
    #: the official release's git blob ids (a manifest, see suite.data.official): a data dir is `official` only when
    #: every data file in it is one of them; without one, any data dir that is not a pack is `user` data
    official_blobs: Path | None = None
    plugin: str = ""


@dataclass
class ReportView:
    """Panels a benchmark adds to the HTML report's episode view (docs/report.md lists the panel kinds):
    `episode(record, events)` gives panels for the whole episode, `step(step, previous)` panels for one step
    (`previous` is the step before it, or the start event). Panels are plain data; the report renders them as text."""

    benchmark: str
    episode: Callable[[dict[str, Any], list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    step: Callable[[dict[str, Any], dict[str, Any]], list[dict[str, Any]]] | None = None
    plugin: str = ""


@dataclass
class Registry:
    """Collects declarations while plugins register; looked up by the core afterwards."""

    benchmarks: dict[str, BenchmarkSpec] = field(default_factory=dict)
    agents: dict[tuple[str, str | None], AgentSpec] = field(default_factory=dict)
    env_backends: dict[str, Callable[..., Any]] = field(default_factory=dict)
    env_backend_plugins: dict[str, str] = field(default_factory=dict)  # backend -> the plugin that declared it
    data_sources: dict[str, DataSource] = field(default_factory=dict)
    conformance: dict[str, Callable[..., dict[str, Any]]] = field(default_factory=dict)
    report_views: dict[str, list[ReportView]] = field(default_factory=dict)
    current_plugin: str = ""

    def add_benchmark(self, spec: BenchmarkSpec) -> None:
        """Declare a benchmark owned by the registering plugin."""
        if spec.name in self.benchmarks:
            owner = self.benchmarks[spec.name].plugin
            raise PluginError(f"benchmark {spec.name!r} is declared by both {owner!r} and {self.current_plugin!r}")
        spec.plugin = self.current_plugin
        self.benchmarks[spec.name] = spec

    def add_agent(self, spec: AgentSpec) -> None:
        """Declare an agent, for every benchmark or only for `spec.benchmarks`."""
        spec.plugin = self.current_plugin
        for bench in spec.benchmarks or (None,):
            self.agents[(spec.name, bench)] = spec

    def add_env_backend(self, name: str, factory: Callable[..., Any]) -> None:
        """Declare a simulator backend that benchmark plugins may select with `env.backend`."""
        self.env_backends[name] = factory
        self.env_backend_plugins[name] = self.current_plugin

    def add_data_source(self, source: DataSource) -> None:
        """Declare where a benchmark's official data and generated pack live."""
        source.plugin = self.current_plugin
        self.data_sources[source.benchmark] = source

    def add_conformance(self, benchmark: str, checker: Callable[..., dict[str, Any]]) -> None:
        """Declare a conformance checker: `checker(traces=Path, data_dir=Path) -> dict` (see docs)."""
        self.conformance[benchmark] = checker

    def add_report_view(self, view: ReportView) -> None:
        """Declare panels for a benchmark's episodes in the HTML report (several views per benchmark may exist)."""
        view.plugin = self.current_plugin
        self.report_views.setdefault(view.benchmark, []).append(view)

    def find_agent(self, name: str, benchmark: str) -> AgentSpec | None:
        """The agent `name` for `benchmark` (a benchmark-specific one first, else a general one), or None."""
        return self.agents.get((name, benchmark)) or self.agents.get((name, None))

    def agent(self, name: str, benchmark: str) -> AgentSpec:
        """The agent `name` for `benchmark`: a benchmark-specific one first, else a general one."""
        spec = self.find_agent(name, benchmark)
        if spec is None:
            known = sorted({n for (n, b) in self.agents if b in (None, benchmark)})
            raise PluginError(f"no agent {name!r} for benchmark {benchmark!r}; available: {', '.join(known)}")
        return spec
