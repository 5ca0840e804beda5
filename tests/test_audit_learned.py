"""Learned shortcut baselines (issue 34): the cross-fitting, the audit of a toy whose text gives the answer away
(it must fail) and of the same toy without the leak (it must pass), and verdicts by interval."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
import toy_choice
from omegaconf import OmegaConf
from suite.cli.main import main
from suite.contract.errors import ConfigError
from suite.contract.records import FOLD_GROUP, Action, Image, Observation, StepRecord, Task
from suite.contract.registry import BenchmarkSpec, Metric, Reading, ShortcutBaseline
from suite.engine.host import PluginHost, build_host, default_config
from suite.validity.auditor import FAIL, PASS, TOO_FEW, audit_benchmark, verdict, wilson
from suite.validity.baselines import baseline_config, baseline_settings, baselines_of, check_baseline, solving_baselines
from suite.validity.learned import assign_folds, plan_folds, reading
from suite_template.plugin import learn_offset


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> PluginHost:
    """A host with the toy benchmarks (also in the CLI's host), the toy's fit and score logs emptied."""
    monkeypatch.setenv("SUITE_PLUGIN_MODULES", "template=suite_template.plugin,toy=toy_choice")
    toy_choice.FITS.clear()
    toy_choice.SCORED.clear()
    return build_host()


def _audit(capsys: pytest.CaptureFixture[str], bench: str, *args: str) -> tuple[int, dict]:
    code = main(["audit", "--plugins", bench, "--format", "json", "--jobs", "1", *args])
    return code, json.loads(capsys.readouterr().out)


def test_a_learner_that_finds_the_leak_fails_the_audit(toy: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, result = _audit(capsys, "toy-leaky")
    assert code == 1 and result["passed"] is False
    (learned,) = result["benchmarks"][0]["baselines"]
    assert (learned["kind"], learned["reads"], learned["folds"], learned["blind"]) == ("learned", ["text"], 5, True)
    (row,) = learned["rows"]
    assert row["n"] == toy_choice.TASKS and row["score"] > 90 and row["ci95"][0] > row["ceiling"] == 35.0
    assert (row["verdict"], row["passed"], learned["passed"]) == (FAIL, False, False)


def test_the_same_learner_on_the_toy_without_the_leak_passes(toy: PluginHost,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, result = _audit(capsys, "toy-clean")
    assert code == 0 and result["passed"] is True
    (row,) = result["benchmarks"][0]["baselines"][0]["rows"]
    assert row["ci95"][1] <= 35.0 and (row["verdict"], row["passed"]) == (PASS, True)
    assert result["benchmarks"][0]["oracle"] == 100.0


def test_every_task_is_scored_once_by_a_policy_fitted_without_it(toy: PluginHost, tmp_path: Path) -> None:
    cfg = default_config(["toy-clean"], toy)
    OmegaConf.update(cfg, "run.limit", 50)
    figures = audit_benchmark(toy, cfg, "toy-clean", tmp_path, names=["text-learner"])
    sample = {f"q{n:03d}" for n in range(toy_choice.TASKS)}
    scored = Counter(task_id for task_id, _ in toy_choice.SCORED)
    assert figures["baselines"][0]["rows"][0]["n"] == 50 and len(scored) == 50 and set(scored.values()) == {1}
    assert set(scored) <= sample
    fitted_on = dict(toy_choice.FITS)
    assert len(fitted_on) == 5  # one fit per fold
    for task_id, fit in toy_choice.SCORED:
        assert task_id not in fitted_on[fit]
        # fitted on the whole pack but the held-out fold: every other task
        assert len(fitted_on[fit]) >= toy_choice.TASKS * 4 // 5 - 1
    assert sorted(p.name for p in (tmp_path / "toy-clean" / "text-learner").iterdir()) == [
        f"fold-{k}" for k in range(5)]


def test_folds_are_stable_under_a_seed_and_balanced() -> None:
    ids = [f"t{n}" for n in range(103)]
    folds = assign_folds(ids, 5, seed=3)
    assert folds == assign_folds(list(reversed(ids)), 5, seed=3)  # the order the ids come in does not matter
    assert folds != assign_folds(ids, 5, seed=4)
    sizes = Counter(folds.values())
    assert sorted(sizes) == [0, 1, 2, 3, 4] and max(sizes.values()) - min(sizes.values()) <= 1


def test_tasks_of_one_fold_group_share_a_fold() -> None:
    ids = [f"t{n}" for n in range(40)]
    groups = {i: f"g{n // 4}" for n, i in enumerate(ids)}  # ten groups of four twins
    folds = assign_folds(ids, 5, seed=3, groups=groups)
    for group in set(groups.values()):
        assert len({folds[i] for i in ids if groups[i] == group}) == 1
    assert sorted(Counter(folds.values()).values()) == [8, 8, 8, 8, 8]  # two groups a fold
    assert assign_folds(ids, 5, seed=3, groups={}) == assign_folds(ids, 5, seed=3)  # no groups: by id


def test_fold_plans_keep_twins_together(toy: PluginHost, monkeypatch: pytest.MonkeyPatch) -> None:
    baseline = baselines_of(toy.benchmark("toy-leaky"))[0]
    cfg = baseline_config(default_config(["toy-leaky"], toy), baseline)
    loaded = list(toy.call("load_tasks", "toy-leaky", config=cfg.get("toy-leaky")))
    for n, task in enumerate(loaded):
        task.meta[FOLD_GROUP] = f"pair-{n // 2}"
    monkeypatch.setattr(toy, "call", lambda *args, **kwargs: loaded)
    for fold in plan_folds(toy, cfg, "toy-leaky", baseline):
        trained = {t.meta[FOLD_GROUP] for t in fold.train}
        assert not trained & {f"pair-{loaded.index(t) // 2}" for t in loaded if t.id in fold.scored}


def test_fold_plans_partition_the_sample(toy: PluginHost) -> None:
    baseline = baselines_of(toy.benchmark("toy-leaky"))[0]
    cfg = baseline_config(default_config(["toy-leaky"], toy), baseline)
    OmegaConf.update(cfg, "run.tasks", ["q001", "q002", "q003", "q100", "q399"])
    folds = plan_folds(toy, cfg, "toy-leaky", baseline)
    assert sorted(i for f in folds for i in f.scored) == ["q001", "q002", "q003", "q100", "q399"]
    for fold in folds:
        train = {t.id for t in fold.train}
        assert not train & set(fold.scored) and len(train) + len(fold.scored) < toy_choice.TASKS
    with pytest.raises(ConfigError, match="at least 2 tasks"):
        plan_folds(OneTask(), cfg, "toy-leaky", baseline)  # type: ignore[arg-type]  # it only loads the tasks


class OneTask:
    """A stand-in host whose benchmark has a single task: nothing to cross-fit on."""

    def call(self, hook: str, bench: str, **kwargs: object) -> list[Task]:
        return toy_choice.make_tasks(bench, count=1)


def test_a_policy_is_given_only_what_its_baseline_reads() -> None:
    task = Task("b", "t", {"answer": 2}, category="kitchen")
    observation = Observation(text="the text", images=[Image(label="frame")], data={"answer": 2})
    history = [StepRecord(0, Action(value=1, text="+1"), reply="ACTION: +1", feedback="now 1")]
    assert reading(("step",), task, observation, history) == Reading(step=1)
    full = reading(("text", "frames", "step", "category", "history"), task, observation, history)
    assert (full.text, [i.label for i in full.frames or ()], full.step, full.category, full.history) == (
        "the text", ["frame"], 1, "kitchen", (("ACTION: +1", "now 1"),))


@pytest.mark.parametrize(("value", "ci", "ceiling", "infra", "expected"), [
    (50.0, wilson(50.0, 2), 30.0, 0, TOO_FEW),  # the n = 2 rows of `--limit 28` that used to fail: [9, 91]
    (100.0, wilson(100.0, 40), 35.0, 0, FAIL),  # the interval lies above the ceiling
    (0.0, wilson(0.0, 40), 10.0, 0, PASS),  # at or below it: 0 of 40 bounds the rate below 8.76 %
    (0.0, wilson(0.0, 12), 5.0, 0, TOO_FEW),  # 0 of 12 cannot show a rate below 5 %
    (0.0, wilson(0.0, 40), None, 0, None),  # no ceiling: shown, never judged
    (0.0, wilson(0.0, 40), 10.0, 1, FAIL),  # an infra failure hides the score
    (3.0, None, 5.0, 0, PASS),  # a metric with no interval: the score alone
    (6.0, None, 5.0, 0, FAIL),
])
def test_a_row_fails_only_when_its_interval_lies_above_the_ceiling(
        value: float, ci: tuple[float, float] | None, ceiling: float | None, infra: int, expected: str | None) -> None:
    assert verdict(value, ci, ceiling, infra) == expected


def test_check_baseline_names_what_is_wrong_with_a_learned_one() -> None:
    spec = BenchmarkSpec("b", "", [Metric("s", "s")])
    good = ShortcutBaseline("l", "learned", learner=learn_offset, reads=("step",))
    assert check_baseline(spec, good) == [] and good.kind == "learned" and not good.sees_frames
    assert ShortcutBaseline("f", "fixed", model="scripted/x").kind == "fixed"
    bad = ShortcutBaseline("l", "d", learner=learn_offset, reads=("text", "answer"), folds=1, model="scripted/x",
                           blind=True)
    problems = check_baseline(spec, bad)
    assert len(problems) == 3
    assert "'answer'" in problems[0] and "folds" in problems[1] and "no model" in problems[2]
    assert "blind yet reads frames" in check_baseline(spec, replace(good, reads=("frames",), blind=True))[0]
    assert check_baseline(spec, replace(good, reads=()))  # it must say what it reads


def test_a_learned_baseline_without_frames_runs_blind() -> None:
    spec = BenchmarkSpec("b", "", [Metric("s", "s")], blind_config={"b.images": False})
    text_only = ShortcutBaseline("l", "d", learner=learn_offset, reads=("text",))
    assert baseline_settings(spec, text_only) == {"b.images": False}
    assert baseline_settings(spec, replace(text_only, reads=("text", "frames"))) == {}


def test_the_template_declares_a_learned_baseline_and_generators_leave_it_out() -> None:
    host = build_host()
    learned = [b for b in baselines_of(host.benchmark("counter")) if b.kind == "learned"]
    assert [(b.name, b.reads) for b in learned] == [("learned-offset", ("step",))]
    cfg = default_config(["counter"], host)
    task = Task("counter", "x", {"id": "x", "start": 2, "target": 2, "max_steps": 3}, max_steps=3)
    assert "learned-offset" not in solving_baselines(host, task, cfg)  # it needs the pack to fit on
    with pytest.raises(ConfigError, match="is learned"):
        solving_baselines(host, task, cfg, ["learned-offset"])


def test_the_plugin_kit_checks_that_a_learned_policy_replies_in_the_benchmarks_format(toy: PluginHost) -> None:
    from suite.testing import PluginConformance

    cfg = default_config(["toy-leaky"], toy)
    tasks = toy_choice.make_tasks("toy-leaky", count=8)
    baseline = baselines_of(toy.benchmark("toy-leaky"))[0]
    PluginConformance._check_learned(toy, "toy-leaky", baseline, tasks, cfg)
    mumbling = replace(baseline, learner=lambda train: lambda reading: "I think it is the second one")
    with pytest.raises(AssertionError, match="does not parse"):
        PluginConformance._check_learned(toy, "toy-leaky", mumbling, tasks, cfg)
