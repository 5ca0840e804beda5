"""The MLflow tracker (`run.trackers=[mlflow]`, the `mlflow` extra): one MLflow run per suite run, the run's
parameters as params, the report's headline metrics with intervals as metrics, the episodes as the table artifact
`episodes.json` ({"columns", "data"}), the HTML report under the artifact folder `report/`. Settings
`tracking.mlflow.*`, else MLFLOW_TRACKING_URI (MLflow's own default: sqlite:///mlflow.db) and
MLFLOW_EXPERIMENT_NAME."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from suite.contract.records import EpisodeRecord
from suite.contract.runinfo import RunInfo

from suite_trackers.tracker import (
    Tracker,
    episode_table,
    final_metrics,
    folder,
    parameters,
    report_site,
    setting,
)

#: the longest parameter value MLflow stores
MAX_PARAM_CHARS = 6000


@dataclass
class MlflowRun:
    """An MLflow run being logged to: the client that reaches its store, its id, the episodes it has seen."""

    client: Any
    run_id: str
    episodes: int = 0


class MlflowTracker(Tracker):
    """Logs a run to MLflow."""

    name = "mlflow"

    def start(self, run: RunInfo, settings: dict[str, Any], resume_id: str | None) -> MlflowRun:
        """A new MLflow run named after the run folder in the configured experiment, or the resumed run's own
        (`resume_id`) reopened; params it already holds are kept (MLflow never changes a logged param)."""
        from mlflow import MlflowClient
        from mlflow.entities import Param

        client = MlflowClient(tracking_uri=setting(settings, "tracking_uri", "MLFLOW_TRACKING_URI"))
        if resume_id:
            client.update_run(resume_id, status="RUNNING")
            handle = MlflowRun(client, resume_id, len(folder(run).records()))
        else:
            name = setting(settings, "experiment", "MLFLOW_EXPERIMENT_NAME", "embodied-suite") or "embodied-suite"
            experiment = client.get_experiment_by_name(name)
            experiment_id = experiment.experiment_id if experiment else client.create_experiment(name)
            created = client.create_run(experiment_id, run_name=run.run_id,
                                        tags={"suite.run_folder": str(run.path), "suite.agent": run.agent})
            handle = MlflowRun(client, created.info.run_id)
        logged = client.get_run(handle.run_id).data.params
        client.log_batch(handle.run_id, params=[Param(key, value[:MAX_PARAM_CHARS])
                                                for key, value in parameters(run).items() if key not in logged])
        return handle

    def run_id(self, handle: MlflowRun) -> str:
        """The MLflow run's id."""
        return handle.run_id

    def log_episode(self, handle: MlflowRun, record: EpisodeRecord) -> None:
        """The episode's success, steps and cost under its benchmark, at step = episodes finished before it."""
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        values = {"episode_success": float(record.outcome == "success"), "episode_steps": float(record.steps),
                  "episode_cost_usd": float(record.cost_usd)}
        handle.client.log_batch(handle.run_id, metrics=[Metric(f"{record.benchmark}/{key}", value, now,
                                                               handle.episodes) for key, value in values.items()])
        handle.episodes += 1

    def finish(self, handle: MlflowRun, run: RunInfo, status: str) -> None:
        """The headline metrics, the episode table, the HTML report; then the run ends (FINISHED when complete,
        else KILLED, the suite's status in the tag `suite.status`)."""
        from mlflow.entities import Metric

        client, run_id = handle.client, handle.run_id
        try:
            now = int(time.time() * 1000)
            client.log_batch(run_id, metrics=[Metric(k, v, now, 0) for k, v in final_metrics(run).items()])
            columns, rows = episode_table(run)
            client.log_dict(run_id, {"columns": columns, "data": rows}, "episodes.json")

            def upload(site: Path) -> None:
                client.log_artifacts(run_id, str(site), "report")

            report_site(run, upload)
            client.set_tag(run_id, "suite.status", status)
        finally:
            client.set_terminated(run_id, "FINISHED" if status == "complete" else "KILLED")


#: the plugin the `suite.plugins` entry point `mlflow` names
tracker = MlflowTracker()
