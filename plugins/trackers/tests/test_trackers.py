"""The W&B and MLflow trackers log a real run through the real libraries, offline, and what they logged reads back:
the run's parameters (credentials redacted, the data's SHA-256), the report's headline metrics with intervals, the
episode table, the HTML report; a resumed run continues the same tracker run; a failing tracker costs no episode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import suite
from suite.contract import extras
from suite.contract.errors import ConfigError

PLUGINS = ("template=suite_template.plugin,wandb=suite_trackers.wandb_tracker:tracker,"
           "mlflow=suite_trackers.mlflow_tracker:tracker")
#: a run the cost budget stops part-way (scripted replies at a price), so a resume has episodes left to run
PRICED = {"model.cache": False, "model.price_per_mtok.prompt": 10000, "model.params.api_key": "sk-test-secret-42"}


@pytest.fixture(autouse=True)
def _trackers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trackers registered as the built-in plugins are (in place of their entry points)."""
    monkeypatch.setenv("SUITE_PLUGIN_MODULES", PLUGINS)


def _stopped_then_resumed(out: Path, overrides: dict[str, Any]) -> suite.Run:
    """A run of the template stopped by its cost budget, then resumed to its end."""
    run = suite.run("template", model="scripted/counter-greedy", out=out, overrides={**PRICED, **overrides},
                    max_cost=2, concurrency=2, progress=False)
    assert run.status == "stopped" and 0 < len(run.records()) < 12
    resumed = suite.resume(run, max_cost=1000, progress=False)
    assert resumed.status == "complete" and len(resumed.records()) == 12
    return resumed


def _headline(run: suite.Run) -> dict[str, dict[str, Any]]:
    """The report's metrics of the template's benchmark (`counter`)."""
    metrics: dict[str, dict[str, Any]] = run.report()["rows"][0]["benchmarks"]["counter"]["metrics"]
    return metrics


def test_mlflow_logs_params_report_metrics_table_and_site_and_a_resume_continues_its_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.chdir(tmp_path)  # MLflow's SQLite store keeps artifacts under ./mlruns
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    run = _stopped_then_resumed(tmp_path / "run", {"run.trackers": ["mlflow"], "tracking.mlflow.tracking_uri": uri,
                                                   "tracking.mlflow.experiment": "suite-test"})
    client = mlflow.MlflowClient(uri)
    (logged,) = client.search_runs([client.get_experiment_by_name("suite-test").experiment_id])
    assert json.loads((run.root / "trackers.json").read_text())["mlflow"] == logged.info.run_id
    assert logged.info.status == "FINISHED" and logged.data.tags["suite.status"] == "complete"
    params = logged.data.params
    assert params["suite.run_id"] == run.root.name and params["config.run.seed"] == "0"
    assert params["data.counter.sha256"] == run.meta["data"]["counter"]["sha256"]
    assert params["config.model.params.api_key"] == "<redacted>"
    assert not [k for k, v in params.items() if "sk-test-secret-42" in v]
    success = _headline(run)["success"]
    for name, field in (("counter/success", "mean"), ("counter/success_ci_low", "ci_low"),
                        ("counter/success_ci_high", "ci_high"), ("counter/success_n", "n")):
        assert logged.data.metrics[name] == pytest.approx(success[field])
    assert logged.data.metrics["counter/episodes"] == 12
    steps = [m.step for m in client.get_metric_history(logged.info.run_id, "counter/episode_success")]
    assert sorted(steps) == list(range(12))  # the resume's episodes went on from the first part's
    assert {a.path for a in client.list_artifacts(logged.info.run_id)} == {"episodes.json", "report"}
    assert "report/index.html" in {a.path for a in client.list_artifacts(logged.info.run_id, "report")}
    table = mlflow.artifacts.load_dict(f"{logged.info.artifact_uri}/episodes.json")
    rows = [dict(zip(table["columns"], row, strict=True)) for row in table["data"]]
    assert sorted(r["episode_id"] for r in rows) == sorted(r["episode_id"] for r in run.records())
    assert {r["outcome"] for r in rows} == {r["outcome"] for r in run.records()} and "metric.success" in rows[0]


