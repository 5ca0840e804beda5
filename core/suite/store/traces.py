"""Episode traces: JSONL files appended as an episode runs, each distinct prompt message stored once by hash.

A step line names its prompt's messages by hash (`messages`); a `message` line before the first step that uses
a message holds it, either whole (`message`) or, when it shares most of its text with the message at the same
place in the previous prompt (a history that grows inside one message), as that message's text with a middle
part replaced (`base`, `keep_start`, `keep_end`, `insert`, on the canonical JSON text). So a trace grows with
what is new in each step, not with the prompt's length. `read_trace` gives every step its `prompt` back.

Lines written on an event loop reach the file within `FLUSH_AFTER_S` (a timer on that loop flushes them, so a step
costs no system call of its own), when the trace is closed, at the end of a run (`flush_all`) and at exit; a kill
loses at most the last `FLUSH_AFTER_S` of lines of the episodes in flight, which a resumed run runs again anyway.
Lines written outside an event loop are flushed at once.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import json
import weakref
from collections.abc import Iterator
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import Any

from suite.contract.errors import DataError
from suite.contract.records import Observation, canonical
from suite.contract.schemas import parse_json

TRACE_SCHEMA = Path(__file__).parents[1] / "jsonschemas" / "trace_line.schema.json"
MIN_SHARED_CHARS = 256  # a message is stored as an edit of its predecessor only when they share this much
ENCODE_ERRORS = "backslashreplace"  # a lone surrogate in a JSON string is written as its own \uXXXX escape
#: How long a line written on an event loop may wait in memory before it is flushed to the file.
FLUSH_AFTER_S = 0.05


def message_hash(text: str) -> str:
    """The content address of a message's canonical text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _shared_start(a: str, b: str) -> int:
    """Length of the longest common prefix (binary search over slice comparisons, done in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _shared_end(a: str, b: str, limit: int) -> int:
    """Length of the longest common suffix, at most `limit`."""
    low, high = 0, min(limit, len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid:len(a) - low] == b[len(b) - mid:len(b) - low]:
            low = mid
        else:
            high = mid - 1
    return low


def _plain(value: Any) -> Any:
    """JSON for what a plugin may put in a step's info: dataclasses as dicts, anything else as text."""
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return str(value)


#: `json.dumps(..., ensure_ascii=False, default=_plain)`, its encoder made once rather than at every line
_LINE = json.JSONEncoder(ensure_ascii=False, default=_plain)


def dumps(event: dict[str, Any]) -> str:
    """One trace line (without its newline)."""
    return _LINE.encode(event)


#: The cause a trace's `cut_off` line gives when the Ray executor lost the attempt's node: its model calls are paid
#: again by the retry.
NODE_LOST = "node_lost"


def frame_path(stem: str, step: int, index: int) -> str:
    """Where the `index`-th image of the observation after `step` steps is stored, relative to the run folder."""
    return f"frames/{stem}/{step:04d}_{index}.png"


