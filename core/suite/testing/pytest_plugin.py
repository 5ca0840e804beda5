"""pytest plugin (entry point `pytest11: suite`): fixtures for testing embodied-suite plugins."""

from __future__ import annotations

import pytest

from suite.engine.host import PluginHost, build_host


@pytest.fixture
def suite_host() -> PluginHost:
    """A plugin host built from the installed entry points (and SUITE_PLUGIN_MODULES)."""
    return build_host()
