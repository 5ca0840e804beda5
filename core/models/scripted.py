"""Scripted models: `scripted/<name>` answers with a registered Python function, through litellm."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Messages = list[dict[str, Any]]
ScriptFn = Callable[..., str | Awaitable[str]]


@dataclass
class Script:
    """A registered scripted model: its reply function, a fixed latency, and how often it was called."""

    name: str
    fn: ScriptFn
    latency_s: float = 0.0
    calls: int = 0
    wants_metadata: bool = field(default=False, repr=False)

    async def reply(self, messages: Messages, metadata: Mapping[str, Any]) -> str:
        """Wait the fixed latency (without blocking the loop), then ask the function."""
        self.calls += 1
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        text = self.fn(messages, metadata) if self.wants_metadata else self.fn(messages)
        if inspect.isawaitable(text):
            text = await text
        if not isinstance(text, str):
            raise TypeError(f"script {self.name!r} returned {type(text).__name__}, not str")
        return text


_SCRIPTS: dict[str, Script] = {}


def register_script(name: str, fn: ScriptFn, *, latency_s: float = 0.0) -> Script:
    """Make `scripted/<name>` answer with `fn(messages)` or `fn(messages, metadata)`, sync or async."""
    script = Script(name, fn, latency_s, wants_metadata=_takes_metadata(fn))
    _SCRIPTS[name] = script
    return script


def get_script(name: str) -> Script:
    """The script registered as `name`; a LookupError naming the known ones otherwise."""
    try:
        return _SCRIPTS[name]
    except KeyError:
        known = ", ".join(sorted(_SCRIPTS)) or "none"
        raise LookupError(f"no script registered as 'scripted/{name}' (registered: {known})") from None


def registered_scripts() -> list[str]:
    """The names of every registered script (`scripted/<name>`), sorted."""
    return sorted(_SCRIPTS)


def _takes_metadata(fn: ScriptFn) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


class ReplayScript:
    """Recorded replies per episode: the request's `step` picks one, else they come in order."""

    def __init__(self, replies_by_key: Mapping[str, Sequence[str | None]]) -> None:
        self._replies = {key: list(replies) for key, replies in replies_by_key.items()}
        self._next: dict[str, int] = {}

    def __call__(self, messages: Messages, metadata: Mapping[str, Any]) -> str:
        """The recorded reply for `metadata["episode"]` at `metadata["step"]` (or the next one)."""
        key = metadata.get("episode")
        if key is None:
            raise LookupError("replay needs the episode: call complete(messages, episode=...)")
        replies = self._replies.get(key)
        if replies is None:
            raise LookupError(f"replay has no recorded replies for episode {key!r}")
        step = metadata.get("step")
        index = self._next.get(key, 0) if step is None else int(step)
        if index >= len(replies) or replies[index] is None:
            raise LookupError(f"replay has no recorded reply for episode {key!r} step {index}")
        self._next[key] = index + 1
        return replies[index]


def register_replay(replies_by_key: Mapping[str, Sequence[str | None]], name: str = "replay") -> ReplayScript:
    """Serve recorded replies as `scripted/<name>` (default `scripted/replay`), keyed by episode."""
    script = ReplayScript(replies_by_key)
    register_script(name, script)
    return script
