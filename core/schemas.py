"""JSON Schema loading and validation with one-line, file-and-pointer error messages."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from suite.errors import DataError


@cache
def load_schema(path: str | Path) -> dict[str, Any]:
    """Read a JSON Schema file once and check that it is itself a valid schema."""
    schema = json.loads(Path(path).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@cache
def _validator(path: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(load_schema(path))


def json_pointer(parts: Any) -> str:
    """Render a jsonschema error path as an RFC 6901 JSON pointer."""
    escaped = [str(p).replace("~", "~0").replace("/", "~1") for p in parts]
    return "/" + "/".join(escaped) if escaped else "/"


def validate(instance: Any, schema_path: str | Path, source: str | Path) -> None:
    """Validate `instance` against the schema file; raise DataError naming `source` and the pointer."""
    errors = sorted(_validator(str(schema_path)).iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        raise DataError(source, json_pointer(err.absolute_path), err.message)


def read_json(path: str | Path) -> Any:
    """Read a JSON file; a syntax error becomes a DataError with the line and column."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(path, "/", f"valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    except OSError as exc:
        raise DataError(path, "/", f"a readable file ({exc.strerror})") from exc
