"""The conformance kit every plugin runs against itself (on the generated pack, the offline default)."""

from __future__ import annotations

from suite.testing import PluginConformance


class TestAsgard(PluginConformance):
    plugin = "asgard"
    overrides = ["asgard.image_size=96"]
