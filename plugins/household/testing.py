"""Test helpers for plugins on the household simulator: a stand-in `ai2thor.controller` module."""

from __future__ import annotations

import sys
import types
from typing import Any


def install_fake_ai2thor(monkeypatch: Any, controller: type) -> type:
    """Make `from ai2thor.controller import Controller` give `controller` for this test (pytest monkeypatch)."""
    pkg, mod = types.ModuleType("ai2thor"), types.ModuleType("ai2thor.controller")
    mod.Controller = controller
    monkeypatch.setitem(sys.modules, "ai2thor", pkg)
    monkeypatch.setitem(sys.modules, "ai2thor.controller", mod)
    return controller
