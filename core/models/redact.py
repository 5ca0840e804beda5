"""Keeps credentials out of error messages and cache keys."""

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


def known_secrets(params: Mapping[str, Any]) -> list[str]:
    """Credential values in `params` and in secret-looking environment variables."""
    values = [str(v) for k, v in params.items() if v and is_secret_name(k) and isinstance(v, str)]
    values += [v for k, v in os.environ.items() if is_key_variable(k)]
    return sorted({v for v in values if len(v) >= MIN_SECRET_LEN}, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every known secret and anything shaped like an API key masked."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return KEY_SHAPES.sub(MASK, text)
