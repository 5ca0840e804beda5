"""OmniEAR's learned task-blind flipper (issue 34): a policy that never reads the task, explores room by room and
applies state-changing verbs to every object it discovers, with the verbs it uses chosen per category on the
training fold (the set that solved most training tasks of the category; none, i.e. explore then DONE, when no set
solves any).

It reads the observation text (rooms, objects and their states, the verbs the step lists), the task's category
and its own earlier commands, never the task description. A verb applies to an object whose attribute has the
verb's `value` (the attribute-action table's rule), so each (object, attribute) is flipped once. The learner
plays every candidate set on the training tasks through the simulator (about 10 us a step), so fitting costs
well under a second a fold."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from suite.contract.records import Task
from suite.contract.registry import LearnedPolicy, Reading

_ROOM = re.compile(r"^▶ Room: .*\(ID: ([^)]+)\)")
_OBJECT = re.compile(r"^\s*◆ .*\(ID: ([^,]+), Type: (\w+)\)")
_STATE = re.compile(r"^\s*- (is_\w+): (True|False)")
_AGENT_AT = re.compile(r"• Location: .*\(ID: ([^)]+)\)")
_COMMAND = re.compile(r"Agent_1_Action: *(.+)")
_LISTED = re.compile(r"^([A-Z][A-Z_]+) <object_id>\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Scene:
    """What the observation text shows: rooms not yet explored, where agent 1 stands, and per discovered object
    its attributes' values, in the order the text lists them."""

    unexplored: tuple[str, ...]
    at: str | None
    states: tuple[tuple[str, str, bool], ...]  # (object id, attribute, value)
    verbs: frozenset[str]  # the attribute verbs the step lists


def read_scene(text: str, actions: str = "") -> Scene:
    """Parse the room/object text (and the step's action list, when given; else the verbs named in the text)."""
    unexplored, states = [], []
    room, obj, at = None, None, None
    details = False
    for line in text.splitlines():
        if line.startswith("================ Agent Details"):
            details = True
        found = _ROOM.match(line.strip())
        if found and not details:
            room, obj = found.group(1), None
            continue
        if details:
            where = _AGENT_AT.search(line)
            if where and at is None:
                at = where.group(1)
            continue
        if "Objects: Not yet discovered" in line and room:
            unexplored.append(room)
        found = _OBJECT.match(line)
        if found:
            obj = found.group(1)
            continue
        state = _STATE.match(line)
        if state and obj:
            states.append((obj, state.group(1), state.group(2) == "True"))
    verbs = frozenset(v.lower() for v in _LISTED.findall(actions or text))
    return Scene(tuple(unexplored), at, tuple(states), verbs)


def _done_commands(history: Iterable[tuple[str, str]] | None) -> list[str]:
    out = []
    for reply, _ in history or ():
        found = _COMMAND.search(reply or "")
        if found:
            out.append(found.group(1).strip())
    return out


def next_command(scene: Scene, verbs: frozenset[str], rules: dict[str, tuple[str, bool]], done: list[str]) -> str:
    """Agent 1's next command: explore an unexplored room it stands in, flip the next discovered (object,
    attribute) one of `verbs` applies to (going to it first), go to the next unexplored room, else DONE."""
    last = done[-1] if done else ""
    flipped = {tuple(c.split(" ", 1)) for c in done if " " in c}
    touched = {(c.split(" ", 1)[1], rules[c.split(" ", 1)[0].lower()][0]) for c in done
               if " " in c and c.split(" ", 1)[0].lower() in rules}
    if scene.at in scene.unexplored and "EXPLORE" not in done[-1:]:
        return "EXPLORE"
    for obj, attr, value in scene.states:
        if (obj, attr) in touched:
            continue
        for verb in sorted(verbs):
            if rules.get(verb) == (attr, value) and (verb.upper(), obj) not in flipped:
                return f"{verb.upper()} {obj}" if last == f"GOTO {obj}" else f"GOTO {obj}"
    for room in scene.unexplored:
        if f"GOTO {room}" not in done:
            return f"GOTO {room}"
    return "DONE"


def reply(reading: Reading, verbs: frozenset[str], rules: dict[str, tuple[str, bool]], agents: int) -> str:
    """The reply of the flipper with `verbs` to one step (agent 2, when there is one, explores, then waits)."""
    command = next_command(read_scene(reading.text or ""), verbs, rules, _done_commands(reading.history))
    lines = ["Thought: a task-blind plan.", f"Agent_1_Action: {command}"]
    if agents > 1:
        lines.append(f"Agent_2_Action: {'EXPLORE' if command != 'DONE' else 'DONE'}")
    return "\n".join(lines)


def rules_of(task: Task) -> dict[str, tuple[str, bool]]:
    """verb -> (attribute, the value it applies to), from the task's attribute-action table (no-tool verbs: a
    flipper holds no tool)."""
    table = task.data["attribute_table"]
    return {name.lower(): (a.attribute, bool(a.value)) for name, a in table.actions.items() if not a.requires_tool}


def candidates(rules: dict[str, tuple[str, bool]]) -> list[frozenset[str]]:
    """The verb sets a fold's learner tries: none, each verb alone, each attribute's pair, all of them."""
    by_attr: dict[str, set[str]] = {}
    for verb, (attr, _) in rules.items():
        by_attr.setdefault(attr, set()).add(verb)
    out = [frozenset(), frozenset(rules)]
    out += [frozenset({v}) for v in sorted(rules)]
    out += [frozenset(vs) for _, vs in sorted(by_attr.items()) if len(vs) > 1]
    return list(dict.fromkeys(out))


@cache
def _default_config() -> Any:
    from omegaconf import OmegaConf
    from suite.engine.host import default_config

    return OmegaConf.create(OmegaConf.to_container(default_config(["omniear"]).omniear))


def play(task: Task, verbs: frozenset[str], rules: dict[str, tuple[str, bool]]) -> bool:
    """Whether the flipper with `verbs` solves the task (played through the simulator and the parser)."""
    from suite_omniear import prompting
    from suite_omniear.plugin import OmniEnv

    env = OmniEnv(task, _default_config())
    obs = env.reset()
    history: list[tuple[str, str]] = []
    agents = int(task.data["agents"])
    for _ in range(task.max_steps or 35):
        text = reply(Reading(text=obs.text, history=tuple(history)), verbs, rules, agents)
        action = prompting.parse_reply(text, agents)
        if not action.ok:
            break
        result = env.step(action.value)
        history.append((text, result.feedback))
        obs = result.observation
        if result.done:
            break
    return bool(env.sim.task_success)


def fit(train: Sequence[Task]) -> LearnedPolicy:
    """Per category, the candidate verb set that solves most training tasks (ties: the smaller set)."""
    rules = rules_of(train[0]) if train else {}
    by_category: dict[str | None, list[Task]] = {}
    for task in train:
        by_category.setdefault(task.category, []).append(task)
    chosen: dict[str | None, frozenset[str]] = {}
    for category, tasks in by_category.items():
        scored = [(sum(play(t, verbs, rules) for t in tasks), -len(verbs), sorted(verbs)) for verbs in
                  candidates(rules)]
        best = max(scored)
        chosen[category] = frozenset(best[2]) if best[0] else frozenset()
    agents_of = {t.category: int(t.data["agents"]) for t in train}

    def policy(reading: Reading) -> str:
        verbs = chosen.get(reading.category, frozenset())
        return reply(reading, verbs, rules, agents_of.get(reading.category, 1))

    policy.chosen = chosen  # type: ignore[attr-defined]
    return policy
