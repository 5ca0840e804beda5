"""The `fixed-plan` shortcut baseline: a plan written from the task's goals alone, run without ever looking.

It reads the plan's goals (what the instruction asks) and the prompt's object list, writes the happy-path command
sequence once (fetch, slice, clean, switch, put), and plays it turn by turn whatever the views and the
Success/Failure feedback say; then it answers no action until the episode ends. It never opens a closed container
it has not been told about, never washes a dish it has not seen dirty, never retries: exactly the adaptation from
what the agent sees that AsgardBench measures."""

from __future__ import annotations

from typing import Any

from suite.contract.records import Action, Observation, StepRecord, Task
from suite.engine.agents import AgentContext, PolicyAgent

from suite_asgard.parsing import parse_reply
from suite_asgard.plans import Goals
from suite_asgard.vocabulary import SLICED_FORM, STORAGE

#: The whole each sliced type comes from (AppleSliced -> Apple).
WHOLE_OF = {piece: whole for whole, piece in SLICED_FORM.items()}
#: The command that makes a state goal hold from the state the instruction implies.
STATE_COMMANDS = {("isToggled", True): "TOGGLE_ON", ("isToggled", False): "TOGGLE_OFF",
                  ("isOpen", True): "OPEN", ("isOpen", False): "CLOSE", ("isDirty", False): "CLEAN"}
#: Action goals as the instruction names them ("Spray Mirror", "Drink Coffee") and the command they take.
ACTION_WORDS = {"spray": "SPRAY", "drink": "DRINK", "clean": "CLEAN", "empty": "EMPTY"}
#: Switches a blind plan leaves alone: the household goals ask them off, and they start off.
SWITCHES = frozenset({"CoffeeMachine", "Toaster", "StoveKnob", "Microwave", "Fridge", "Faucet"})


def _fetch(obj: str, plan: list[tuple[str, str]]) -> None:
    """Pick up `obj`, slicing its whole first when it is a slice."""
    whole = WHOLE_OF.get(obj)
    if whole:
        plan += [("FIND", "Knife"), ("PICKUP", "Knife"), ("FIND", whole), ("SLICE", whole),
                 ("PUT", "CounterTop"), ("FIND", obj)]
    else:
        plan.append(("FIND", obj))
    plan.append(("PICKUP", obj))


def _carry(obj: str, dest: str, plan: list[tuple[str, str]]) -> None:
    _fetch(obj, plan)
    plan += [("FIND", dest), ("PUT", dest)]


def blind_commands(goals: Goals) -> list[tuple[str, str]]:
    """The happy-path plan of the goals, in the order the instruction lists them."""
    plan: list[tuple[str, str]] = []
    for goal in goals.state:
        command = STATE_COMMANDS.get((goal.state, goal.value))
        if command and goal.object_type not in SWITCHES:
            plan += [("FIND", goal.object_type), (command, goal.object_type)]
    for name in goals.actions:
        verb, _, obj = name.partition(" ")
        command = ACTION_WORDS.get(verb.lower())
        if command and obj:
            plan += [("FIND", obj), (command, obj)]
    for location in goals.location:
        _carry(location.object_type, location.destination_type, plan)
    for obj in goals.put_away:
        _carry(obj, STORAGE.get(obj, ("Cabinet",))[0], plan)
    for contents in goals.contents:
        for obj in contents.contents:
            _carry(obj, contents.container_type, plan)
    return plan


def fixed_plan_agent(ctx: AgentContext) -> PolicyAgent:
    """The `fixed-plan` baseline agent: `blind_commands` of the task's goals, one per turn, never looking."""
    plans: dict[str, list[tuple[str, str]]] = {}

    def policy(task: Task, env: Any, observation: Observation, history: list[StepRecord]) -> Action:
        plan = plans.setdefault(task.key, blind_commands(task.data["plan"].goals))
        turn = len(history)
        text = "<answer>\n</answer>" if turn >= len(plan) else f"<answer>\nAction: {' '.join(plan[turn])}\n</answer>"
        return parse_reply(text, task.data["objects"])

    return PolicyAgent(policy)
