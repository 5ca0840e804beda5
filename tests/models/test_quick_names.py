"""The quick refusal of a model string (without importing litellm) never refuses what litellm places, and says
exactly what the full check says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from suite.contract.errors import ConfigError
from suite.models import quick_names
from suite.models.litellm_setup import load_litellm
from suite.models.preflight import _provider_and_name, _unplaced, check_model

TYPOS = ["gemini-3.1-pro", "gpt4o", "lama-3.3-70b", "qwen2.5-vl", "totally-made-up", "GPT-4O", "mistral-larg",
         "claude-3-5-sonnet", "foo/bar", "opneai/gpt-4o", "antrhopic/claude-sonnet-4-5"]


def _places(litellm: object, model: str) -> bool:
    try:
        litellm.get_llm_provider(model)  # type: ignore[attr-defined]
    except Exception:  # litellm's BadRequestError for a name it cannot place
        return False
    return True


def test_the_files_hold_what_litellm_holds() -> None:
    """The provider list and model map read from the files equal litellm's own."""
    litellm = load_litellm()
    known = quick_names.files(["scripted"])
    assert known is not None
    custom = {entry["provider"] for entry in litellm.custom_provider_map}  # registered by this process's tests
    assert set(known.provider_list) == {getattr(p, "value", str(p)) for p in litellm.provider_list} - custom
    assert set(known.model_cost) <= set(litellm.model_cost) | {"fallback_generalizations"}


def test_never_refuses_a_name_litellm_places() -> None:
    """Every bare name in litellm's model lists and map: the quick check lets it through wherever litellm places it."""
    litellm = load_litellm()
    known = quick_names.files(["scripted"])
    names = set(known.model_cost)
    for attr in dir(litellm):
        value = getattr(litellm, attr, None)
        if attr.endswith("_models") and isinstance(value, list | set | tuple):
            names |= {n for n in value if isinstance(n, str)}
    names |= {"gpt-image-1", "amazon_nova-pro", "ft:gpt-4o:org::id", "*"}
    names |= {f"{p}/some-model" for p in known.provider_list} | {f"{p}/x" for p in known.json_providers}
    names |= {f"{prefix}x" for prefix in known.prefixes}
    wrongly = sorted(n for n in names if quick_names.certainly_unplaced(n, {}, known) and _places(litellm, n))
    assert not wrongly, wrongly[:10]


@pytest.mark.parametrize("model", TYPOS)
def test_refuses_typos_with_the_full_checks_words(model: str) -> None:
    """A typo is refused as litellm refuses it, with the message the litellm-backed check builds."""
    litellm = load_litellm()
    assert not _places(litellm, model)
    known = quick_names.files(["scripted"])
    assert quick_names.certainly_unplaced(model, {}, known)
    assert _unplaced(known, model) == _unplaced(litellm, model)
    with pytest.raises(ConfigError) as checked:
        check_model(model)
    assert str(checked.value) == _unplaced(litellm, model)


def test_the_quick_refusal_never_imports_litellm() -> None:
    """A bare typo and an unknown provider are refused in a fresh process without importing litellm (its import is
    the seconds the check must not take), and the suggestion is a name litellm's model list holds."""
    script = (
        "import sys\n"
        "from suite.contract.errors import ConfigError\n"
        "from suite.models.preflight import check_model\n"
        "for model in ('foo/bar', 'claude-3-5-sonnet', 'gemini-3.1-pro'):\n"
        "    try:\n"
        "        check_model(model)\n"
        "    except ConfigError as exc:\n"
        "        print(exc)\n"
        "print('litellm' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[-1] == "False" and len(lines) == 4, out
    assert "no provider 'foo'" in lines[0]
    assert "use --model gemini/gemini-3.1-pro-preview" in lines[2]
    known = quick_names.files(["scripted"])
    assert "gemini/gemini-3.1-pro-preview" in known.model_cost


def test_leaves_everything_uncertain_to_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prefixed names, a provider set in the params, and a configured proxy are never decided quickly."""
    known = quick_names.files(["scripted"])
    assert not quick_names.certainly_unplaced("openai/anything", {}, known)
    assert not quick_names.certainly_unplaced("foo/bar:v1", {}, known)
    assert not quick_names.certainly_unplaced("my-model", {"api_base": "http://127.0.0.1:9"}, known)
    monkeypatch.setenv("USE_LITELLM_PROXY", "true")
    assert not quick_names.certainly_unplaced("my-model", {}, known)


@pytest.mark.parametrize("model", ["claude-3-5-sonnet", "gemini-3.1-pro", "gpt-4o-mni", "mistral-larg", "gpt4o"])
def test_every_suggested_name_is_in_litellms_model_list(model: str) -> None:
    """`use --model X` and the other providers' names are all names litellm's model list holds."""
    known = quick_names.files(["scripted"])
    listed = {"/".join(_provider_and_name(key, entry, known.provider_list)) for key, entry in known.model_cost.items()}
    message = _unplaced(known, model)
    suggested = re.findall(r"use --model (\S+?)[ ,]|(?:models: |, )([\w.-]+/[\w.:-]+)", message + " ")
    names = [name for pair in suggested for name in pair if name]
    assert names and set(names) <= listed, message


def test_suite_run_refuses_before_importing_the_runner_plugins_or_litellm(tmp_path: Path) -> None:
    """`suite run --model <typo>` is refused in a fresh process before the runner, the plugins or litellm are
    imported (the seconds the check must not take)."""
    script = (
        "import sys\n"
        "from suite.cli.main import main\n"
        f"code = main(['run', '--plugins', 'omniear', '--model', sys.argv[1], '--out', {str(tmp_path / 'r')!r}])\n"
        "print(code, *(m in sys.modules for m in ('suite.engine.runner', 'suite_omniear', 'litellm')))\n")
    for model in ("foo/bar", "claude-3-5-sonnet", "gemini-3.1-pro"):
        done = subprocess.run([sys.executable, "-c", script, model], capture_output=True, text=True, check=True)
        assert done.stdout.split() == ["2", "False", "False", "False"], (model, done.stdout, done.stderr)
        assert "use --model" in done.stderr or "no provider" in done.stderr
    assert not (tmp_path / "r").exists()
