"""Scripted models: `scripted/<name>` answers with a registered Python function, through litellm.

Two are built in, for trying a benchmark offline with the default agent: `scripted/random` (a valid reply drawn
at random, seeded by the request's position) and `scripted/first-option` (always the first valid reply); what a
valid reply is, each benchmark says (`BenchmarkSpec.valid_reply`)."""

from __future__ import annotations

import asyncio
import inspect
import random
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Messages = list[dict[str, Any]]


@dataclass(frozen=True)
class ScriptedReply:
    """A script's answer with its own token counts (e.g. a replay's recorded ones) instead of estimates."""

    text: str
    prompt_tokens: int
    completion_tokens: int


ScriptFn = Callable[..., str | ScriptedReply | Awaitable[str | ScriptedReply]]


#: The request metadata key under which the `direct` agent hands a baseline script its benchmark's valid replies.
VALID_REPLY = "valid_reply"


@dataclass
class Script:
    """A registered scripted model: its reply function, a fixed latency, and how often it was called.

    `version` is new at every registration and part of the cache key of the script's replies: a script is cached
    only in the process that registered it (and the Ray workers it is shipped to), never served replies cached
    for an earlier version of its function."""

    name: str
    fn: ScriptFn
    latency_s: float = 0.0
    calls: int = 0
    wants_metadata: bool = field(default=False, repr=False)
    wants_valid_reply: bool = False
    #: whether the function may answer in a model-call worker process: it reads only its arguments and keeps no
    #: state (`calls` then counts only the calls made in this process)
    any_process: bool = False
    version: str = field(default_factory=lambda: secrets.token_hex(8), repr=False)

    async def reply(self, messages: Messages, metadata: Mapping[str, Any]) -> str | ScriptedReply:
        """Wait the fixed latency (without blocking the loop), then ask the function."""
        self.calls += 1
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        text = self.fn(messages, metadata) if self.wants_metadata else self.fn(messages)
        if inspect.isawaitable(text):
            text = await text
        if not isinstance(text, str | ScriptedReply):
            raise TypeError(f"script {self.name!r} returned {type(text).__name__}, not str or ScriptedReply")
        return text


_SCRIPTS: dict[str, Script] = {}


def register_script(name: str, fn: ScriptFn, *, latency_s: float = 0.0, valid_reply: bool = False,
                    any_process: bool = False) -> Script:
    """Make `scripted/<name>` answer with `fn(messages)` or `fn(messages, metadata)`, sync or async.

    With `valid_reply`, the `direct` agent puts the benchmark's `valid_reply(rng)` into `metadata["valid_reply"]`:
    `rng` a `random.Random` draws a valid reply, None gives the first one. With `any_process`, a run may send its
    calls to its model-call worker processes (`model.call_workers`): only for a function of its arguments alone."""
    script = Script(name, fn, latency_s, wants_metadata=_takes_metadata(fn), wants_valid_reply=valid_reply,
                    any_process=any_process)
    _SCRIPTS[name] = script
    return script


def get_script(name: str) -> Script:
    """The script registered as `name` (else a built-in one); a LookupError naming the known ones otherwise."""
    script = find_script(name)
    if script is None:
        known = ", ".join(sorted(_SCRIPTS.keys() | BUILTIN_SCRIPTS.keys()))
        raise LookupError(f"no script registered as 'scripted/{name}' (registered: {known})")
    return script


def find_script(name: str) -> Script | None:
    """The script answering `scripted/<name>` now, or None."""
    return _SCRIPTS.get(name) or BUILTIN_SCRIPTS.get(name)


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


Recorded = str | ScriptedReply | None
#: an episode's recorded replies: by (step, call within the step), or one per step (the call 0 of each)
Recordings = Mapping[tuple[int, int], Recorded] | Sequence[Recorded]


class ReplayScript:
    """Recorded replies per episode (with their recorded token counts when given as ScriptedReply): the
    request's `step` and `call` (its place within the step, which the client counts) pick one; a request
    without a step takes the next step's first call."""

    def __init__(self, replies_by_key: Mapping[str, Recordings]) -> None:
        self._replies = {key: dict(replies) if isinstance(replies, Mapping) else
                         {(step, 0): reply for step, reply in enumerate(replies)}
                         for key, replies in replies_by_key.items()}
        self._next: dict[str, int] = {}

    def __call__(self, messages: Messages, metadata: Mapping[str, Any]) -> str | ScriptedReply:
        """The recorded reply for `metadata["episode"]` at `metadata["step"]`, call `metadata["call"]`."""
        key = metadata.get("episode")
        if key is None:
            raise LookupError("replay needs the episode: call complete(messages, episode=...)")
        replies = self._replies.get(key)
        if replies is None:
            raise LookupError(f"replay has no recorded replies for episode {key!r}")
        step = metadata.get("step")
        index = self._next.get(key, 0) if step is None else int(step)
        call = 0 if step is None else int(metadata.get("call") or 0)
        reply = replies.get((index, call))
        if reply is None:
            raise LookupError(f"replay has no recorded reply for episode {key!r} step {index} call {call}")
        self._next[key] = index + 1
        return reply


def register_replay(replies_by_key: Mapping[str, Recordings], name: str = "replay") -> ReplayScript:
    """Serve recorded replies as `scripted/<name>` (default `scripted/replay`), keyed by episode."""
    script = ReplayScript(replies_by_key)
    register_script(name, script)
    return script


def _valid_reply(name: str, metadata: Mapping[str, Any]) -> Callable[[random.Random | None], str]:
    draw = metadata.get(VALID_REPLY)
    if draw is None:
        raise LookupError(f"scripted/{name} answers with a benchmark's valid replies: run it with the direct agent "
                          "on a benchmark that declares valid_reply")
    return draw


def random_reply(messages: Messages, metadata: Mapping[str, Any]) -> str:
    """A valid reply drawn at random, seeded by the request's position (a re-run draws the same replies)."""
    seed = f"{metadata.get('episode')}|{metadata.get('step')}|{metadata.get('call')}"
    return _valid_reply("random", metadata)(random.Random(seed))


def first_option(messages: Messages, metadata: Mapping[str, Any]) -> str:
    """The benchmark's first valid reply at every step."""
    return _valid_reply("first-option", metadata)(None)


#: Scripts every process knows (a registration under the same name takes precedence).
BUILTIN_SCRIPTS = {
    name: Script(name, fn, wants_metadata=True, wants_valid_reply=True)
    for name, fn in (("random", random_reply), ("first-option", first_option))
}
