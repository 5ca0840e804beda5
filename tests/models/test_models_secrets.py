"""No configured credential is printed or stored, even where a server echoes it: the image probe's warning, and a
reply that contains the key (traces, the response cache, the run store, every report format and the HTML site)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.models.redact import MASK, known_secrets
from suite.models.vision import model_vision

PARAM_KEY = "sk-fake-PARAM-0123456789abcdef"
ENV_KEY = "plain-env-key-without-a-known-shape-42"  # masked because it is configured, not for its shape
HEADER_KEY = "header-token-987654321"


def test_image_probe_warning_hides_a_key_the_server_echoes(openai_server: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    openai_server.then(status=401, error=f"Incorrect API key provided: {PARAM_KEY}; env {ENV_KEY}")
    vision = model_vision("openai/local-model", "auto", {"api_base": openai_server.api_base, "api_key": PARAM_KEY})
    assert vision.takes_images is None and "Incorrect API key" in vision.how
    assert PARAM_KEY not in vision.how and ENV_KEY not in vision.how and MASK in vision.how


def test_secrets_under_nested_secret_names_are_known(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", ENV_KEY)
    found = known_secrets({"extra_headers": {"Authorization": HEADER_KEY}, "api_base": "http://127.0.0.1:1/v1",
                           "temperature": 0.5})
    assert HEADER_KEY in found and ENV_KEY in found and "http://127.0.0.1:1/v1" not in found


def test_a_reply_echoing_the_key_is_stored_and_shown_masked(openai_server: Any, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    for _ in range(4):
        openai_server.then(text=f"my key is {PARAM_KEY} and {ENV_KEY} and {HEADER_KEY}\nACTION: DONE")
    run, site = tmp_path / "run", tmp_path / "site"
    assert main(["run", "--plugins", "template", "--model", "openai/local-model", "--limit", "2", "--out", str(run),
                 f"model.params.api_base={openai_server.api_base}", f"model.params.api_key={PARAM_KEY}",
                 f"model.params.extra_headers.X-Auth-Token={HEADER_KEY}", "model.vision=false"]) == 0
    assert len(openai_server.requests) == 2 and openai_server.requests[0]["auth"] == f"Bearer {PARAM_KEY}"
    for fmt in ("table", "md", "csv", "json"):
        assert main(["report", str(run), "--format", fmt]) == 0
    assert main(["report", str(run), "--format", "html", "--out", str(site)]) == 0
    assert main(["export", str(run)]) == 0
    printed = "".join(capsys.readouterr())
    files = [p for root in (run, site, Path(os.environ["SUITE_CACHE_DIR"])) for p in root.rglob("*") if p.is_file()]
    stored = b"".join(p.read_bytes() for p in files)
    assert b"my key is " in stored  # the replies were stored, masked
    for secret in (PARAM_KEY, ENV_KEY, HEADER_KEY):
        assert secret not in printed and secret.encode() not in stored, secret
