"""The template plugin passes the conformance suite that ships with embodied-suite."""

from suite.testing import PluginConformance


class TestTemplatePlugin(PluginConformance):
    plugin = "template"
    oracle_tasks = 3
