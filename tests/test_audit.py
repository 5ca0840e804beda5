"""`suite audit` and the shortcut-baseline contract, on the template plugin's `counter` benchmark (12 tasks, none
starting on its target, so a policy that says DONE at once solves none)."""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from omegaconf import OmegaConf
from suite.cli import audit as audit_command
from suite.cli.main import main
from suite.contract.records import Task
from suite.contract.registry import BenchmarkSpec, Metric, ShortcutBaseline, level_for
from suite.engine import runner
from suite.engine.host import PluginHost, build_host, default_config
from suite.validity.auditor import interval, pack_audit, plan_benchmark, score, wilson
from suite.validity.baselines import baseline_config, baseline_settings, baselines_of, check_baseline, solving_baselines
from suite_template.plugin import HERE as TEMPLATE_DIR

GREEDY = ShortcutBaseline("greedy", "reads the number and the target (not a shortcut: it must fail the audit)",
                          model="scripted/counter-greedy", ceiling=5.0, chance=0.0)


def _audit_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["audit", "--plugins", "template", "--format", "json", "--jobs", "1", *args])
    return code, json.loads(capsys.readouterr().out)


def test_template_audit_passes_with_the_generic_and_declared_baselines(capsys: pytest.CaptureFixture[str]) -> None:
    code, result = _audit_json(capsys)
    assert code == 0 and result["passed"] is True
    (bench,) = result["benchmarks"]
    assert bench["benchmark"] == "counter" and bench["oracle"] == 100.0
    assert [b["name"] for b in bench["baselines"]] == ["stop-at-once", "random", "always-plus", "learned-offset"]
    stop = bench["baselines"][0]["rows"][0]
    # Wilson: 0 of 12 bounds the rate below 24.25 %, which holds the 5-point ceiling: too few to tell, not a failure
    assert stop == {**stop, "key": "*", "n": 12, "score": 0.0, "chance": 0.0, "ceiling": 5.0, "oracle": 100.0,
                    "verdict": "too few", "passed": None, "ci95": [0.0, 24.25]}
    assert bench["baselines"][0]["passed"] is True and bench["baselines"][0]["kind"] == "fixed"


