"""Loads litellm on first use, offline and quiet, with the `scripted` provider registered."""

from __future__ import annotations

import functools
import logging
import os
import threading
from types import ModuleType
from typing import Any

_LOCK = threading.Lock()
_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
_CALLBACK_LISTS = (
    "callbacks",
    "input_callback",
    "success_callback",
    "failure_callback",
    "service_callback",
    "_async_input_callback",
    "_async_success_callback",
    "_async_failure_callback",
)
_litellm: ModuleType | None = None


def load_litellm() -> ModuleType:
    """Import litellm once: local cost map only, no logging or callbacks, reply bodies counted
    (`suite.models.transport`), `scripted/` registered."""
    global _litellm
    if _litellm is None:
        with _LOCK:
            if _litellm is None:
                os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # read at import: never fetch the map
                import litellm

                _quiet(litellm)
                from suite.models.transport import install

                install(litellm)
                from suite.models.scripted_llm import ScriptedLLM

                _put_provider(litellm, "scripted", ScriptedLLM())
                _litellm = litellm
    return _litellm


def skip_success_logging() -> Any:
    """Until `restore_success_logging(token)`: litellm schedules no deferred success logging for the calls of this
    context, while no litellm callback is registered (returns the token; None: logging left as it is).

    With every callback list empty (`_quiet`), that task (about 0.4 ms of CPU a call: a standard logging payload,
    a cost lookup) feeds nothing; the model layer prices replies itself. litellm's own switch for it is the
    `is_internal_call` context flag (pinned litellm version); a user who registers a litellm callback gets its
    logging back, as the flag is then left alone."""
    litellm = load_litellm()
    flag = _internal_call_flag()
    if flag is None:
        return None
    for name in _CALLBACK_LISTS:
        if getattr(litellm, name, None):
            return None
    return flag.set(True)


def restore_success_logging(token: Any) -> None:
    """Undo `skip_success_logging`."""
    if token is not None:
        try:
            _internal_call_flag().reset(token)
        except ValueError:  # reset from another context (a cancelled call's cleanup)
            pass


@functools.cache
def _internal_call_flag() -> Any:
    """litellm's `is_internal_call` ContextVar, or None where this litellm has none."""
    try:
        from litellm._internal_context import is_internal_call
    except ImportError:
        return None
    return is_internal_call


def register_provider(name: str, handler: Any) -> None:
    """Route `name/<model>` to a litellm `CustomLLM` handler (replaces an earlier one of that name)."""
    _put_provider(load_litellm(), name, handler)


def _put_provider(litellm: ModuleType, name: str, handler: Any) -> None:
    entries = [e for e in litellm.custom_provider_map if e["provider"] != name]
    litellm.custom_provider_map[:] = [*entries, {"provider": name, "custom_handler": handler}]


def _quiet(litellm: Any) -> None:  # the litellm module (typed Any: ModuleType declares none of its settings)
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" or "Provider List" prints
    litellm.set_verbose = False
    # litellm's message redaction deep-copies every logged response and logging payload (~0.1-0.2 ms a call);
    # with every callback list cleared below nothing receives those payloads, so there is nothing to redact
    litellm.turn_off_message_logging = False
    for name in _CALLBACK_LISTS:
        callbacks = getattr(litellm, name, None)
        if isinstance(callbacks, list):
            callbacks.clear()
    for name in _LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)
