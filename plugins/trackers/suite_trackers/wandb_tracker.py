"""The Weights & Biases tracker (`run.trackers=[wandb]`, the `wandb` extra): one W&B run per suite run, its config the
run's parameters, a summary of the report's headline metrics with intervals, the episodes as a `wandb.Table`, the
HTML report as an artifact of type `report`. Settings `tracking.wandb.*`, else WANDB_PROJECT, WANDB_ENTITY,
WANDB_MODE and WANDB_DIR."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from suite.contract.records import EpisodeRecord
from suite.contract.runinfo import RunInfo

from suite_trackers.tracker import Tracker, episode_table, final_metrics, parameters, report_site, setting


class WandbTracker(Tracker):
    """Logs a run to Weights & Biases."""

    name = "wandb"

    def start(self, run: RunInfo, settings: dict[str, Any], resume_id: str | None) -> Any:
        """A new W&B run named after the run folder, or the resumed run's own (`resume_id`) continued."""
        import wandb

        return wandb.init(
            project=setting(settings, "project", "WANDB_PROJECT", "embodied-suite"),
            entity=setting(settings, "entity", "WANDB_ENTITY"),
            mode=setting(settings, "mode", "WANDB_MODE", "online"),  # type: ignore[arg-type]
            dir=setting(settings, "dir", "WANDB_DIR", str(run.path)),
            id=resume_id, resume="allow" if resume_id else None, name=run.run_id, job_type="evaluation",
            tags=run.benchmarks, config=parameters(run), allow_val_change=True, reinit="create_new",
            settings=wandb.Settings(console="off", quiet=True, x_disable_stats=True),
        )

    def run_id(self, handle: Any) -> str:
        """The W&B run's id."""
        return str(handle.id)

    def log_episode(self, handle: Any, record: EpisodeRecord) -> None:
        """The episode's success, steps and cost under its benchmark (one W&B step per episode)."""
        handle.log({f"{record.benchmark}/episode_success": float(record.outcome == "success"),
                    f"{record.benchmark}/episode_steps": record.steps,
                    f"{record.benchmark}/episode_cost_usd": record.cost_usd})

    def finish(self, handle: Any, run: RunInfo, status: str) -> None:
        """The headline metrics into the summary, the episode table, the HTML report artifact; then `finish`."""
        import wandb

        try:
            handle.summary.update({**final_metrics(run), "status": status})
            columns, rows = episode_table(run)
            headers: list[str | int] = [*columns]
            handle.log({"episodes": wandb.Table(columns=headers, data=rows, allow_mixed_types=True)})

            def upload(folder: Path) -> None:
                artifact = wandb.Artifact("report-" + re.sub(r"[^\w\-.]", "-", run.run_id), type="report",
                                          description=f"the HTML report of {run.path}")
                artifact.add_dir(str(folder))
                handle.log_artifact(artifact)

            report_site(run, upload)
        finally:
            handle.finish(exit_code=0 if status == "complete" else 1)


#: the plugin the `suite.plugins` entry point `wandb` names
tracker = WandbTracker()
