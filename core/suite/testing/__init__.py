"""The kit for plugin authors: a conformance suite any plugin runs against itself, and pytest fixtures.

    from suite.testing import PluginConformance

    class TestMyPlugin(PluginConformance):
        plugin = "myplugin"          # the entry-point name
        overrides = ["mybench.data_dir=tests/data"]   # optional config overrides
"""

from suite.testing.conformance import PluginConformance, oracle_episode

__all__ = ["PluginConformance", "oracle_episode"]