def _wandb_records(path: Path) -> Iterator[Any]:
    """The records of an offline run's `.wandb` file (a LevelDB-style log of protobuf records, 32 KiB blocks)."""
    from wandb.proto import wandb_internal_pb2

    data, pos, chunk = path.read_bytes(), 7, b""  # after the header `:W&B`, magic, version
    assert data[:4] == b":W&B"
    while pos + 7 <= len(data):
        room = 32768 - pos % 32768
        length, kind = int.from_bytes(data[pos + 4:pos + 6], "little"), data[pos + 6]
        if room < 7 or (length, kind) == (0, 0):  # a block's padding
            pos += room
            continue
        chunk, pos = chunk + data[pos + 7:pos + 7 + length], pos + 7 + length
        if kind in (1, 4):  # a whole record, or the last part of one
            record = wandb_internal_pb2.Record()
            record.ParseFromString(chunk)
            chunk = b""
            yield record


def _wandb_run(folder: Path) -> dict[str, Any]:
    """What an offline W&B run holds: its id, config, final summary, artifacts (name: files) and exit code."""
    found: dict[str, Any] = {"summary": {}, "artifacts": {}, "config": {}}
    for record in _wandb_records(next(folder.glob("*.wandb"))):
        kind = record.WhichOneof("record_type")
        if kind == "run":
            found["id"] = record.run.run_id
            found["config"] = {u.key: json.loads(u.value_json) for u in record.run.config.update}
        elif kind == "summary":
            found["summary"].update({u.key or "/".join(u.nested_key): json.loads(u.value_json)
                                     for u in record.summary.update})
        elif kind == "artifact":
            found["artifacts"][record.artifact.type] = [c.path for c in record.artifact.manifest.contents]
        elif kind == "exit":
            found["exit_code"] = record.exit.exit_code
    return found


def test_wandb_logs_offline_what_reads_back_and_a_resume_continues_its_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("wandb")
    for variable in ("WANDB_DIR", "WANDB_CACHE_DIR", "WANDB_DATA_DIR", "WANDB_CONFIG_DIR", "WANDB_ARTIFACT_DIR"):
        monkeypatch.setenv(variable, str(tmp_path / variable.lower()))
        (tmp_path / variable.lower()).mkdir()
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_PROJECT", "suite-test")
    run = _stopped_then_resumed(tmp_path / "run", {"run.trackers": ["wandb"]})
    wandb_id = json.loads((run.root / "trackers.json").read_text())["wandb"]
    first, second = (_wandb_run(d) for d in sorted((tmp_path / "wandb_dir" / "wandb").glob("offline-run-*")))
    assert first["id"] == second["id"] == wandb_id and (first["exit_code"], second["exit_code"]) == (1, 0)
    config = first["config"]  # (the resume was given no key: its config says `model.params: {}`)
    assert config["suite.run_id"] == run.root.name and config["config.model.params.api_key"] == "<redacted>"
    assert config["data.counter.sha256"] == run.meta["data"]["counter"]["sha256"]
    assert not [k for k, v in config.items() if "sk-test-secret-42" in str(v)]
    summary, success = second["summary"], _headline(run)["success"]
    assert summary["status"] == "complete" and summary["counter/episodes"] == 12
    assert (summary["counter/success"], summary["counter/success_ci_low"], summary["counter/success_ci_high"]) == \
        pytest.approx((success["mean"], success["ci_low"], success["ci_high"]))
    assert summary["episodes/_type"] == "table-file" and summary["episodes/nrows"] == 12
    assert "index.html" in second["artifacts"]["report"] and second["artifacts"]["run_table"]
    assert summary["counter/episode_success"] in (0, 1)  # the live per-episode values


