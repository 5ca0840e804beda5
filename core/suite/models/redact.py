"""Keeps credentials out of error messages, cache keys, replies, traces, the cache and every warning."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

SECRET_NAME = re.compile(r"(key|secret|password|passwd|credential|token$|auth|cookie|header)", re.IGNORECASE)
SECRET_ENV = re.compile(r"(API_KEY|ACCESS_KEY|SECRET|TOKEN|PASSWORD)", re.IGNORECASE)
KEY_SHAPES = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}|Bearer\s+\S+)")
MASK = "***"
MIN_SECRET_LEN = 6


def is_secret_name(name: str) -> bool:
    """Whether a parameter or variable name looks like it holds a credential."""
    return bool(SECRET_NAME.search(name))


def is_key_variable(name: str) -> bool:
    """Whether an environment variable name is a credential (not a base URL, project or region)."""
    return bool(SECRET_ENV.search(name))


def _secret_values(params: Mapping[str, Any], inside: bool = False) -> list[str]:
    """String values under a secret-looking name in `params`, at any depth (`extra_headers={"Authorization":
    ...}` included); `inside`: every string of this mapping is under such a name."""
    values = []
    for name, value in params.items():
        secret = inside or is_secret_name(str(name))
        if isinstance(value, Mapping):
            values += _secret_values(value, secret)
        elif secret and isinstance(value, str) and value:
            values.append(value)
    return values


def known_secrets(params: Mapping[str, Any]) -> list[str]:
    """Credential values in `params` and in secret-looking environment variables (the keys litellm reads),
    longest first."""
    values = _secret_values(params) + [v for k, v in os.environ.items() if is_key_variable(k)]
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
