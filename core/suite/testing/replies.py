"""Hostile model replies for checking that a parser never raises and stays linear in the reply's length.

A model's reply may hold anything: nesting deeper than the interpreter's recursion limit, integers of thousands
of digits, infinite floats, a JSON type where another is expected, megabytes of text, control characters, and the
repeated shapes that make a backtracking regular expression or a retry-every-brace JSON scan quadratic. The
plugin kit (`PluginConformance`) runs every benchmark's `parse_action` over these; plugin tests may use them for
their own parsers (HoloMind's module readers do)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

#: one megabyte: the size of each pathological shape
MB = 1_000_000
#: the repeated units that made a parser super-linear (a backtracking `^\W*` across lines, a scan that retries
#: every brace, an unclosed fence or string), each to be repeated to MB characters
SHAPES = ("-\n", "\n{", "{", "}", "{}", "}{", "{\n", '{"', '{"a":', '{"a":{', "[", "[{", '"', '\\"', "```", "```\n ",
          "\n", " \n", "\n\n", "a\n", "action ", "action:\n", "Action: ", "<answer>", "Answer: ", "ACTION: ", ":", "x")
#: nesting depth of the deeply nested replies (far past the recursion limit)
DEEP = 100_000
#: digits of the huge integers (Python refuses to turn more than 4300 digits into an int from text)
HUGE_DIGITS = (400, 5000)


def shape_replies(size: int = MB) -> Iterator[tuple[str, str]]:
    """(name, reply) of every pathological shape repeated to `size` characters."""
    for unit in SHAPES:
        yield f"{unit!r} x {size // len(unit)}", unit * (size // len(unit))


def deep_replies(depth: int = DEEP) -> Iterator[tuple[str, str]]:
    """(name, reply) of JSON nested `depth` levels: arrays, objects, and both around a plausible action."""
    yield "deep arrays", "[" * depth + "]" * depth
    yield "deep objects", '{"a":' * depth + "1" + "}" * depth
    yield "deep unclosed", '{"action": ' + "[" * depth
    yield "deep around an action", '{"a":' * depth + '{"action": "x", "skill_name": "look"}' + "}" * depth
    yield "deep in a fence", "```json\n" + "[" * depth + "]" * depth + "\n```"


def number_replies() -> Iterator[tuple[str, str]]:
    """(name, reply) holding integers of hundreds and thousands of digits, and floats out of range."""
    for digits in HUGE_DIGITS:
        number = "9" * digits
        yield f"{digits}-digit integer", number
        yield f"{digits}-digit integer in an object", '{"a": ' + number + ', "x": ' + number + "}"
    for text in ("1e400", "-1e400", "1e-400", "NaN", "Infinity", "-Infinity", "1" + "0" * 400 + ".5"):
        yield f"float {text[:12]}", '{"a": ' + text + ', "x": ' + text + ', "y": ' + text + "}"


def text_replies() -> Iterator[tuple[str, str]]:
    """(name, reply): five megabytes of text, control characters, lone surrogates, an empty reply."""
    yield "5 MB of text", "x" * (5 * MB)
    yield "5 MB string in JSON", '{"a": "' + "y" * (5 * MB) + '"}'
    yield "control characters", "".join(chr(c) for c in range(32)) * 1000 + "\x7f\x1b[31m\x9b"
    yield "lone surrogates", "\ud800 \udfff {\"a\": \"\ud800\"}"
    yield "empty", ""
    yield "nul bytes", "\x00" * MB


def hostile_replies() -> Iterator[tuple[str, str]]:
    """Every fixed hostile reply: pathological shapes, deep nesting, huge numbers, huge and odd text."""
    yield from shape_replies()
    yield from deep_replies()
    yield from number_replies()
    yield from text_replies()


def _scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(), st.booleans(),
        st.integers(), st.integers(min_value=10**300, max_value=10**400), st.just(-(10**400)),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=40), st.text(alphabet=st.characters(max_codepoint=31), max_size=20),
    )


#: any JSON-like value: scalars (huge integers, infinities, NaN, control characters) in lists and objects
json_values: st.SearchStrategy[Any] = st.recursive(
    _scalars(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


def _dump(value: Any) -> str:
    """JSON text of a value as a model could write it (NaN and Infinity included; integers of any size)."""
    try:
        return json.dumps(value)
    except ValueError:  # an integer past the interpreter's digit limit for str()
        return "9" * 5000


def mutations(valid: str) -> st.SearchStrategy[str]:
    """Replies made from a valid one: its JSON values swapped for values of other types and sizes, hostile text
    spliced into it, or it wrapped in a fence."""
    try:
        obj = json.loads(valid)
    except ValueError:
        obj = None
    keyed: list[st.SearchStrategy[str]] = []
    if isinstance(obj, dict) and obj:
        keys = sorted(_paths(obj))

        def swap(path: tuple[str, ...], value: Any) -> str:
            copy = json.loads(valid)
            holder = copy
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = value
            return _dump(copy)

        keyed.append(st.builds(swap, st.sampled_from(keys), json_values))
    spliced = st.builds(lambda at, junk: valid[:at] + junk + valid[at:],
                        st.integers(0, len(valid)), st.one_of(st.text(max_size=40), json_values.map(_dump)))
    fenced = st.builds(lambda lang: f"```{lang}\n{valid}\n```", st.sampled_from(["", "json", "JSON", "text"]))
    return st.one_of(*keyed, spliced, fenced, json_values.map(_dump))


#: JSON texts put in place of each value of a valid reply: other types, numbers far out of range, deep nesting
SWAPS = ("9" * 400, "-" + "9" * 400, "9" * 5000, "1e400", "-1e400", "NaN", "Infinity", "1e308", "-0.0", "0.5",
         "3", "true", "null", "[]", "{}", '""', '"x"', "[1, 2]", '{"a": 3}', "[" * DEEP + "]" * DEEP,
         json.dumps("\x00\x1b[2J" * 100), json.dumps("z" * MB))
_HOLE = "\u0000hole\u0000"


def swapped_replies(valid: str) -> Iterator[tuple[str, str]]:
    """(name, reply): a valid JSON reply with each of its values in turn replaced by each text of SWAPS."""
    try:
        obj = json.loads(valid)
    except ValueError:
        return
    if not isinstance(obj, dict):
        return
    for path in _paths(obj):
        copy = json.loads(valid)
        holder = copy
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = _HOLE
        text = json.dumps(copy)
        for swap in SWAPS:
            yield f"{'.'.join(path)} = {swap[:16]}", text.replace(json.dumps(_HOLE), swap)


def _paths(obj: dict[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for key, value in obj.items():
        yield (*prefix, key)
        if isinstance(value, dict):
            yield from _paths(value, (*prefix, key))


def valid_samples(valid_reply: Any, task: Any, observation: Any, count: int = 6) -> list[str]:
    """A few valid replies of a benchmark (`BenchmarkSpec.valid_reply`), the first option and seeded draws."""
    return [valid_reply(task, observation, None)] + [
        valid_reply(task, observation, random.Random(seed)) for seed in range(count - 1)]