def test_a_failing_tracker_warns_once_and_the_run_keeps_every_episode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    mlflow = pytest.importorskip("mlflow")
    from suite_trackers import mlflow_tracker

    def down(handle: Any, record: Any) -> None:
        raise ConnectionError("tracking server unreachable\nsecond line")

    monkeypatch.setattr(mlflow_tracker.tracker, "log_episode", down)
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow's local file store, in maintenance mode
    monkeypatch.setenv("MLFLOW_TRACKING_URI", (tmp_path / "mlruns").as_uri())
    run = suite.run("template", agent="oracle", limit=4, out=tmp_path / "run", progress=False,
                    overrides={"run.trackers": ["mlflow"]})
    assert run.status == "complete" and len(run.records()) == 4
    warned = [line for line in capsys.readouterr().err.splitlines() if "tracker mlflow" in line]
    assert warned == [f"warning: tracker mlflow: tracking server unreachable; the run goes on (its results are in "
                      f"{run.root})"]
    client = mlflow.MlflowClient()  # the run's end was still logged, from the environment's tracking URI
    logged = client.get_run(json.loads((run.root / "trackers.json").read_text())["mlflow"])
    assert logged.data.metrics["counter/success"] == 1.0 and logged.info.status == "FINISHED"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "nosuch://nowhere")  # the start fails: still every episode
    again = suite.run("template", agent="oracle", limit=2, out=tmp_path / "again", progress=False,
                      overrides={"run.trackers": ["mlflow"]})
    assert again.status == "complete" and len(again.records()) == 2
    assert "warning: tracker mlflow: " in capsys.readouterr().err


def test_trackers_are_off_by_default_and_a_missing_or_unknown_one_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = suite.run("template", agent="oracle", limit=1, out=tmp_path / "plain", progress=False)
    assert run.status == "complete" and not (run.root / "trackers.json").exists()
    loads = "from suite.engine.host import build_host; import sys; build_host(); print(sorted(sys.modules))"
    modules = subprocess.run([sys.executable, "-c", loads], capture_output=True, text=True, check=True,
                             env=os.environ).stdout
    assert "'wandb'" not in modules and "'mlflow'" not in modules  # every command loads the plugins: not the libraries
    unknown_name = r"run.trackers\[0\]: 'wandbb' is not one of wandb, mlflow; did you mean 'wandb'"
    with pytest.raises(ConfigError, match=unknown_name) as unknown:
        suite.run("template", agent="oracle", out=tmp_path / "a", overrides={"run.trackers": ["wandbb"]})
    monkeypatch.setattr(extras, "installed", lambda module: module not in ("wandb", "mlflow"))
    for name in ("wandb", "mlflow"):
        with pytest.raises(ConfigError, match=rf"run.trackers=\[{name}\] needs the {name} extra .*"
                                              rf"embodied-suite\[{name}\]") as missing:
            suite.run("template", agent="oracle", out=tmp_path / name, overrides={"run.trackers": [name]})
        assert len(str(missing.value).splitlines()) == 1
    assert len(str(unknown.value).splitlines()) == 1 and not (tmp_path / "a").exists()


def test_a_run_saved_before_the_trackers_existed_can_switch_one_on_when_resumed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mlflow = pytest.importorskip("mlflow")
    run = suite.run("template", agent="oracle", limit=2, out=tmp_path / "run", progress=False)
    saved = run.root / "config.yaml"
    old = [line for line in saved.read_text().splitlines() if "trackers:" not in line]
    cut = old.index("tracking:")
    rest = next(i for i in range(cut + 1, len(old)) if not old[i].startswith(" "))
    saved.write_text("\n".join(old[:cut] + old[rest:]) + "\n")  # as a folder of an earlier version saved it
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", (tmp_path / "mlruns").as_uri())
    resumed = suite.resume(run, overrides={"run.trackers": ["mlflow"]}, progress=False)
    logged = mlflow.MlflowClient().get_run(json.loads((resumed.root / "trackers.json").read_text())["mlflow"])
    assert logged.data.metrics["counter/episodes"] == 2 and logged.info.status == "FINISHED"
