"""The Python API (`suite.run`, `suite.load`, `Run.report`, `Run.to_pandas`, `suite.arun`, `suite.resume`,
`suite.validate`, `suite.audit`): the CLI's code path with plain arguments, the CLI's typed errors."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import suite
from suite.cli.main import main
from suite.contract import extras
from suite.contract.errors import ConfigError, PluginError, SuiteError
from suite.store.run_folder import RunStore

REPO = Path(__file__).resolve().parents[1]
TIMINGS = {"duration_s", "agent_s", "env_s", "latency_s", "run"}
GREEDY = {"model": "scripted/counter-greedy", "limit": 5, "seed": 3}


def _stable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in TIMINGS} for r in records]


def _cli_report(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["report", str(root), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_api_run_equals_the_cli_run_on_the_same_seed(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    cli, api = tmp_path / "cli", tmp_path / "api"
    assert main(["run", "--plugins", "template", "--model", GREEDY["model"], "--limit", "5", "--seed", "3",
                 "--out", str(cli), "--no-report", "counter.max_steps_slack=0"]) == 0
    capsys.readouterr()
    run = suite.run("template", **GREEDY, out=api, overrides={"counter.max_steps_slack": 0}, progress=False)
    assert capsys.readouterr().out == ""  # the API prints nothing on standard output
    assert run.root == api and run.status == "complete" and run.stop_cause is None
    assert _stable(run.records()) == _stable(RunStore(cli).records())
    assert len(run.records()) == 5 and "max_steps_slack: 0" in (api / "config.yaml").read_text()
    ours, theirs = run.report(), _cli_report(cli, capsys)
    assert ours["rows"][0]["benchmarks"] == theirs["rows"][0]["benchmarks"]
    assert suite.load(api).report() == ours


def test_overrides_are_the_clis_key_values_and_errors_its_typed_exceptions(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="did you mean 'run.concurrency'"):
        suite.run("template", agent="oracle", out=tmp_path / "a", overrides={"run.concurency": 2})
    with pytest.raises(PluginError, match="unknown plugin 'nosuch'"):
        suite.run("nosuch", agent="oracle", out=tmp_path / "b")
    with pytest.raises(ConfigError, match="needs a model"):
        suite.run(["template"], out=tmp_path / "c")
    with pytest.raises(SuiteError, match="not a run folder"):
        suite.load(tmp_path)
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()
    run = suite.run("template", agent="oracle", tasks=["c01", "c02"], out=tmp_path / "d", progress=False,
                    overrides={"run.repeats": 2, "run.label": "a: b [c]"})
    assert sorted(r["task_id"] for r in run.records()) == ["c01 #1", "c01 #2", "c02 #1", "c02 #2"]
    assert run.meta["label"] == "a: b [c]"


def test_to_pandas_gives_the_episodes_and_the_headline_table(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    run = suite.run("template", agent="oracle", limit=4, out=tmp_path / "r", progress=False)
    episodes, headline = run.to_pandas()
    assert len(episodes) == 4 and set(episodes["outcome"]) == {"success"}
    assert "metric.success" in episodes.columns and episodes["run"].tolist() == [str(run.root)] * 4
    capsys.readouterr()
    assert main(["report", str(run.root), "--format", "csv"]) == 0
    cli_lines = capsys.readouterr().out.splitlines()
    assert len(headline) == len(cli_lines) - 1 and headline.loc[0, "benchmark"] == "counter"
    success = headline[headline["metric"] == "success"].iloc[0]
    assert (success["mean"], success["n"], success["episodes"]) == (1.0, 4, 4)
    monkeypatch.setattr(extras, "installed", lambda module: module != "pandas")
    with pytest.raises(ConfigError, match=r"needs the pandas extra .*embodied-suite\[pandas\]"):
        run.to_pandas()


def test_arun_runs_on_the_callers_loop_where_run_refuses(tmp_path: Path) -> None:
    async def notebook() -> tuple[suite.Run, str]:
        with pytest.raises(SuiteError, match=r"await suite.arun\(...\)") as refused:
            suite.run("template", agent="oracle", out=tmp_path / "never")
        return await suite.arun("template", agent="oracle", limit=3, out=tmp_path / "r", progress=False), \
            str(refused.value)

    run, refusal = asyncio.run(notebook())
    assert run.status == "complete" and len(run.records()) == 3
    assert not (tmp_path / "never").exists() and len(refusal.splitlines()) == 1


def test_resume_finishes_a_stopped_run(tmp_path: Path) -> None:
    priced = {"model.cache": False, "model.price_per_mtok.prompt": 10000}
    run = suite.run("template", model="scripted/counter-greedy", out=tmp_path / "r", overrides=priced,
                    max_cost=2, concurrency=2, progress=False)
    assert run.status == "stopped" and 0 < len(run.records()) < 12
    with pytest.raises(ConfigError, match="cannot change when a run is resumed") as refused:
        suite.resume(run, overrides={"run.seed": 5})
    # the refusal (kept, as a notebook keeps its last traceback) holds no lock on the run
    again = suite.resume(str(run.root), max_cost=1000, progress=False)
    assert again.status == "complete" and len(again.records()) == 12 and refused.traceback


def test_validate_and_audit_return_what_the_cli_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checked = suite.validate("template", limit=3, progress=False)
    assert checked.passed and checked.solved("counter") == (3, 3)
    audited = suite.audit("template", jobs=1)
    capsys.readouterr()
    assert main(["audit", "--plugins", "template", "--format", "json", "--jobs", "1"]) == 0
    assert _untimed(audited) == _untimed(json.loads(capsys.readouterr().out)) and audited["passed"] is True


def _untimed(value: Any) -> Any:
    """An audit's figures without its wall-clock `seconds`."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k != "seconds"}
    return [_untimed(v) for v in value] if isinstance(value, list) else value


def test_import_suite_loads_neither_litellm_nor_pandas_nor_the_api() -> None:
    code = ("import sys, suite; loaded = [m for m in ('litellm', 'pandas', 'suite.api') if m in sys.modules]; "
            "print(loaded, callable(suite.run), callable(suite.audit), suite.load.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "True", "True", "suite.api.runs"]


def test_the_example_script_runs(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(REPO / "examples" / "api.py"), str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "omniear" in done.stdout and "success" in done.stdout
    assert suite.load(tmp_path / "run").status == "complete"


def test_a_cancelled_arun_leaves_an_interrupted_run_that_resume_finishes(tmp_path: Path) -> None:
    from suite.models import register_script

    out = tmp_path / "r"

    async def cancelled() -> None:
        called = asyncio.Event()
        loop = asyncio.get_running_loop()

        def reply(messages: list[dict[str, Any]]) -> str:
            if not loop.is_closed():  # the resume below calls it after this loop is gone
                loop.call_soon_threadsafe(called.set)
            return "ACTION: +1"

        register_script("api-cancel", reply, latency_s=0.01)
        task = asyncio.create_task(suite.arun("template", model="scripted/api-cancel", out=out, progress=False,
                                              overrides={"model.cache": False}))
        await called.wait()  # the run is under way
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled())
    run = suite.load(out)
    assert run.status == "interrupted" and len(run.records()) < 12
    assert suite.resume(run, progress=False).status == "complete" and len(run.records()) == 12
