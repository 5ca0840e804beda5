"""JSON Schema loading and validation with one-line, file-and-pointer error messages."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from suite.contract.errors import DataError


@cache
def load_schema(path: str | Path) -> dict[str, Any]:
    """Read a JSON Schema file once and check that it is itself a valid schema."""
    schema = json.loads(Path(path).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def _finite_number(checker: Any, instance: Any) -> bool:
    """JSON has no NaN or infinity: a number field holding one fails its schema."""
    return jsonschema.Draft202012Validator.TYPE_CHECKER.is_type(instance, "number") and math.isfinite(instance)


#: Draft 2020-12 whose `number` (and so `integer`) type excludes NaN and infinities.
FiniteValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("number", _finite_number),
)


def validator_for(schema: dict[str, Any]) -> Any:
    """A validator of `schema` (checked first) whose numbers must be finite."""
    FiniteValidator.check_schema(schema)
    return FiniteValidator(schema)


@cache
def _validator(path: str) -> Any:
    return FiniteValidator(load_schema(path))


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


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {"string": str, "object": dict, "array": list, "boolean": bool,
                                                   "null": type(None)}


def _has_type(value: Any, name: str) -> bool:
    """Whether `value` is of the JSON Schema type `name` as the validator sees it (finite numbers, not booleans)."""
    if name in ("integer", "number"):
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        return number and (name == "number" or float(value).is_integer())
    return isinstance(value, _JSON_TYPES[name])


def top_level_valid(instance: Any, schema_path: str | Path) -> bool:
    """Whether `instance` passes its schema's top level (required keys, no others where closed, each key's type and
    enum): a check a hundred times quicker than `validate`, for reading many stored objects back."""
    schema = load_schema(str(schema_path))
    properties = schema.get("properties", {})
    if not isinstance(instance, dict) or not set(schema.get("required", ())) <= instance.keys():
        return False
    if schema.get("additionalProperties") is False and not instance.keys() <= properties.keys():
        return False
    for key, value in instance.items():
        rule = properties.get(key, {})
        types = rule.get("type", ())
        if types and not any(_has_type(value, t) for t in ([types] if isinstance(types, str) else types)):
            return False
        if "enum" in rule and value not in rule["enum"]:
            return False
    return True


def read_json(path: str | Path) -> Any:
    """Read a UTF-8 JSON file; anything else (bad bytes, a syntax error, NaN, absurd nesting) is a DataError."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise DataError(path, "/", f"a readable file ({exc.strerror})") from exc
    return parse_json(decode_utf8(data, path), path)


def decode_utf8(data: bytes, source: str | Path) -> str:
    """Bytes as UTF-8 text (a BOM is allowed); a DataError naming the first bad byte otherwise."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(source, "/", "UTF-8 text (this file is UTF-16: convert it to UTF-8)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(source, "/", f"UTF-8 text (byte {exc.start} is not valid UTF-8)") from None
    if "\x00" in text:
        raise DataError(source, "/", f"UTF-8 text (byte {data.index(0)} is a NUL: UTF-16 or binary?)")
    return text


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str, source: str | Path) -> Any:
    """JSON text to data; a syntax error (line, column), NaN or Infinity, or nesting too deep is a DataError."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise DataError(source, "/", f"valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except ValueError as exc:
        raise DataError(source, "/", f"valid JSON ({exc})") from None
    except RecursionError:
        raise DataError(source, "/", "valid JSON nested to a sane depth (it is nested too deeply to read)") from None
