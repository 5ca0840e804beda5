"""Every setting of a run checked before its first episode: the core's sections against the core's schema, each
benchmark's section against the JSON Schema its plugin declares (`BenchmarkSpec.config_schema`)."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from jsonschema.exceptions import SchemaError, ValidationError, best_match
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from suite.contract.errors import ConfigError, PluginError
from suite.contract.schemas import load_schema, validator_for

CORE_SCHEMA = Path(__file__).parents[1] / "jsonschemas" / "config.schema.json"
#: The sections the core's schema describes; every other top-level section belongs to a benchmark.
CORE_SECTIONS = ("run", "model", "ray", "tracking", "report")

Schema = Mapping[str, Any] | Path

#: Pieces of JSON Schema that most benchmarks' sections share (use them in a plugin's `config_schema`).
OPTIONAL_PATH: dict[str, Any] = {"type": ["string", "null"], "minLength": 1}
#: litellm's `reasoning_effort` levels (a benchmark's defaults or presets may set one).
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
MODEL_DEFAULTS: dict[str, Any] = {
    "type": "object",
    "description": "the benchmark's protocol decoding, used unless model.* is set",
    "additionalProperties": False,
    "properties": {
        "temperature": {"type": "number", "minimum": 0},
        "top_p": {"type": "number", "minimum": 0, "maximum": 1},
        "max_tokens": {"type": "integer", "minimum": 1},
        "reasoning_effort": {"enum": list(REASONING_EFFORTS)},
    },
}
#: `<benchmark>.model_presets`: named decodings laid over `model_defaults` (null drops a default).
MODEL_PRESETS: dict[str, Any] = {
    "type": "object",
    "description": "named decodings laid over model_defaults by <benchmark>.model_preset",
    "additionalProperties": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "temperature": {"type": ["number", "null"], "minimum": 0},
            "top_p": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "max_tokens": {"type": ["integer", "null"], "minimum": 1},
            "reasoning_effort": {"enum": [None, *REASONING_EFFORTS]},
        },
    },
}
#: `<benchmark>.model_preset`: null, the name of one of its model_presets, or `auto` (the benchmark picks one for the
#: run's model: `BenchmarkSpec.model_preset_for`).
MODEL_PRESET: dict[str, Any] = {"type": ["string", "null"], "minLength": 1}


def optional_list(items: Mapping[str, Any]) -> dict[str, Any]:
    """null (no filter) or a non-empty list of distinct `items`."""
    return {"type": ["array", "null"], "items": dict(items), "minItems": 1, "uniqueItems": True}


def one_of(values: Iterable[Any]) -> dict[str, Any]:
    """Exactly one of `values`."""
    return {"enum": list(values)}


def schema_dict(schema: Schema) -> dict[str, Any]:
    """A declared schema as a dict (a path is read once)."""
    return load_schema(schema) if isinstance(schema, Path) else dict(schema)


def check_schema(name: str, schema: Schema) -> None:
    """A PluginError unless benchmark `name`'s declared config schema is a readable, valid JSON Schema."""
    try:
        validator_for(schema_dict(schema))
    except (OSError, ValueError, SchemaError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PluginError(f"benchmark {name!r} declares an invalid config schema: {first}") from None


def check_settings(cfg: DictConfig, schemas: Mapping[str, Schema | None], flags: Mapping[str, str] | None = None
                   ) -> None:
    """Raise a one-line ConfigError for the first setting that its schema refuses.

    `schemas` maps each benchmark of the run to its declared schema (None: not checked); `flags` maps config keys
    to the command-line flag that sets them, so the message can name both.
    """
    try:
        plain = OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as exc:
        raise ConfigError(f"config: {str(exc).splitlines()[0]}") from None
    assert isinstance(plain, dict)
    sections: list[tuple[str, Any, Schema]] = [("", {k: plain[k] for k in CORE_SECTIONS if k in plain}, CORE_SCHEMA)]
    sections += [(f"{bench}.", plain.get(bench) or {}, schema) for bench, schema in schemas.items() if schema]
    for prefix, instance, schema in sections:
        error = best_match(validator_for(schema_dict(schema)).iter_errors(instance))
        if error is not None:
            raise ConfigError(describe(error, prefix, flags or {}))


def describe(error: ValidationError, prefix: str = "", flags: Mapping[str, str] | None = None) -> str:
    """One line: the dotted key (and its flag), what is wrong, and the nearest valid value where there is one."""
    key = prefix + dotted(error.absolute_path)
    flag = (flags or {}).get(key)
    where = f"{key} ({flag})" if flag else key
    value = error.instance
    if isinstance(value, float) and not math.isfinite(value):
        return f"invalid setting {where}: {value} is not a finite number"
    if error.validator == "enum":
        allowed = error.validator_value
        choices = [str(c) for c in allowed] if isinstance(allowed, list) else []
        return f"invalid setting {where}: {value!r} is not one of {', '.join(choices)}{_nearest(value, choices)}"
    if error.validator == "additionalProperties" and isinstance(value, dict):
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        known = list(schema.get("properties") or {})
        extra = sorted(set(value) - set(known))
        first = f"{key}.{extra[0]}" if key else extra[0]
        return f"unknown setting {first}{_nearest(extra[0], known)}"
    return f"invalid setting {where}: {error.message}"


def dotted(path: Iterable[Any]) -> str:
    """A jsonschema error path as a config key: `omniear.fixes[0]`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _nearest(value: Any, choices: list[str]) -> str:
    close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def undeclared_keys(schema: Schema, instance: Any) -> list[str]:
    """Keys of `instance` (e.g. a benchmark's defaults) that `schema` does not describe, as dotted keys."""
    return _undeclared(schema_dict(schema), instance, "")


def _undeclared(node: dict[str, Any], instance: Any, prefix: str) -> list[str]:
    if not isinstance(instance, dict) or "properties" not in node:
        return []
    props, missing = node["properties"], []
    for key, value in instance.items():
        if key in props:
            missing += _undeclared(props[key], value, f"{prefix}{key}.")
        elif "additionalProperties" not in node and "patternProperties" not in node:
            missing.append(f"{prefix}{key}")
    return missing
