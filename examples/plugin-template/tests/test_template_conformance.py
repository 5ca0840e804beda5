"""The template plugin passes the conformance suite that ships with embodied-suite."""

from suite.testing import PluginConformance


class TestTemplatePlugin(PluginConformance):
    plugin = "template"
    oracle_tasks = 3


def test_settle_follows_the_shared_precedence() -> None:
    """An unparsable last reply after parsed moves is a spent budget, not a parse failure (docs/plugins.md)."""
    from suite.contract.records import Action, StepRecord, Task, Trajectory
    from suite_template.plugin import CounterEnv, settle

    task = Task("counter", "t", {"id": "t", "start": 0, "target": 2, "max_steps": 2}, max_steps=2)
    env = CounterEnv(task)
    env.step("+1")
    moved = StepRecord(0, Action(value="+1", text="+1"))
    garbled = StepRecord(1, Action.failure("no 'ACTION: +1|-1|DONE' line", text="hmm"))
    spent = settle(benchmark="counter", task=task, trajectory=Trajectory(task, steps=[moved, garbled],
                                                                          end_reason="max_steps"), env=env)
    assert spent.outcome == "budget_exhausted"
    never = settle(benchmark="counter", task=task, trajectory=Trajectory(task, steps=[garbled, garbled],
                                                                          end_reason="max_steps"), env=CounterEnv(task))
    assert never.outcome == "parse_failure"
