"""The model string checked before a run: litellm must place its provider, a scripted model must be registered.

A name litellm cannot place gets the exact string to use instead, found in litellm's own model list: the
providers that serve models of the same family (`gemini-...`), the one named like the family first.
"""

from __future__ import annotations

import difflib
import re
import sys
from collections import Counter
from collections.abc import Mapping
from typing import Any

from suite.contract.errors import ConfigError
from suite.models import quick_names
from suite.models.litellm_setup import load_litellm
from suite.models.scripted import get_script, registered_scripts

PROVIDERS_PAGE = "https://docs.litellm.ai/docs/providers"
#: The keyword arguments of litellm's `get_llm_provider` that a run may set under `model.params`.
PROVIDER_PARAMS = ("custom_llm_provider", "api_base")


def check_model(model: str, params: Mapping[str, Any] | None = None) -> str:
    """The provider litellm will call for `model`; a one-line ConfigError naming what to pass otherwise (a bare name
    litellm certainly cannot place is refused from litellm's files, before the seconds its import takes)."""
    refuse_certainly_unplaced(model, params)
    litellm = load_litellm()
    kwargs = {k: v for k, v in (params or {}).items() if k in PROVIDER_PARAMS and v}
    try:
        name, provider = litellm.get_llm_provider(model, **kwargs)[:2]
    except Exception:  # litellm raises a BadRequestError for a model string it cannot place
        raise ConfigError(_unplaced(litellm, model)) from None
    if provider == "scripted":
        try:
            get_script(name)
        except LookupError as exc:
            raise ConfigError(f"--model {model}: {exc}{_did_you_mean(name, registered_scripts())}") from None
    return str(provider)


def refuse_certainly_unplaced(model: str, params: Mapping[str, Any] | None = None) -> None:
    """A one-line ConfigError for a name litellm certainly cannot place, decided from litellm's files without
    importing it (about a second less than importing it); nothing where that is not certain."""
    known = None if "litellm" in sys.modules else quick_names.files(["scripted"])  # imported: it may hold more
    if known is not None and quick_names.certainly_unplaced(model, params or {}, known):
        raise ConfigError(_unplaced(known, model))


def providers(litellm: Any) -> list[str]:
    """Every provider prefix litellm accepts, custom ones (`scripted`) included."""
    names = {getattr(p, "value", str(p)) for p in litellm.provider_list}
    names |= {entry["provider"] for entry in litellm.custom_provider_map}
    return sorted(names)


def _unplaced(litellm: Any, model: str) -> str:
    known = providers(litellm)
    prefix, _, rest = model.partition("/")
    if rest and prefix not in known:
        close = difflib.get_close_matches(prefix, known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}/{rest}? " if close else ""
        return (f"--model {model}: litellm has no provider {prefix!r}; {hint}name it as <provider>/<model> "
                f"(e.g. openai/, anthropic/, gemini/, vertex_ai/, ollama/, hosted_vllm/; all: {PROVIDERS_PAGE})")
    candidates = family_providers(litellm, model, known)
    if not candidates:
        return (f"--model {model}: litellm cannot tell which provider serves it; name it as <provider>/{model} "
                f"(e.g. openai/{model}, or hosted_vllm/{model} with model.params.api_base=...; all: {PROVIDERS_PAGE})")
    starting = [name for provider in candidates if (name := known_name(litellm, provider, model, known, False))]
    nearest = [name for provider in candidates if (name := known_name(litellm, provider, model, known))]
    names = list(dict.fromkeys(starting + nearest))  # names that start with `model` before merely similar ones
    if not names:
        return (f"--model {model}: litellm cannot tell which provider serves it, and its model list has no name "
                f"like it; name it as <provider>/{model} (e.g. {candidates[0]}/{model}; all: {PROVIDERS_PAGE})")
    message = f"--model {model}: litellm cannot tell which provider serves it; use --model {names[0]}"
    if names[0] != f"{candidates[0]}/{model}":
        message += " (the nearest name in litellm's model list)"
    if len(names) > 1:
        message += f", or another provider of these models: {', '.join(names[1:3])}"
    return message


def known_name(litellm: Any, provider: str, model: str, known: list[str], close: bool = True) -> str | None:
    """`provider/model` as litellm's model list spells it: the name itself where listed, else the shortest listed
    name of that provider that starts with `model` (`gemini-3.1-pro` -> `gemini/gemini-3.1-pro-preview`), else
    (with `close`) the provider's listed name most like it; None where that provider lists none."""
    listed = {name for p, name in (_provider_and_name(key, entry, known) for key, entry in litellm.model_cost.items())
              if p == provider}
    starting = sorted((len(name), name) for name in listed if name.startswith(model))
    if starting:
        return f"{provider}/{starting[0][1]}"
    similar = difflib.get_close_matches(model, sorted(listed), n=1, cutoff=0.8) if close else []
    return f"{provider}/{similar[0]}" if similar else None


def _provider_and_name(key: str, entry: Mapping[str, Any], known: list[str]) -> tuple[str, str]:
    """A model-map key's provider and bare name: its prefix where that is a provider, else its `litellm_provider`
    (up to the first `-`, as in `vertex_ai-language-models`)."""
    prefix, _, rest = key.partition("/")
    if rest and prefix in known:
        return prefix, rest
    provider = str(entry.get("litellm_provider", ""))
    return (provider if provider in known else provider.split("-", 1)[0]), key


def family_providers(litellm: Any, model: str, known: list[str]) -> list[str]:
    """Providers of models named like `model` in litellm's model list (same leading word), the likeliest first."""
    found = re.match(r"[A-Za-z]+", model)
    if found is None:
        return []
    family = found.group(0).lower()
    counts: Counter[str] = Counter()
    bare: Counter[str] = Counter()  # what litellm itself assumes for the family's names without a prefix
    for key, entry in litellm.model_cost.items():
        provider, name = _provider_and_name(key, entry, known)
        if provider in known and name.lower().startswith(family):
            counts[provider] += 1
            bare[provider] += "/" not in key or key.partition("/")[0] not in known
    return sorted(counts, key=lambda p: (p != family, -bare[p], -counts[p], p))


def _did_you_mean(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.5)
    return f"; did you mean scripted/{close[0]}?" if close else ""
