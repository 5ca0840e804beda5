"""A run folder's config holds no credential, and a resume or replay of someone else's folder does not send this
user's credentials where that folder says, nor join the cluster it names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from omegaconf import OmegaConf
from suite.cli.main import main
from suite.contract import config as configmod
from suite.launch import session as sessionmod
from suite.launch.folder_trust import from_folder
from suite.models.redact import known_secrets

RUN = ["run", "--plugins", "template", "--no-report", "--model", "scripted/counter-greedy", "--limit", "2",
       "model.cache=false"]
#: an endpoint nothing listens on (loopback only: tests never reach the network), with a password
ENDPOINT = "http://alice:hunter2-pass@127.0.0.1:9/v1"
SECRETS = {
    "api_base": ENDPOINT,
    "extra_headers": {"Cookie": "session=cookie-value-1", "X-Auth": "xauth-value-22", "Authorization":
                      "Basic dXNlcjpwYXNz", "X-Custom-Sig": "custom-sig-333"},
    "vertex_credentials": '{"private_key": "-----BEGIN PRIVATE KEY-----abc"}',
    "aws_secret_access_key": "aws-secret-4444", "aws_access_key_id": "AKIA55555555",
    "aws_session_token": "aws-session-666666", "azure_ad_token": "azure-ad-777777",
    "client_secret": "client-secret-888", "azure_password": "azure-pass-9999",
}
LEAKS = ("hunter2-pass", "cookie-value-1", "xauth-value-22", "dXNlcjpwYXNz", "custom-sig-333", "BEGIN PRIVATE KEY",
         "aws-secret-4444", "AKIA55555555", "aws-session-666666", "azure-ad-777777", "client-secret-888",
         "azure-pass-9999")


def test_every_credential_litellm_takes_is_redacted_by_one_rule() -> None:
    cfg = OmegaConf.create({"model": {"max_tokens": 64, "params": {**SECRETS, "vertex_project": "proj-1",
                                                                   "temperature_schedule": [1, 2]}},
                            "bench": {"keyboard": "qwerty", "author": "someone", "max_tokens": 8}})
    saved = yaml.safe_dump(configmod.redacted(cfg))
    for leak in LEAKS:
        assert leak not in saved, leak
    kept = configmod.redacted(cfg)
    assert kept["model"]["params"]["api_base"] == "http://alice:<redacted>@127.0.0.1:9/v1"
    assert kept["model"]["params"]["vertex_project"] == "proj-1" and kept["bench"]["keyboard"] == "qwerty"
    assert kept["bench"]["author"] == "someone" and kept["model"]["max_tokens"] == 64
    masked = "\n".join(known_secrets(SECRETS))  # the model layer masks the same values in errors and replies
    for leak in LEAKS:
        assert leak in masked, leak


def _run(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "theirs"
    assert main([*RUN, "--out", str(out), *extra]) == 0
    return out


def test_a_run_folder_keeps_no_credential(tmp_path: Path) -> None:
    out = _run(tmp_path, *(f"model.params.{k}={v}" for k, v in SECRETS.items() if isinstance(v, str)),
               *(f"model.params.extra_headers.{k}='{v}'" for k, v in SECRETS["extra_headers"].items()))
    stored = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    for leak in LEAKS:
        assert leak.encode() not in stored, leak


def test_a_resume_refuses_an_endpoint_only_the_folder_names(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(tmp_path, f"model.params.api_base={ENDPOINT}")
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--no-report"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--trust-endpoint" in err and "model.params.api_base" in err
    assert "hunter2-pass" not in err
    named = "http://alice:hunter2-pass@127.0.0.1:9/v1"  # named on this command line: the user's own choice
    assert main(["run", "--resume", str(out), "--no-report", f"model.params.api_base={named}"]) == 0
    assert main(["run", "--resume", str(out), "--no-report", "--trust-endpoint"]) == 0


def test_an_endpoint_a_benchmark_section_of_the_folder_sets_is_refused_as_well(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(tmp_path)
    saved = yaml.safe_load((out / "config.yaml").read_text())
    saved["counter"]["model_defaults"] = {**saved["counter"].get("model_defaults", {}), "api_base": ENDPOINT}
    (out / "config.yaml").write_text(yaml.safe_dump(saved))
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--no-report"]) == 2
    err = capsys.readouterr().err  # the counter's settings schema refuses the key before the endpoint check would
    assert "config.yaml" in err and "counter.model_defaults.api_base" in err and "hunter2" not in err


def test_a_resume_without_an_endpoint_in_the_folder_needs_no_trust(tmp_path: Path) -> None:
    assert main(["run", "--resume", str(_run(tmp_path)), "--no-report"]) == 0


def test_no_cluster_address_and_no_redacted_credential_is_taken_from_a_folder(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    out = _run(tmp_path, "model.params.api_key=sk-mine-0123456789")
    saved = yaml.safe_load((out / "config.yaml").read_text())
    saved["ray"].update(address="10.1.2.3:6379", node_ip_address="10.1.2.4")
    (out / "config.yaml").write_text(yaml.safe_dump(saved))
    cfg = from_folder(configmod.load_saved(out / "config.yaml"))
    assert cfg.ray.address is None and cfg.ray.node_ip_address is None
    assert "api_key" not in cfg.model.params  # `<redacted>` is never sent as a key: the environment's is used
    seen: list[Any] = []

    def start(host: Any, cfg: Any, out: Any, model: Any = None) -> Any:
        seen.append((cfg.ray.address, cfg.ray.node_ip_address))
        raise SystemExit(9)

    monkeypatch.setattr(sessionmod, "start_session", start)
    with pytest.raises(SystemExit):
        main(["replay", str(out)])
    assert seen == [(None, None)]
