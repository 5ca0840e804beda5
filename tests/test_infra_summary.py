"""A run that ends with infra failures says so: one line with the most common cause and the retry command, exit 5,
and a status that is not plain "complete" in `suite runs` and the reports (issue 20 item 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.models import load_litellm, register_script
from suite.store.infra import status_with_infra, summarize_infra
from suite.store.run_folder import RunStore
from suite_template.plugin import greedy_reply

FAST = ["model.retries=1", "model.backoff_base_s=0.01", "model.backoff_max_s=0.02", "model.cache=false"]
BROKEN = {"counter/c02", "counter/c05"}


@pytest.fixture
def run_with_infra_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Six episodes; two meet a 503 that outlasts the retries, the other four are solved."""

    def outage(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        if metadata["episode"] in BROKEN:
            raise load_litellm().ServiceUnavailableError("the backend is down for maintenance",
                                                         llm_provider="scripted", model="outage")
        return greedy_reply(messages)

    register_script("outage", outage)
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--model", "scripted/outage", "--concurrency", "1", "--tasks",
                 "c00,c01,c02,c03,c04,c05", "--out", str(out), "--no-report", *FAST]) == 5
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("infra failures: 2 of 6 episodes (2 model_error), not counted in any score; most "
                              "common cause (2x): model_error: model scripted/outage failed after 2 attempt(s)")
    assert "the backend is down for maintenance" in err[-1]
    assert err[-1].endswith(f"fix it, then run them again with `suite run --resume {out} --retry-infra`")
    return out


@pytest.mark.usefixtures("wide_console")
def test_every_output_says_the_run_had_infra_failures(run_with_infra_failures: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = run_with_infra_failures
    assert RunStore(out).status() == "complete, 2 infra failures"
    assert main(["runs", str(out.parent)]) == 0
    assert "complete, 2 infra failures" in capsys.readouterr().out
    assert main(["report", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["status"] == "complete, 2 infra failures"
    assert main(["report", str(out)]) == 0
    assert f"run {out}: complete, 2 infra failures" in capsys.readouterr().out


def test_retrying_the_infra_failures_clears_the_status(run_with_infra_failures: Path) -> None:
    BROKEN.clear()
    try:
        assert main(["run", "--resume", str(run_with_infra_failures), "--retry-infra", "--no-report"]) == 0
    finally:
        BROKEN.update({"counter/c02", "counter/c05"})
    assert RunStore(run_with_infra_failures).status() == "complete"


def test_the_most_common_cause_is_named() -> None:
    records = [{"outcome": "env_error", "failure_reason": "RuntimeError: the simulator at 0x7f01 died"},
               {"outcome": "env_error", "failure_reason": "RuntimeError: the simulator at 0x7f02 died"},
               {"outcome": "timeout", "failure_reason": "episode exceeded 60 s"},
               {"outcome": "success", "failure_reason": None}]
    summary = summarize_infra(records)
    assert summary is not None and (summary.total, summary.finished) == (3, 4)
    assert summary.outcomes == {"env_error": 2, "timeout": 1}
    assert (summary.cause, summary.cause_count) == ("env_error: RuntimeError: the simulator at 0x… died", 2)
    assert summarize_infra([{"outcome": "agent_failure", "failure_reason": "x"}]) is None
    assert status_with_infra("complete", 1) == "complete, 1 infra failure"
    assert status_with_infra("stopped", 3) == "stopped" and status_with_infra("complete", 0) == "complete"
