"""Local servers as a user meets them (issue 16): the image preflight, and a deterministic 5xx not retried six times."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from suite.contract.errors import ConfigError, ModelError
from suite.models import ModelClient, RetryPolicy
from suite.models.vision import Vision, check_images, model_vision

TEXT_ONLY_ERROR = 'can only concatenate str (not "list") to str'
MSGS = [{"role": "user", "content": "ping"}]


def test_the_same_5xx_body_twice_stops_the_retries(openai_server: Any) -> None:
    for _ in range(6):
        openai_server.then(status=500, error=TEXT_ONLY_ERROR)
    client = ModelClient("openai/local", api_base=openai_server.api_base, api_key="sk-x",
                         retry=RetryPolicy(attempts=6, base_s=0.001, max_s=0.005))
    with pytest.raises(ModelError, match="failed after 2 attempt"):
        asyncio.run(client.complete(MSGS))
    assert len(openai_server.requests) == 2


def test_a_5xx_whose_body_changes_is_retried(openai_server: Any) -> None:
    openai_server.then(status=500, error="busy 1").then(status=500, error="busy 2").then(text="ok")
    client = ModelClient("openai/local", api_base=openai_server.api_base, api_key="sk-x",
                         retry=RetryPolicy(attempts=6, base_s=0.001, max_s=0.005))
    assert asyncio.run(client.complete(MSGS)).text == "ok"
    assert len(openai_server.requests) == 3


def test_the_probe_finds_a_text_only_server(openai_server: Any) -> None:
    openai_server.then(status=500, error=TEXT_ONLY_ERROR)
    vision = model_vision("openai/local", "auto", {"api_base": openai_server.api_base, "api_key": "sk-x"})
    assert vision.takes_images is False and "status 500" in vision.how and "concatenate" in vision.how
    sent = openai_server.requests[0]["body"]
    assert sent["max_tokens"] == 1 and sent["messages"][0]["content"][1]["type"] == "image_url"


def test_the_probe_finds_a_vision_server(openai_server: Any) -> None:
    vision = model_vision("openai/local", "auto", {"api_base": openai_server.api_base, "api_key": "sk-x"})
    assert vision == Vision(True, "a probe request with an image")


def test_an_unreachable_server_decides_nothing() -> None:
    vision = model_vision("openai/local", "auto", {"api_base": "http://127.0.0.1:9/v1", "api_key": "sk-x"})
    assert vision.takes_images is None


def test_the_setting_and_the_model_map_need_no_request() -> None:
    assert model_vision("openai/local", False).takes_images is False
    assert model_vision("openai/local", True).takes_images is True
    assert model_vision("openai/gpt-4o", "auto") == Vision(True, "litellm's model map")
    assert model_vision("openai/gpt-3.5-turbo", "auto") == Vision(False, "litellm's model map")
    assert model_vision("scripted/anything", "auto").takes_images is True


def test_the_error_names_the_model_the_benchmark_and_the_switch() -> None:
    with pytest.raises(ConfigError) as err:
        check_images("openai/local", Vision(False, "model.vision=false"), {"asgard": "asgard.condition=text_only"})
    assert str(err.value) == ("--model openai/local does not take images (model.vision=false); benchmark asgard "
                              "sends them: set asgard.condition=text_only, use a vision model, or set "
                              "model.vision=true if it does take them")
    check_images("openai/local", Vision(None, "?"), {"asgard": ""})  # unknown: the run goes on
    check_images("openai/local", Vision(False, "?"), {})  # no benchmark sends images


def test_truncated_replies_are_flagged_in_the_trace_cached_and_counted_in_the_report(
    openai_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from suite.cli.main import main
    from suite.store.run_folder import RunStore

    monkeypatch.setenv("SUITE_CACHE_DIR", str(tmp_path / "cache"))
    for n in range(200):  # every other reply is cut at the token limit
        openai_server.then(text="ACTION: +1", finish_reason="length" if n % 2 == 0 else "stop")
    out = tmp_path / "r"
    args = ["run", "--plugins", "template", "--model", "openai/local",
            f"model.params.api_base={openai_server.api_base}", "model.params.api_key=sk-x", "--limit", "1",
            "--concurrency", "1"]
    main([*args, "--out", str(out)])
    store = RunStore(out)
    record = store.records()[0]
    steps = [json.loads(line) for line in next((out / "traces").iterdir()).read_text().splitlines()]
    usage = [s["usage"] for s in steps if s["type"] == "step"]
    assert [u["finish_reason"] for u in usage][:2] == ["length", "stop"]
    assert [u["truncated"] for u in usage][:2] == [True, False]
    assert record["truncated_steps"] == sum(u["truncated"] for u in usage) > 0
    share = f"{100 * record['truncated_steps'] / record['steps']:.0f}% of steps ({record['truncated_steps']}/"
    printed = " ".join(capsys.readouterr().out.split())
    assert f"TRUNCATED replies: openai/local / counter: {share}" in printed, printed[-900:]
    store.close()
    requests = len(openai_server.requests)
    again = tmp_path / "again"  # from the cache (--cache): the same flags, no request
    main([*args, "--out", str(again), "--cache"])
    assert len(openai_server.requests) == requests
    assert RunStore(again).records()[0]["truncated_steps"] == record["truncated_steps"]


def test_a_second_run_at_temperature_one_asks_the_server_again_unless_cache_is_given(
    openai_server: Any, tmp_path: Path
) -> None:
    from suite.cli.main import main
    from suite.store.run_folder import RunStore

    for n in range(200):
        openai_server.then(text=f"sample {n}\nACTION: +1")
    args = ["run", "--plugins", "template", "--model", "openai/local", "--no-report", "--tasks", "c01",
            "--concurrency", "1"]
    params = ["model.temperature=1.0", f"model.params.api_base={openai_server.api_base}", "model.params.api_key=sk-x"]
    assert main([*args, "--out", str(tmp_path / "one"), *params]) == 0
    first = len(openai_server.requests)
    assert main([*args, "--out", str(tmp_path / "two"), *params]) == 0
    assert first > 0 and len(openai_server.requests) == 2 * first  # a new run: new samples
    assert main([*args, "--out", str(tmp_path / "three"), "--cache", *params]) == 0
    assert len(openai_server.requests) == 2 * first  # --cache: every reply reused
    record = RunStore(tmp_path / "three").records()[0]
    assert record["earlier_run_replies"] == record["steps"] == first


def test_a_served_context_smaller_than_max_tokens_is_warned_once(
    openai_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from suite.cli.main import main

    monkeypatch.setenv("SUITE_CACHE_DIR", str(tmp_path / "cache"))
    openai_server.context = 200
    args = ["run", "--plugins", "template", "--model", "openai/local", "model.max_tokens=256",
            f"model.params.api_base={openai_server.api_base}", "model.params.api_key=sk-x", "--limit", "1"]
    main([*args, "--out", str(tmp_path / "r")])
    err = " ".join(capsys.readouterr().err.split())
    assert err.count("warning: the server's context is 200 tokens, not more than counter's max_tokens (256)") == 1
    openai_server.context = 8192
    main([*args, "--out", str(tmp_path / "r2")])
    assert "server's context" not in capsys.readouterr().err
