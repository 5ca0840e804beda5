"""Issue 34: the instruction-keyword baseline (verb + object type per clause, blind wandering, the episode's own
budget), declared for the audit on a stratified subset of its sample."""

from __future__ import annotations

from suite_longact.baselines import KEYWORD_SAMPLE, BaselineAgent
from suite_longact.keywords import Clause, KeywordPolicy, clauses, first_type
from suite_longact.plugin import SHORTCUTS

INSTRUCTION = ("Get the house ready for a relaxing evening. Please put the statue on the coffee table in the living "
               "room to the side table in the living room; close the open curtains in the living room (leave the "
               "other curtains in the living room as they are); close the door between the kitchen and the living "
               "room; turn on the off light switch in the living room; make coffee in the mug on the dresser in the "
               "bedroom and put it on the desk in the bedroom; slice the bread. Leave everything else as you find it.")


def _prompt(lines: str, last: str = "none yet", held: str = "nothing") -> str:
    return (f"Instruction: {INSTRUCTION}\n\nStep 1 of at most 16000.\nHolding: {held}\nLast action: {last}\n\n"
            f"Instances in view (id | type | distance m):\n{lines}\n\nYour recent actions:\n(none yet)\n")


def test_clauses_keep_the_verb_and_the_types_only() -> None:
    assert clauses(INSTRUCTION) == [Clause("Move", "Statue", "SideTable"), Clause("Close", "Curtains"),
                                    Clause("Close", "Doorway"), Clause("ToggleOn", "LightSwitch"),
                                    Clause("Move", "Mug", "Desk"), Clause("Slice", "Bread")]
    assert first_type("the TV remote on the side table") == "RemoteControl"
    assert first_type("the desk lamp on the desk") == "DeskLamp"  # the longest phrase at the leftmost place


def test_the_policy_does_each_clause_to_whatever_of_its_type_is_in_reach() -> None:
    policy = KeywordPolicy("t", budget=100)
    near = "Curtains_1 | Curtains | 0.9\nStatue_2 | Statue | 1.2\nSideTable_1 | SideTable | 3.0"
    assert policy.act(_prompt(near)) == {"action": "Close", "object": "Curtains_1"}
    assert policy.act(_prompt(near, "Close Curtains_1 succeeded")) == {"action": "Pick", "object": "Statue_2"}
    # the list gives no reach: it tries the side table from where it stands, and after "too far" walks on
    place = {"action": "Place", "object": "SideTable_1"}
    assert policy.act(_prompt(near, "Pick Statue_2 succeeded", held="Statue_2")) == place
    assert policy.act(_prompt(near, "Place SideTable_1 failed: too far", held="Statue_2"))["action"].startswith(
        ("Move", "Rotate"))
    at_table = "SideTable_1 | SideTable | 0.8"
    for _ in range(8):  # once it has walked a step, it tries the table again
        step = policy.act(_prompt(at_table, f"{policy.last['action']} succeeded", held="Statue_2"))
        if step == place:
            break
    assert step == place
    assert policy.act(_prompt(near, "Place SideTable_1 succeeded")).get("object") != "Statue_2"  # done with it


def test_it_runs_to_the_episodes_budget_not_the_audits() -> None:
    (keyword,) = [b for b in SHORTCUTS if b.name == "keyword"]
    assert keyword.agent == "longact-keyword" and keyword.ceiling == 5.0 and keyword.limit == KEYWORD_SAMPLE
    assert KeywordPolicy.full_budget
    agent = BaselineAgent(type("Ctx", (), {"host": None, "benchmark": "longact"})(), KeywordPolicy)
    import asyncio

    from suite.contract.records import Task

    asyncio.run(agent.begin(Task("longact", "e", {}, max_steps=16000), None))
    assert agent.policy is not None and agent.policy.budget == 16000
