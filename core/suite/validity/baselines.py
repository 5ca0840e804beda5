"""Shortcut baselines: the generic ones every benchmark gets, the `stop-at-once` agent, and running a baseline on
one task in this process (for pack generators that reject the episodes a baseline solves)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig, OmegaConf

from suite.contract import config as configmod
from suite.contract.errors import ConfigError
from suite.contract.records import Task
from suite.contract.registry import OVERALL, READS, SHORTCUT_MARGIN, BenchmarkSpec, ShortcutBaseline
from suite.engine.agents import STOP_AT_ONCE, AgentContext
from suite.engine.loop import EpisodeResult, TraceSink, run_episode
from suite.validity.learned import agent_name

if TYPE_CHECKING:
    from suite.engine.host import PluginHost

RANDOM = "random"


def _plus_margin(chance: float | Mapping[str, float] | None) -> float | dict[str, float]:
    """The ceiling of a generic baseline: chance + SHORTCUT_MARGIN (per key), or SHORTCUT_MARGIN with no chance."""
    if chance is None:
        return SHORTCUT_MARGIN
    if isinstance(chance, Mapping):
        return {key: float(value) + SHORTCUT_MARGIN for key, value in chance.items()}
    return float(chance) + SHORTCUT_MARGIN


def generic_baselines(spec: BenchmarkSpec) -> list[ShortcutBaseline]:
    """The baselines every benchmark gets from what it declares: `stop-at-once` (with `stop_reply`) and `random`
    (with `valid_reply`), both with the benchmark's `chance` and a ceiling of chance + 5 points; neither reads a
    frame (`blind`)."""
    generic = []
    if spec.stop_reply is not None:
        generic.append(ShortcutBaseline(
            STOP_AT_ONCE, "does nothing and ends at once: stops, reports done or answers without reading the task",
            agent=STOP_AT_ONCE, ceiling=_plus_margin(spec.chance), chance=spec.chance, blind=True))
    if spec.valid_reply is not None:
        generic.append(ShortcutBaseline(
            RANDOM, "a random valid reply at every step (scripted/random): never reads the observation",
            model="scripted/random", ceiling=_plus_margin(spec.chance), chance=spec.chance, blind=True))
    return generic


def baselines_of(spec: BenchmarkSpec) -> list[ShortcutBaseline]:
    """Every baseline `suite audit` runs on a benchmark: the generic ones it does not redeclare, then its own."""
    own = list(spec.baselines)
    names = {b.name for b in own}
    return [b for b in generic_baselines(spec) if b.name not in names] + own


def pick_baselines(spec: BenchmarkSpec, names: Iterable[str] | None = None) -> list[ShortcutBaseline]:
    """The benchmark's baselines named in `names` (all when None); a ConfigError naming an unknown one."""
    every = baselines_of(spec)
    if names is None:
        return every
    by_name = {b.name: b for b in every}
    wanted = list(names)
    unknown = [n for n in wanted if n not in by_name]
    if unknown:
        raise ConfigError(f"{spec.name} declares no baseline {', '.join(unknown)}; "
                          f"it has {', '.join(by_name) or 'none'}")
    return [by_name[n] for n in wanted]


def check_baseline(spec: BenchmarkSpec, baseline: ShortcutBaseline) -> list[str]:
    """What is wrong with a baseline declaration (empty when nothing): names, metric, levels, config keys."""
    problems = []
    if not baseline.name or not baseline.description:
        problems.append("a baseline needs a name and a description")
    metrics = [m.name for m in spec.headline]
    if baseline.metric is not None and baseline.metric not in metrics:
        problems.append(f"baseline {baseline.name!r}: metric {baseline.metric!r} is not a headline metric "
                        f"({', '.join(metrics)})")
    for what, value in (("ceiling", baseline.ceiling), ("chance", baseline.chance)):
        levels = value.values() if isinstance(value, Mapping) else [] if value is None else [value]
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in levels):
            problems.append(f"baseline {baseline.name!r}: {what} levels must be numbers >= 0 (percent points)")
    if baseline.limit is not None and (isinstance(baseline.limit, bool) or not isinstance(baseline.limit, int)
                                       or baseline.limit < 1):
        problems.append(f"baseline {baseline.name!r}: limit must be a whole number of tasks >= 1, "
                        f"not {baseline.limit!r}")
    if baseline.learner is not None:
        problems += _learned_problems(baseline)
    elif baseline.agent == "direct" and not baseline.model:
        problems.append(f"baseline {baseline.name!r}: the direct agent needs a model (e.g. scripted/<name>)")
    for key in baseline.config:
        if not isinstance(key, str) or "." not in key:
            problems.append(f"baseline {baseline.name!r}: config key {key!r} is not a dotted setting (bench.key)")
    for key in spec.blind_config:
        if not isinstance(key, str) or "." not in key:
            problems.append(f"blind_config key {key!r} is not a dotted setting (bench.key)")
    return problems


