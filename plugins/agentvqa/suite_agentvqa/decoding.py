"""The paper's decoding by model (`agentvqa.model_preset: auto`): temperature 0.8 for a model that reasons before it
answers, 0.2 for the others, and the provider's default for reasoning models that take no temperature.

Whether a model reasons comes from litellm's model map (`supports_reasoning`, read from its file without importing
litellm), else from the names of reasoning families below."""

from __future__ import annotations

import re

from suite.models import quick_names

#: reasoning families litellm's map may not list (open-weight thinking models served under any name)
REASONING_NAMES = re.compile(r"(thinking|reason|(^|[/_-])r1\b|qwq|(^|/)o[134]\b|gpt-5|gemini-(2\.5|3))", re.IGNORECASE)
#: reasoning models that reject a temperature (the paper leaves them at the provider's default)
NO_TEMPERATURE = re.compile(r"((^|/)o[134]\b|gpt-5)", re.IGNORECASE)


def _model_info(model: str) -> dict | None:
    """The model map's entry for `model` (with or without its provider prefix), or None."""
    known = quick_names.files([])
    if known is None:
        return None
    return known.model_cost.get(model) or known.model_cost.get(model.split("/", 1)[-1])


def preset_for(model: str) -> str | None:
    """`reasoning`, `reasoning_no_temperature` or None (the 0.2 default) for a model string; scripted models get
    the default."""
    if model.startswith("scripted/"):
        return None
    info = _model_info(model) or {}
    reasons = bool(info.get("supports_reasoning")) or bool(REASONING_NAMES.search(model))
    if not reasons:
        return None
    return "reasoning_no_temperature" if NO_TEMPERATURE.search(model) else "reasoning"
