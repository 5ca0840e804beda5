"""Local servers as a user meets them (issue 16): the image preflight, and a deterministic 5xx not retried six times."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from suite.errors import ConfigError, ModelError
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
