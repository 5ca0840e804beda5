"""The episode data files of the HTML report, packed by size (see docs/report.md, "Episode data files").

Each episode is cut into parts: part 0 (its head: record, start, end, panels, a one-line outline of every step,
and as many first steps as fit) and, for a long episode, further parts of consecutive steps, each with the
prompt messages its steps name. Parts are appended in order to `data/ep/<k>.js` files of at most `budget` bytes
(a part is never split, so only a single step larger than the budget, or a head whose outline alone is, makes a
file larger: at 2 MB that is an episode of over 15,000 steps with 100-character actions). The viewer loads an
episode's head, then only the parts holding the steps it shows; frames are image files the steps reference.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

#: the default size of one episode data file
CHUNK_BYTES = 2_000_000
#: an outline entry (a step's action text) longer than this is cut, and a hash of the whole text added
OUTLINE_CHARS = 100


def script_json(value: Any) -> str:
    """JSON inside a script file: `<`, `>`, `&` and line separators as \\u escapes, so no text can close a tag."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def action_text(step: dict[str, Any]) -> str:
    """What the viewer shows as a step's action (its `actionText`): the parse failure, the text or the value."""
    action = step.get("action") or {}
    if action.get("parse_error"):
        return f"parse failure: {action['parse_error']}"
    return action.get("text") or json.dumps(action.get("value"), ensure_ascii=False, sort_keys=True,
                                            separators=(",", ":"))


def outline_entry(step: dict[str, Any]) -> list[Any]:
    """[action text (cut, with a hash of the whole where cut, so two steps compare equal only when equal), parse
    failure (0 or 1)]: what the filmstrip and the side-by-side divergence need of a step not loaded yet."""
    text = action_text(step)
    if len(text) > OUTLINE_CHARS:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        text = f"{text[:OUTLINE_CHARS]}… #{digest}"
    return [text, 1 if (step.get("action") or {}).get("parse_error") else 0]


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def episode_parts(episode: dict[str, Any], budget: int) -> list[str]:
    """The episode's parts as JSON texts: the head first (with `step_count`, `outline`, `part_starts`: the first
    step of each part, and `steps`/`messages` of its first steps), then {first, steps, messages} per part."""
    steps = episode.pop("steps")
    messages = episode.pop("messages")
    head = {**episode, "step_count": len(steps), "outline": [outline_entry(s) for s in steps]}
    texts = {key: script_json(value) for key, value in messages.items()}
    groups: list[list[int]] = [[]]
    size = _size(script_json({**head, "part_starts": [0] * 64})) + 64  # room for the list of part starts
    held: set[str] = set()
    step_texts = [script_json(s) for s in steps]
    for i, text in enumerate(step_texts):
        new = [k for k in steps[i].get("messages") or [] if k in texts and k not in held]
        grow = _size(text) + 2 + sum(_size(texts[k]) + len(k) + 8 for k in new)
        if size + grow > budget and (groups[-1] or len(groups) == 1):  # a new part (the head may hold none)
            groups.append([])
            held, size = set(), 64
            new = [k for k in steps[i].get("messages") or [] if k in texts]
            grow = _size(text) + 2 + sum(_size(texts[k]) + len(k) + 8 for k in new)
        groups[-1].append(i)
        held.update(new)
        size += grow
    starts = [g[0] if g else 0 for g in groups]
    parts = []
    for n, group in enumerate(groups):
        keys = dict.fromkeys(k for i in group for k in steps[i].get("messages") or [] if k in texts)
        body = (f'"messages": {{{", ".join(f"{json.dumps(k)}: {texts[k]}" for k in keys)}}}, '
                f'"steps": [{", ".join(step_texts[i] for i in group)}]')
        if n == 0:
            fields = script_json({**head, "part_starts": starts})
            parts.append(f"{fields[:-1]}, {body}}}")
        else:
            parts.append(f'{{"first": {starts[n]}, {body}}}')
    return parts


class ChunkWriter:
    """Appends episode parts to `data/ep/<k>.js` files of at most `budget` bytes, one file open at a time."""

    def __init__(self, folder: Path, budget: int = CHUNK_BYTES) -> None:
        self.folder = folder
        self.budget = budget
        self.count = 0  # files written
        self._lines: list[str] = []
        self._size = 0

    def add(self, n: int, part: int, text: str) -> int:
        """Append part `part` of episode `n`; returns the number of the file it went to."""
        line = f"SUITE.part({n}, {part}, {text});\n"
        size = _size(line)
        if self._lines and self._size + size > self.budget:
            self.flush()
        self._lines.append(line)
        self._size += size
        return self.count

    def flush(self) -> None:
        """Write the file being filled (if any) and start the next."""
        if self._lines:
            (self.folder / f"{self.count}.js").write_text("".join(self._lines), encoding="utf-8")
            self.count += 1
            self._lines, self._size = [], 0


def write_episode(writer: ChunkWriter, n: int, episode: dict[str, Any]) -> list[int]:
    """Write episode `n` in parts; the files holding them, in part order (the index row's `files`)."""
    budget = writer.budget - 64  # the line's `SUITE.part(n, k, ...);` around the part
    return [writer.add(n, k, text) for k, text in enumerate(episode_parts(episode, budget))]


def read_episode(site: Path, n: int) -> dict[str, Any]:
    """Episode `n` of a built site put back together (its head with every step and message): for tests and tools."""
    index = json.loads((site / "data" / "index.js").read_text(encoding="utf-8")
                       .removeprefix("SUITE.index = ").removesuffix(";\n"))
    files = index["rows"][n][index["columns"].index("files")]
    episode: dict[str, Any] = {}
    prefix = f"SUITE.part({n}, "
    for file in dict.fromkeys(files):  # parts in order: the head first
        for line in (site / "data" / "ep" / f"{file}.js").read_text(encoding="utf-8").splitlines():
            if line.startswith(prefix):
                data = json.loads(line[len(prefix):].partition(", ")[2].removesuffix(");"))
                episode = {**episode, **data, "steps": episode.get("steps", []) + data["steps"],
                           "messages": {**episode.get("messages", {}), **data["messages"]}}
    episode.pop("first", None)
    return episode
