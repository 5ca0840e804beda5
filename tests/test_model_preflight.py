"""The model string is checked before a run: litellm must place its provider (issue 11 item 4b)."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.cli.main import main
from suite.contract.errors import ConfigError
from suite.models.preflight import check_model


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gemini-3.1-pro", "litellm cannot tell which provider serves it; use --model gemini/gemini-3.1-pro"),
        ("foo/bar", "--model foo/bar: litellm has no provider 'foo'"),
        ("opneai/gpt-4o", "did you mean openai/gpt-4o?"),
        ("scripted/typo", "no script registered as 'scripted/typo' (registered: "),
        ("scripted/counter-greddy", "did you mean scripted/counter-greedy?"),
    ],
)
def test_a_model_litellm_cannot_place_fails_before_the_run(model: str, expected: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["run", "--plugins", "template", "--model", model, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_models_litellm_places_pass() -> None:
    assert check_model("openai/gpt-4o") == "openai"
    assert check_model("gpt-4o") == "openai"  # litellm places this bare name itself
    assert check_model("gemini/gemini-3.1-pro") == "gemini"
    assert check_model("my-model", {"custom_llm_provider": "hosted_vllm", "api_base": "http://127.0.0.1:1"}) == \
        "hosted_vllm"


def test_a_bare_name_of_an_unknown_family_asks_for_a_provider() -> None:
    with pytest.raises(ConfigError, match=r"name it as <provider>/zzqx-1 \(e.g. openai/zzqx-1"):
        check_model("zzqx-1")


@pytest.mark.parametrize(("plugin", "switch"), [("agentvqa", ""), ("asgard", "set asgard.condition=text_only, "),
                                               ("vigil", "set vigil.images=false, "),
                                               ("longact", "set longact.images=[], ")])
def test_images_for_a_text_only_model_fail_before_the_run(plugin: str, switch: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    args = ["run", "--plugins", plugin, "--model", "openai/local", "model.params.api_key=sk-x", "model.vision=false"]
    assert main([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"--model openai/local does not take images (model.vision=false); benchmark {plugin} sends "
                        f"them: {switch}use a vision model, or set model.vision=true if it does take them"), err
    assert len(err.splitlines()) == 1 and not out.exists()


def test_a_text_only_condition_needs_no_vision() -> None:
    from suite.engine.host import build_host

    images = build_host().benchmark("asgard").images
    assert images({"condition": "text_only", "conditions": {"text_only": {"images": "none"}}}) is None


def test_vigil_without_images_needs_no_vision() -> None:
    from suite.engine.host import build_host

    images = build_host().benchmark("vigil").images
    assert images({"images": False}) is None and images({"images": True}) == "vigil.images=false"


def test_longact_without_images_needs_no_vision() -> None:
    from suite.engine.host import build_host

    images = build_host().benchmark("longact").images
    assert images({"images": []}) is None and images({"images": ["rgb"]}) == "longact.images=[]"
