"""The conformance kit every plugin passes."""

from __future__ import annotations

from suite.testing import PluginConformance


class TestVigilConformance(PluginConformance):
    plugin = "vigil"
    oracle_tasks = 1
