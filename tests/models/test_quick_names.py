"""The quick refusal of a model string (without importing litellm) never refuses what litellm places, and says
exactly what the full check says."""

from __future__ import annotations

import pytest
from suite.contract.errors import ConfigError
from suite.models import quick_names
from suite.models.litellm_setup import load_litellm
from suite.models.preflight import _unplaced, check_model

TYPOS = ["gemini-3.1-pro", "gpt4o", "lama-3.3-70b", "qwen2.5-vl", "totally-made-up", "GPT-4O", "mistral-larg"]


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
    wrongly = sorted(n for n in names if quick_names.certainly_unplaced(n, {}, known) and _places(litellm, n))
    assert not wrongly, wrongly[:10]


@pytest.mark.parametrize("model", TYPOS)
def test_refuses_typos_with_the_full_checks_words(model: str) -> None:
    """A typo is refused as litellm refuses it, with the message the litellm-backed check builds."""
    litellm = load_litellm()
    assert not _places(litellm, model)
    known = quick_names.files(["scripted"])
    assert quick_names.certainly_unplaced(model, {}, known)
    with pytest.raises(ConfigError) as quick:
        check_model(model)
    assert str(quick.value) == _unplaced(litellm, model)


def test_leaves_everything_uncertain_to_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prefixed names, a provider set in the params, and a configured proxy are never decided quickly."""
    known = quick_names.files(["scripted"])
    assert not quick_names.certainly_unplaced("foo/bar", {}, known)
    assert not quick_names.certainly_unplaced("my-model", {"api_base": "http://127.0.0.1:9"}, known)
    monkeypatch.setenv("USE_LITELLM_PROXY", "true")
    assert not quick_names.certainly_unplaced("my-model", {}, known)