class TraceWriter:
    """Appends an episode's events to its JSONL trace as they happen; images go to frames/ as PNG."""

    def __init__(self, root: Path, path: Path, stem: str) -> None:
        self.root = root
        self.path = path
        self.stem = stem
        self._fh = path.open("w", encoding="utf-8", errors=ENCODE_ERRORS)
        self._stored: set[str] = set()
        self._previous: list[tuple[str, str]] = []  # (hash, canonical text) of the last prompt's messages
        self._frames: dict[int, tuple[bytes, str]] = {}  # per image index: the last frame written and its file
        self._flush_on: asyncio.AbstractEventLoop | None = None  # the loop a flush of what was written is due on
        _open_writers.add(self)

    def write(self, event: dict[str, Any]) -> None:
        """Append one event (flushed within FLUSH_AFTER_S on an event loop, else at once)."""
        self._fh.write(dumps(event) + "\n")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        if self._flush_on is not loop:  # none due, or due on a loop that closed before its timer fired
            self._flush_on = loop
            loop.call_later(FLUSH_AFTER_S, self.flush)

    def flush(self) -> None:
        """Write what this trace holds in memory to its file."""
        self._flush_on = None
        if not self._fh.closed:
            self._fh.flush()

    def write_step(self, step: dict[str, Any], texts: list[str | None] | None = None) -> None:
        """Append a step line: its prompt's messages by hash, each new one stored first;
        `texts`: the messages' canonical JSON texts where known."""
        prompt = step.pop("prompt", None)
        step["messages"] = None if prompt is None else self._intern(prompt, texts)
        self.write(step)

    def _intern(self, prompt: list[dict[str, Any]], texts: list[str | None] | None = None) -> list[str]:
        """Hashes of the prompt's messages; writes (unflushed) a line for each one this trace does not hold yet."""
        current = []
        known = texts if texts is not None and len(texts) == len(prompt) else [None] * len(prompt)
        for i, message in enumerate(prompt):
            text = known[i] or canonical(message)
            key = message_hash(text)
            current.append((key, text))
            if key in self._stored:
                continue
            self._stored.add(key)
            # whole, the message is its canonical text (sorted keys): the line is made around it, not encoded again
            line = f'{{"type": "message", "hash": "{key}", "message": {text}}}\n'
            if i < len(self._previous) and min(len(text), len(self._previous[i][1])) >= MIN_SHARED_CHARS:
                base_key, base = self._previous[i]
                start = _shared_start(base, text)
                end = _shared_end(base, text, min(len(base), len(text)) - start)
                if start + end >= MIN_SHARED_CHARS:
                    line = dumps({"type": "message", "hash": key, "base": base_key, "keep_start": start,
                                  "keep_end": end, "insert": text[start:len(text) - end]}) + "\n"
            self._fh.write(line)
        self._previous = current
        return [key for key, _ in current]

    def store_images(self, observation: Observation, step: int) -> list[dict[str, Any]]:
        """Write an observation's in-memory images as PNG files; return their references. A frame equal to the
        previous step's at the same index is not written again: its reference names the earlier file."""
        refs = []
        for i, image in enumerate(observation.images):
            if image.path is None and image.png is not None:
                last = self._frames.get(i)
                if last is not None and last[0] == image.png:
                    image.path = last[1]
                else:
                    rel = Path(frame_path(self.stem, step, i))
                    (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
                    (self.root / rel).write_bytes(image.png)
                    image.path = str(rel)
                    self._frames[i] = (image.png, image.path)
            refs.append(image.to_json())
        return refs

    def close(self) -> None:
        """Close the file (what it holds in memory is written first)."""
        self._fh.close()
        _open_writers.discard(self)


#: Every trace this process has open (a run's end and the process's exit flush them; one dropped unclosed is
#: flushed by its file's finaliser).
_open_writers: weakref.WeakSet[TraceWriter] = weakref.WeakSet()


@atexit.register
def flush_all() -> None:
    """Flush every open trace of this process (an episode cut off leaves its trace open)."""
    for writer in list(_open_writers):
        writer.flush()


def _events(path: Path, cut_ok: bool = False, messages: bool = True) -> Iterator[dict[str, Any]]:
    """The events of a trace file as stored (message lines too, unless not `messages`); a DataError naming the file
    and line when one is not a JSON object with a `type` (bad bytes, nesting too deep), but with `cut_ok` a last
    line a kill cut off before its end is skipped."""
    with Path(path).open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            if not raw.strip() or (not messages and raw.startswith(b'{"type": "message"')):
                continue
            try:
                event = parse_json(raw.decode("utf-8"), f"{path} (line {number})")
            except (UnicodeDecodeError, DataError):
                if cut_ok and not raw.endswith(b"\n"):
                    continue
                raise DataError(path, f"line {number}", "a trace event (a JSON object in UTF-8)") from None
            if not isinstance(event, dict) or not isinstance(event.get("type"), str):
                raise DataError(path, f"line {number}", "a trace event (a JSON object with a type)")
            yield event


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The lines of a trace file as stored (message lines included); a DataError naming the file and line when one
    is not a trace event."""
    return _events(path)


def read_trace(path: Path, prompts: bool = True) -> list[dict[str, Any]]:
    """A trace's events (start, steps, end), each step with its `prompt` rebuilt from the stored messages
    (`prompts=False` skips that and leaves the hashes in `messages`). Traces written before messages were
    stored by hash keep their inline `prompt`."""
    if not prompts:
        return [e for e in read_lines(path) if e["type"] != "message"]
    events, texts = read_trace_messages(path)
    for event in events:
        if event.get("messages") is not None:
            event["prompt"] = [json.loads(texts[key]) for key in event["messages"]]
    return events


def read_trace_messages(path: Path) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """A trace's events with each step's prompt by hash (`messages`), and every stored message's canonical JSON
    text by its hash (what a reader showing many steps keeps once, instead of one prompt per step)."""
    texts: dict[str, str] = {}
    events = []
    for event in read_lines(path):
        if event["type"] != "message":
            events.append(event)
            continue
        try:
            if "message" in event:
                texts[event["hash"]] = canonical(event["message"])
            else:
                base = texts[event["base"]]
                texts[event["hash"]] = (base[:event["keep_start"]] + event["insert"]
                                        + base[len(base) - event["keep_end"]:])
        except (KeyError, TypeError) as exc:
            raise DataError(path, "/", f"a whole trace (a message line lacks or misnames {exc})") from None
    return events, texts


@dataclass
class Spend:
    """Model calls, tokens and dollars of one or more episode attempts (tokens served from the response cache
    apart: they cost nothing)."""

    attempts: int = 0
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    earlier_run_replies: int = 0  # replies served from the cache that an earlier run stored (`--cache`)

    @property
    def tokens(self) -> int:
        """Prompt and completion tokens spent, together."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def cached_tokens(self) -> int:
        """Prompt and completion tokens served from the cache, together."""
        return self.cached_prompt_tokens + self.cached_completion_tokens

    def add(self, other: Spend) -> None:
        """Add another attempt's (or sum's) spend to this one."""
        self.attempts += other.attempts
        self.steps += other.steps
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.cached_prompt_tokens += other.cached_prompt_tokens
        self.cached_completion_tokens += other.cached_completion_tokens
        self.earlier_run_replies += other.earlier_run_replies


def trace_spend(path: Path) -> tuple[str | None, Spend, str | None]:
    """The benchmark (None before the episode started), what the steps of one trace file spent, and why the attempt
    was cut off when its trace says (NODE_LOST), else None."""
    benchmark, spend, cause = None, Spend(attempts=1), None
    for event in _events(path, cut_ok=True, messages=False):  # a trace cut off by a kill may end half-written
        if event["type"] == "start":
            benchmark = event["benchmark"]
        elif event["type"] == "step":
            usage = event["usage"]
            spend.steps += 1
            spend.prompt_tokens += usage["prompt_tokens"]
            spend.completion_tokens += usage["completion_tokens"]
            spend.cost_usd += usage["cost_usd"]
            spend.cached_prompt_tokens += usage.get("cached_prompt_tokens", 0)
            spend.cached_completion_tokens += usage.get("cached_completion_tokens", 0)
            spend.earlier_run_replies += usage.get("earlier_run_replies", 0)
        elif event["type"] == "cut_off":
            cause = event.get("cause")
    return benchmark, spend, cause
