"""`suite run --resume RUN --retry-infra`: episodes that ended in an outage run again; the first attempts stay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.models import load_litellm, register_script
from suite.store.run_folder import RunStore
from suite_template.plugin import greedy_reply

FAST_RETRIES = ["model.retries=1", "model.backoff_base_s=0.01", "model.backoff_max_s=0.02", "model.cache=false"]


def test_retry_infra_reruns_only_infra_failures_and_keeps_the_first_attempts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    provider = {"down": True}

    def outage(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        """Greedy, except that c02 and c04 meet a provider outage while it lasts."""
        if provider["down"] and metadata["episode"] in ("counter/c02", "counter/c04"):
            raise load_litellm().InternalServerError("upstream unavailable", llm_provider="scripted", model="outage")
        return greedy_reply(messages)

    register_script("outage", outage)
    out = tmp_path / "r"
    argv = ["run", "--plugins", "template", "--model", "scripted/outage", "--tasks", "c01,c02,c03,c04", "--out",
            str(out), "--no-report", *FAST_RETRIES]
    assert main(argv) == 5  # finished with infra failures
    first = {r["task_id"]: r for r in RunStore(out).records()}
    assert {t for t, r in first.items() if r["outcome"] == "model_error"} == {"c02", "c04"}
    traces = {t: RunStore(out).read_trace(r["episode_id"]) for t, r in first.items()}

    provider["down"] = False
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--retry-infra", "--no-report"]) == 0
    assert "2 model_error" in capsys.readouterr().err
    store = RunStore(out)
    after = {r["task_id"]: r for r in store.records()}
    assert after["c01"] == first["c01"] and after["c03"] == first["c03"]  # finished ones are never rewritten
    assert after["c02"]["outcome"] == after["c04"]["outcome"] == "success"
    kept = {r["task_id"]: r for r in store.superseded()}
    same = {t: {**r, "trace": None} for t, r in kept.items()}
    assert same == {t: {**first[t], "trace": None} for t in ("c02", "c04")}
    rows = store.db.execute("SELECT episode_id, attempt, trace FROM superseded ORDER BY episode_id").fetchall()
    for episode_id, attempt, trace in rows:
        task_id = episode_id.split("/", 1)[1]
        assert attempt == 1 and kept[task_id]["trace"] == trace
        assert [json.loads(line) for line in (out / trace).read_text().splitlines()] == traces[task_id]
        assert store.read_trace(episode_id)[-1]["settlement"]["outcome"] == "success"
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["superseded"] == 2
    assert main(["run", "--resume", str(out), "--retry-infra", "--no-report"]) == 0  # nothing left to retry
    assert "none" in capsys.readouterr().err and len(RunStore(out).superseded()) == 2


def test_retry_infra_needs_resume(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--retry-infra"]) == 2
    assert "use it with --resume" in capsys.readouterr().err


def test_a_model_run_of_a_benchmark_with_model_defaults_resumes(tmp_path: Path) -> None:
    """`omniear.model_defaults.max_tokens` is a count, not a secret: the saved config keeps it usable."""
    provider = {"down": True}

    def flaky(messages: list[dict[str, Any]]) -> str:
        if provider["down"]:
            raise load_litellm().InternalServerError("upstream unavailable", llm_provider="scripted", model="flaky")
        return "DONE"

    register_script("flaky-omni", flaky)
    out = tmp_path / "r"
    assert main(["run", "--plugins", "omniear", "--model", "scripted/flaky-omni", "--limit", "2", "--out", str(out),
                 "--no-report", *FAST_RETRIES]) == 5
    assert {r["outcome"] for r in RunStore(out).records()} == {"model_error"}
    assert "max_tokens: 4096" in (out / "config.yaml").read_text()
    provider["down"] = False
    assert main(["run", "--resume", str(out), "--retry-infra", "--no-report"]) == 0
    records = RunStore(out).records()
    assert len(records) == 2 and not {r["outcome"] for r in records} & {"model_error", "env_error"}


def test_a_kept_attempt_keeps_its_own_frames(tmp_path: Path) -> None:
    from suite.contract.records import EpisodeRecord
    from suite.store.run_folder import safe_name

    store = RunStore(tmp_path / "r", create=True)
    episode = "bench/t1"
    store.add_episodes([(episode, "bench", "t1")])
    stem = safe_name(episode)
    frame = tmp_path / "r" / "frames" / stem / "0001_0.png"
    frame.parent.mkdir(parents=True)
    frame.write_bytes(b"first attempt")
    writer = store.open_trace(episode)
    writer.write({"type": "step", "index": 0, "images": [{"path": f"frames/{stem}/0001_0.png", "label": "rgb"}]})
    writer.close()
    store.finish(EpisodeRecord(episode, "bench", "t1", None, "direct", "m", 0, "model_error", None, "outage", {}, 1,
                               "model_error", 0, 0, 0.0, 0.1, f"traces/{stem}.jsonl", "generated:x"))
    assert store.reopen(["model_error"]) == {"model_error": 1}
    kept = store.superseded()[0]["trace"]
    image = json.loads((tmp_path / "r" / kept).read_text())["images"][0]["path"]
    assert (tmp_path / "r" / image).read_bytes() == b"first attempt" and ".superseded-1/" in image
    assert not frame.parent.exists()  # the next attempt starts with no frames of the first
    store.close()
