"""Keeps credentials out of error messages, cache keys, replies, traces, the cache and every warning."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from suite.contract.secrets import is_key_variable, is_secret_name, secret_values

KEY_SHAPES = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}|Bearer\s+\S+)")
MASK = "***"
MIN_SECRET_LEN = 6
__all__ = ["MASK", "is_key_variable", "is_secret_name", "known_secrets", "mask", "redact"]


def known_secrets(params: Mapping[str, Any]) -> list[str]:
    """Credential values in `params` (`suite.contract.secrets`' rule: URL passwords included) and in credential
    environment variables (the keys litellm reads), longest first."""
    values = secret_values(params) + [v for k, v in os.environ.items() if is_key_variable(k)]
    return sorted({v for v in values if len(v) >= MIN_SECRET_LEN}, key=len, reverse=True)


def mask(text: str, secrets: Iterable[str]) -> str:
    """`text` with every known secret value masked (a model's reply: nothing else in it is touched)."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every known secret and anything shaped like an API key masked."""
    return KEY_SHAPES.sub(MASK, mask(text, secrets))