def _learned_problems(baseline: ShortcutBaseline) -> list[str]:
    """What is wrong with a learned baseline's declaration: what it reads, its folds, a model it cannot use."""
    problems = []
    unknown = [r for r in baseline.reads if r not in READS]
    if not baseline.reads or unknown or isinstance(baseline.reads, str):
        problems.append(f"learned baseline {baseline.name!r}: reads must name what its policy is given, some of "
                        f"{', '.join(READS)}" + (f" (not {', '.join(map(repr, unknown))})" if unknown else ""))
    if isinstance(baseline.folds, bool) or not isinstance(baseline.folds, int) or baseline.folds < 2:
        problems.append(f"learned baseline {baseline.name!r}: folds must be a whole number >= 2, "
                        f"not {baseline.folds!r}")
    if baseline.model or baseline.agent != "direct":
        problems.append(f"learned baseline {baseline.name!r}: its fitted policy is its agent; "
                        "declare no model or agent")
    if baseline.blind and "frames" in baseline.reads:
        problems.append(f"learned baseline {baseline.name!r} is blind yet reads frames")
    if baseline.limit is not None:
        problems.append(f"learned baseline {baseline.name!r} is cross-fitted over the whole sample; declare no limit")
    return problems


def metric_of(spec: BenchmarkSpec, baseline: ShortcutBaseline) -> str:
    """The headline metric a baseline is audited on."""
    return baseline.metric or spec.headline[0].name


def audit_key(spec: BenchmarkSpec, task: Task) -> str:
    """The category row of a task in the audit: its `audit_by` key, else its stratum (a tuple joined with '/'), or
    "*" with neither."""
    by = spec.audit_by or spec.strata
    if by is None:
        return OVERALL
    key = by(task)
    return "/".join(str(k) for k in key) if isinstance(key, tuple) else str(key)


def baseline_settings(spec: BenchmarkSpec | None, baseline: ShortcutBaseline) -> dict[str, Any]:
    """The setting overrides a baseline runs under: the benchmark's `blind_config` for one that never reads a frame
    (`blind`, or learned without `frames` in its `reads`), then its own."""
    blind = dict(spec.blind_config) if spec is not None and not baseline.sees_frames else {}
    return {**blind, **baseline.config}


def baseline_config(cfg: DictConfig, baseline: ShortcutBaseline, spec: BenchmarkSpec | None = None) -> DictConfig:
    """A copy of the run config with the baseline's agent (a learned one's: `learned/<name>`), model and setting
    overrides (`baseline_settings`; the benchmark's `blind_config` applies when `spec` is given), and no response
    cache."""
    out = configmod.copy_config(cfg)
    OmegaConf.update(out, "run.agent", baseline.agent if baseline.learner is None else agent_name(baseline))
    OmegaConf.update(out, "run.model", baseline.model)
    OmegaConf.update(out, "model.cache", False)  # baselines are free and re-run every audit: keep them out of it
    configmod.apply_overrides(out, [f"{key}={json.dumps(value)}"
                                    for key, value in baseline_settings(spec, baseline).items()])
    return out


def baseline_episode(host: PluginHost, task: Task, baseline: ShortcutBaseline, cfg: DictConfig) -> EpisodeResult:
    """Run one episode of `task` with `baseline` in this process and return it (no run folder, no trace): what a
    pack generator calls to test a candidate episode. `cfg` is a run config (`suite.contract.config.defaults`) whose
    benchmark section points at the candidate's data. Call it outside a running event loop. A learned baseline
    needs the rest of the pack to fit on, so it has no one-task episode: a ConfigError."""
    if baseline.learner is not None:
        raise ConfigError(f"baseline {baseline.name!r} is learned: it is fitted on the pack, so `suite audit` runs it, "
                          "not a one-task episode")
    run_cfg = baseline_config(cfg, baseline, host.benchmark(task.benchmark))
    spec = host.registry.agent(baseline.agent, task.benchmark)
    model = None
    if spec.uses_model:
        from suite.models import benchmark_model_defaults, client_from_config

        if not baseline.model:
            raise ConfigError(f"baseline {baseline.name!r} runs the {baseline.agent} agent, which needs a model")
        model = client_from_config(run_cfg, benchmark_model_defaults(run_cfg.get(task.benchmark), task.benchmark))
    agent = spec.factory(AgentContext(host, task.benchmark, run_cfg, model))
    section = run_cfg.get(task.benchmark) or OmegaConf.create({})
    return asyncio.run(run_episode(host, task, agent, section, TraceSink()))


def baseline_scores(host: PluginHost, task: Task, cfg: DictConfig,
                    names: Iterable[str] | None = None) -> dict[str, float | None]:
    """Each baseline's audited metric on one task (the episode's `metrics[metric]`, booleans as 0/1; None when
    the episode ended in an infra failure): a pack generator rejects a candidate on which one scores above 0.
    Learned baselines are left out unless named (they fit on the pack; named, a ConfigError)."""
    from suite.report.compare import metric_value

    spec = host.benchmark(task.benchmark)
    scores = {}
    for baseline in pick_baselines(spec, names):
        if baseline.learner is not None and names is None:
            continue
        result = baseline_episode(host, task, baseline, cfg)
        record = {"outcome": result.settlement.outcome, "metrics": result.settlement.metrics}
        scores[baseline.name] = metric_value(record, metric_of(spec, baseline))
    return scores


def solving_baselines(host: PluginHost, task: Task, cfg: DictConfig, names: Iterable[str] | None = None,
                      above: float = 0.0) -> list[str]:
    """The baselines whose audited metric on `task` is above `above` (a generator redraws such a candidate)."""
    return [name for name, score in baseline_scores(host, task, cfg, names).items()
            if score is not None and score > above]
