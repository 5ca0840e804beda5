"""The one rule for what holds a credential, shared by the run config saved in a run folder and the model layer
(error messages, cache keys, replies, traces): setting and parameter names, environment variable names, and URLs
that carry a password (`https://user:pass@host`, `?api_key=...`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

#: Names whose value is a credential, or a mapping of them (`extra_headers`: every header may be one). Counts such
#: as `max_tokens` and names such as `keyboard` or `author` are not; litellm's credential parameters all are
#: (`api_key`, `azure_ad_token`, `client_secret`, `azure_password`, `vertex_credentials`, `aws_access_key_id`,
#: `aws_secret_access_key`, `aws_session_token`, `aws_web_identity_token`).
SECRET_NAME = re.compile(
    r"(api[_-]?key|(^|[_\-.])key($|[_\-.])|secret|password|passwd|credential|token(?![si])|auth(?!or)|cookie|"
    r"header|session[_-]?id)",
    re.IGNORECASE,
)
#: Environment variables that hold credentials (not a base URL, project or region).
SECRET_ENV = re.compile(r"(API_KEY|ACCESS_KEY|SECRET|TOKEN|PASSWORD)", re.IGNORECASE)
REDACTED = "<redacted>"


def is_secret_name(name: str) -> bool:
    """Whether a setting, parameter or header name holds a credential (or a mapping of them)."""
    return bool(SECRET_NAME.search(name))


def is_key_variable(name: str) -> bool:
    """Whether an environment variable name is a credential (not a base URL, project or region)."""
    return bool(SECRET_ENV.search(name))


def url_secrets(text: str) -> list[str]:
    """The credentials a URL carries: the password of its user part, the values of secret-named query parameters."""
    if "://" not in text:
        return []
    try:
        parts = urlsplit(text.strip())
        password = parts.password
    except ValueError:
        return []
    found = [password] if password else []
    return found + [v for k, v in parse_qsl(parts.query, keep_blank_values=False) if is_secret_name(k) and v]


def redact_url(text: str) -> str:
    """`text` with every credential of a URL in it replaced by REDACTED (the rest of the URL kept)."""
    for secret in sorted(set(url_secrets(text)), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def secret_values(params: Mapping[str, Any], inside: bool = False) -> list[str]:
    """Every credential in `params`, at any depth: string values under a secret name (all of a mapping under one,
    `extra_headers={"X-Custom": ...}` included) and the credentials of URLs (`api_base`)."""
    values: list[str] = []
    for name, value in params.items():
        secret = inside or is_secret_name(str(name))
        if isinstance(value, Mapping):
            values += secret_values(value, secret)
        elif isinstance(value, list | tuple):
            values += secret_values({str(i): v for i, v in enumerate(value)}, secret)
        elif isinstance(value, str) and value:
            values += [value] if secret else url_secrets(value)
    return values


def redact_tree(node: Any, inside: bool = False) -> Any:
    """A plain config tree with every credential (`secret_values`' rule) replaced by REDACTED."""
    if isinstance(node, Mapping):
        return {k: redact_tree(v, inside or is_secret_name(str(k))) for k, v in node.items()}
    if isinstance(node, list):
        return [redact_tree(v, inside) for v in node]
    if isinstance(node, str) and node:
        return REDACTED if inside else redact_url(node)
    return node