def test_a_baseline_above_its_ceiling_fails_the_audit(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def host_with_greedy() -> PluginHost:
        host = build_host()
        host.registry.benchmarks["counter"].baselines = [GREEDY]
        return host

    monkeypatch.setattr(audit_command, "build_host", host_with_greedy)
    code, result = _audit_json(capsys, "--baselines", "greedy")
    assert code == 1 and result["passed"] is False
    (row,) = result["benchmarks"][0]["baselines"][0]["rows"]
    assert (row["score"], row["ceiling"], row["verdict"], row["passed"]) == (100.0, 5.0, "fail", False)
    assert main(["audit", "--plugins", "template", "--baselines", "greedy", "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "audit failed: counter/greedy" in out


@pytest.mark.parametrize("args", [["--plugins", "nosuchplugin"], ["--plugins", "template", "--limit", "0"],
                                  ["--plugins", "template", "--baselines", "nosuch"],
                                  ["--plugins", "template", "--format", "xml"],
                                  ["--plugins", "template", "--jobs", "0"],
                                  ["--plugins", "template", "--limit", "2", "--full"]])
def test_bad_input_exits_2(args: list[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        raise SystemExit(main(["audit", *args]))
    assert stopped.value.code == 2


def test_limit_samples_and_out_keeps_the_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    code, result = _audit_json(capsys, "--limit", "5")
    assert code == 0 and result["benchmarks"][0]["sample"] == {"limit": 5, "seed": 0, "episodes": 5, "available": 12}
    assert list(scratch.iterdir()) == []  # the scratch runs are gone
    assert main(["audit", "--plugins", "template", "--limit", "3", "--jobs", "2", "--out", str(tmp_path / "kept")]) == 0
    assert sorted(p.name for p in (tmp_path / "kept" / "counter").iterdir()) == [
        "always-plus", "learned-offset", "oracle", "random", "stop-at-once"]
    # the learned baseline, cross-fitted in a worker process: one run per fold that scores a task of the sample
    folds = sorted(p.name for p in (tmp_path / "kept" / "counter" / "learned-offset").iterdir())
    assert folds and len(folds) <= 3 and all(name.startswith("fold-") for name in folds)


def test_table_lists_each_baseline_beside_chance_ceiling_and_oracle(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--plugins", "template", "--limit", "4", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "audit passed" in out
    assert "counter: a seeded stratified sample of 4 of 12 tasks (seed 0; --full runs every task)" in out
    line = next(ln for ln in out.splitlines() if "stop-at-once" in ln)
    assert [c.strip() for c in line.strip("│┃ ").split("│")][2:] == ["all", "4", "0.0", "0.0-49.0", "0.0", "5.0",
                                                                     "100.0", "too few"]
    assert "rows with too few episodes to tell" in out


def test_a_row_that_the_whole_pack_cannot_decide_says_undecided(capsys: pytest.CaptureFixture[str]) -> None:
    """Over every task of the pack more episodes do not exist: a row whose interval holds its ceiling is
    `undecided`, and the summary does not advise --full."""
    assert main(["audit", "--plugins", "template", "--full", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "counter: every task (12)" in out
    line = next(ln for ln in out.splitlines() if "stop-at-once" in ln and "│ all" in ln)
    assert line.strip("│┃ ").split("│")[-1].strip() == "undecided"
    assert "undecided (the 95 % interval holds the ceiling over every task of the pack" in out
    assert "--full or a larger --limit" not in out


def test_levels_per_stratum_and_overall() -> None:
    assert level_for(5.0, "*") == 5.0 and level_for(5.0, "kitchen") is None
    assert level_for({"*": 30, "aitw": 40}, "aitw") == 40.0 and level_for({"*": 30}, "aitw") is None
    assert level_for(None, "*") is None


def test_score_is_the_macro_mean_where_the_metric_has_one() -> None:
    spec = BenchmarkSpec("b", "", [Metric("acc", "acc", macro_by="ds"), Metric("n", "n", percent=False)])
    records = [{"outcome": "success", "metrics": {"acc": True, "ds": "x", "n": 2}},
               {"outcome": "agent_failure", "metrics": {"acc": False, "ds": "x", "n": 4}},
               {"outcome": "agent_failure", "metrics": {"acc": False, "ds": "x", "n": 0}},
               {"outcome": "success", "metrics": {"acc": True, "ds": "y", "n": 0}},
               {"outcome": "env_error", "metrics": {"acc": True, "ds": "y"}}]  # infra: left out
    assert score(spec, "acc", records) == (pytest.approx(100 * (1 / 3 + 1) / 2), 4)
    assert score(spec, "n", records) == (1.5, 4)
    assert score(spec, "acc", []) == (None, 0)


def test_generic_baselines_follow_the_spec_and_yield_to_declared_names() -> None:
    bare = BenchmarkSpec("b", "", [Metric("s", "s")])
    assert baselines_of(bare) == []
    with_replies = BenchmarkSpec("b", "", [Metric("s", "s")], valid_reply=lambda t, o, r: "x",
                                 stop_reply=lambda t, o: "stop", chance={"*": 25.0, "k": 50.0})
    stop, rand = baselines_of(with_replies)
    assert (stop.name, stop.agent, stop.ceiling) == ("stop-at-once", "stop-at-once", {"*": 30.0, "k": 55.0})
    assert (rand.name, rand.model, rand.chance_for("k")) == ("random", "scripted/random", 50.0)
    own = ShortcutBaseline("random", "my own random", model="scripted/mine", ceiling=1.0)
    with_replies.baselines = [own]
    assert [b.description for b in baselines_of(with_replies)] == [stop.description, "my own random"]


def test_check_baseline_names_what_is_wrong() -> None:
    spec = BenchmarkSpec("b", "", [Metric("s", "s")])
    assert check_baseline(spec, GREEDY) == []
    problems = check_baseline(spec, ShortcutBaseline("x", "d", metric="nope", ceiling={"*": -1}, config={"k": 1}))
    assert len(problems) == 4
    assert "metric 'nope'" in problems[0] and "ceiling" in problems[1]
    assert "needs a model" in problems[2] and "config key 'k'" in problems[3]


def test_solving_baselines_flags_a_candidate_that_stopping_solves() -> None:
    host = build_host()
    cfg = default_config(sorted(host.registry.benchmarks))
    on_target = Task("counter", "x", {"id": "x", "start": 2, "target": 2, "max_steps": 3}, max_steps=3)
    off_target = Task("counter", "y", {"id": "y", "start": 0, "target": 2, "max_steps": 3}, max_steps=3)
    assert solving_baselines(host, on_target, cfg, ["stop-at-once", "always-plus"]) == ["stop-at-once"]
    assert solving_baselines(host, off_target, cfg, ["stop-at-once", "always-plus"]) == []


def test_pack_audit_writes_the_figures_into_the_manifest(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(TEMPLATE_DIR / "data", pack)
    (pack / "PACK.json").write_text(json.dumps({"generator": "test", "seed": 0}), encoding="utf-8")
    host = build_host()
    figures = pack_audit(host, default_config(sorted(host.registry.benchmarks)), "counter", pack)
    manifest = json.loads((pack / "PACK.json").read_text(encoding="utf-8"))
    assert manifest["generator"] == "test" and figures["passed"] is True
    audit = manifest["audit"]
    assert audit["passed"] is True and audit["oracle"] == 100.0 and audit["sample"]["episodes"] == 12
    assert audit["baselines"]["stop-at-once"]["rows"]["*"] == {"n": 12, "score": 0.0, "ci95": [0.0, 24.25],
                                                               "chance": 0.0, "ceiling": 5.0, "verdict": "too few"}
    assert audit["baselines"]["learned-offset"]["kind"] == "learned"


def test_the_table_exits_0_when_every_baseline_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--plugins", "template", "--limit", "2", "--jobs", "1"]) == 0
    assert "audit passed: no baseline above its ceiling" in capsys.readouterr().out


def test_wilson_and_normal_intervals_by_hand() -> None:
    # Wilson, z = 1.96: 0 of 40 -> [0, z^2 / (n + z^2)] = [0, 3.8415 / 43.8415]
    assert wilson(0.0, 40) == (0.0, 8.76)
    assert wilson(50.0, 4) == (15.0, 85.0)
    assert wilson(None, 0) is None and wilson(10.0, 0) is None
    spec = BenchmarkSpec("b", "", [Metric("gc", "gc"), Metric("steps", "steps", percent=False)])
    fractions = [{"outcome": "agent_failure", "metrics": {"gc": v, "steps": 3}} for v in (0.0, 0.1, 0.2, 0.1)]
    # mean 10 %, sd 0.08165 -> half width 1.96 * 8.165 / 2 = 8.0 points
    assert interval(spec, "gc", fractions) == (2.0, 18.0)
    assert interval(spec, "steps", fractions) is None


def test_a_blind_baseline_runs_under_the_benchmarks_blind_config() -> None:
    host = build_host()
    cfg = default_config(sorted(host.registry.benchmarks))
    spec = host.benchmark("vigil")
    assert spec.blind_config == {"vigil.images": False}
    blind = ShortcutBaseline("b", "d", model="scripted/random", blind=True, config={"vigil.feedback": True})
    assert baseline_settings(spec, blind) == {"vigil.images": False, "vigil.feedback": True}
    assert baseline_settings(spec, replace(blind, blind=False)) == {"vigil.feedback": True}
    assert baseline_config(cfg, blind, spec).vigil.images is False
    assert baseline_config(cfg, blind).vigil.images is True  # without the spec: its own settings only
    assert all(b.blind for b in baselines_of(BenchmarkSpec("x", "", [Metric("s", "s")], valid_reply=lambda t, o, r: "",
                                                                 stop_reply=lambda t, o: "")))


def test_every_baseline_runs_the_shared_sample_of_its_categories(tmp_path: Path) -> None:
    """A baseline declared for one Vigil family runs the sample's episodes of that family, not a sample of its own."""
    host = build_host()
    cfg = default_config(sorted(host.registry.benchmarks))
    runner.resolve_data(host, cfg, ["vigil"])
    OmegaConf.update(cfg, "run.limit", 16)
    plan = plan_benchmark(host, cfg, "vigil", tmp_path)
    assert plan.available == 1000 and len(plan.ids) == 16 and plan.limit == 16
    jobs = {(j.baseline.name if j.baseline else "oracle"): j for j in plan.jobs}
    assert all(list(j.cfg["run"]["tasks"]) == plan.ids and j.cfg["run"]["limit"] is None for j in jobs.values())
    family = {t.id: t.category for t in host.call("load_tasks", "vigil", config=cfg.vigil)}
    pg = [i for i in plan.ids if family[i] == "PG"]
    assert len(pg) == 2  # 16 of 8 families x 125
    centre = OmegaConf.create(jobs["vigil-blind-centre-click"].cfg)
    tasks, _ = runner.plan_tasks(host, centre, ["vigil"])
    assert sorted(t.id for t in tasks) == sorted(pg) and centre.vigil.images is False
    assert OmegaConf.create(jobs["oracle"].cfg).vigil.images is True


def test_markdown_gives_a_readme_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--plugins", "template", "--limit", "4", "--jobs", "1", "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("counter: a seeded stratified sample of 4 of 12 tasks (seed 0; --full runs every task); "
                        "oracle 100.0.")
    assert lines[2] == "| baseline | category | n | score | 95% CI | chance | ceiling | oracle | verdict |"
    assert "| stop-at-once | all | 4 | 0.0 | 0.0-49.0 | 0.0 | 5.0 | 100.0 | too few |" in lines


def test_a_baseline_with_a_limit_runs_a_stratified_subset_of_the_sample(monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A slow baseline (one that plays a whole step budget) declares `limit`: it runs that many of the audited
    sample's tasks, chosen as the sample is; the others run the whole sample."""
    slow = replace(GREEDY, name="slow-greedy", limit=3)

    def host_with_slow() -> PluginHost:
        host = build_host()
        host.registry.benchmarks["counter"].baselines = [slow, *host.registry.benchmarks["counter"].baselines]
        return host

    monkeypatch.setattr(audit_command, "build_host", host_with_slow)
    code, result = _audit_json(capsys, "--baselines", "slow-greedy,stop-at-once")
    rows = {b["name"]: b["rows"][0] for b in result["benchmarks"][0]["baselines"]}
    assert rows["slow-greedy"]["n"] == 3 and rows["stop-at-once"]["n"] == 12
    assert code == 1 and rows["slow-greedy"]["verdict"] == "fail"  # 3 of 3 solved: [43.9, 100] is over 5
    spec = BenchmarkSpec("b", "", [Metric("s", "s")])
    assert "limit must be a whole number" in check_baseline(spec, replace(GREEDY, limit=0))[0]
