"""The conformance kit every plugin runs against itself (on the generated pack)."""

from __future__ import annotations

from suite.testing import PluginConformance


class TestLongAct(PluginConformance):
    plugin = "longact"
    overrides = ["longact.image_size=64"]
