"""The core's plugin checks, run against AgentVQA on its generated pack."""

from suite.testing import PluginConformance


class TestAgentVQA(PluginConformance):
    plugin = "agentvqa"
    oracle_tasks = 3
