"""Vigil's shortcut baselines: blind policies that never read the frame, only the instruction, the step budget and
the step index.

Each policy is a pure function `(instruction, max_steps, step) -> action dict`. The same functions serve three
users: the scripted models `scripted/vigil-<name>` (registered by the plugin, declared to `suite audit`), the pack
generator (which redraws any candidate episode one of them solves) and the tests. The kinds, after issue 21's
table: one click at the image centre or at fixed points then report (PG); walk forward, or turn a little and walk,
then report (DA); turn 45 degrees eight times, or walk 2 m and then turn, then report (VS); switch or open what is
at the centre, then report the state just set (SV); walk, turn and act
at the centre with the instruction's intent, then report (AI, SI, SM, CR); one policy that picks the family's kind
from the instruction and the budget; and report `success` at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from suite.contract.records import Task, Trajectory
from suite.contract.registry import OVERALL, ShortcutBaseline
from suite.validity.baselines import STOP_AT_ONCE

from suite_vigil.vocabulary import FAMILIES, FAMILY_CODES

CENTRE = (320, 240)
Policy = Callable[[str, int, int], dict[str, Any]]
#: ceilings (issue 21): chance + 10 points per family, chance + 5 over the pack; chance is 50 on SV (a binary label
#: on a target visible without acting), 0 wherever the world must change
CHANCE = {**{f: 0.0 for f in FAMILY_CODES}, "SV": 50.0}
CHANCE[OVERALL] = sum(CHANCE[f] for f in FAMILY_CODES) / len(FAMILY_CODES)
CEILING = {**{f: CHANCE[f] + 10.0 for f in FAMILY_CODES}, OVERALL: CHANCE[OVERALL] + 5.0}


def _report(status: str = "success") -> dict[str, Any]:
    return {"skill_name": "report", "arguments": {"status": status, "summary": "done"}}


def _click(intent: str) -> dict[str, Any]:
    return {"skill_name": "interact_pixel", "arguments": {"intent": intent, "x": CENTRE[0], "y": CENTRE[1]}}


def _forward(steps: int = 1) -> dict[str, Any]:
    return {"skill_name": "navigate", "arguments": {"mode": "forward", "magnitude": steps}}


def _turn(degrees: float = 45) -> dict[str, Any]:
    return {"skill_name": "navigate", "arguments": {"mode": "turn_right", "magnitude": degrees}}


def _drop() -> dict[str, Any]:
    return {"skill_name": "interact_pixel", "arguments": {"intent": "drop"}}


def family_of(instruction: str, max_steps: int) -> str:
    """The family an instruction and budget belong to, read as a blind policy would (wording and budget only)."""
    text = instruction.lower()
    if max_steps == FAMILIES["PG"].max_steps:
        return "PG" if "click" in text or "ground" in text else "SV"
    by_budget = {f.max_steps: code for code, f in FAMILIES.items() if code not in ("PG", "SV")}
    return by_budget.get(max_steps, "AI")


def intent_of(instruction: str) -> str:
    """The interaction the instruction asks for: activate, deactivate, open_access, close_access or pick."""
    text = instruction.lower()
    for pattern, intent in ((r"\bturn on\b|\bswitch on\b", "activate"), (r"\bturn off\b|\bswitch off\b", "deactivate"),
                            (r"\bopen\b", "open_access"), (r"\bclose\b", "close_access")):
        if re.search(pattern, text):
            return intent
    return "pick"


def _sv_state(instruction: str) -> tuple[str, str]:
    """SV: the intent that sets the first label of the question, and that label (on/activate, open/open_access)."""
    return ("activate", "on") if " on or off" in instruction.lower() else ("open_access", "open")


def report_at_once(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """Report success before doing anything."""
    return _report()


def centre_click(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """PG: ground whatever is at the image centre, then report success."""
    return _click("ground") if step == 0 else _report()


EDGES = ((160, 240), (480, 240), (320, 120), (320, 360))  # the midpoints of a 3x3 grid's outer cells' sides
CORNERS = ((160, 120), (480, 120), (160, 360), (480, 360))


def _grid(points: tuple[tuple[int, int], ...], step: int) -> dict[str, Any]:
    if step < len(points):
        x, y = points[step]
        return {"skill_name": "interact_pixel", "arguments": {"intent": "ground", "x": x, "y": y}}
    return _report()


def edge_clicks(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """PG: ground four fixed points around the centre in turn (left, right, top, bottom), then report success."""
    return _grid(EDGES, step)


def corner_clicks(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """PG: ground the four fixed corner points of a 3x3 grid in turn, then report success."""
    return _grid(CORNERS, step)


def walk_forward(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """DA: one step forward at a time until one step is left, then report success."""
    return _forward() if step < max_steps - 1 else _report()


def stride_forward(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """DA: two steps (0.5 m) forward at a time until one step is left, then report success."""
    return _forward(2) if step < max_steps - 1 else _report()


def walk_and_look(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """VS: one metre forward, then a quarter turn right twice, over and over; report success at the last step."""
    if step >= max_steps - 1:
        return _report()
    return _forward(4) if step % 3 == 0 else _turn(90)


def low_click(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """PG: ground the point right of centre in the bottom eighth of the frame (400, 420), where close targets sat
    most often in the generator-2 pack, then report success."""
    if step:
        return _report()
    return {"skill_name": "interact_pixel", "arguments": {"intent": "ground", "x": 400, "y": 420}}


def veer_walk(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """DA: turn 20 degrees right once, then walk straight on one step at a time; report success at the last step."""
    if step >= max_steps - 1:
        return _report()
    return _turn(20) if step == 0 else _forward()


def walk_then_spin(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """VS: walk 2 m straight on, then turn right 45 degrees at a time; report success at the last step."""
    if step >= max_steps - 1:
        return _report()
    return _forward(8) if step == 0 else _turn(45)


def turn_around(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """VS: turn right 45 degrees eight times (a full circle on the spot), then report success."""
    return _turn(45) if step < min(8, max_steps - 1) else _report()


def force_state(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """SV: switch on / open whatever is at the image centre, then report that state."""
    intent, label = _sv_state(instruction)
    return _click(intent) if step == 0 else _report(label)


def walk_and_act(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """AI: act at the centre with the instruction's intent, step forward, and again, until the last step; report."""
    if step >= max_steps - 1:
        return _report()
    return _click(intent_of(instruction)) if step % 2 == 0 else _forward()


THIRDS = ((320, 240), (213, 320), (427, 320))  # the centre and the lower thirds' crossings


def walk_act_thirds(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """AI: walk 1 m, then act with the instruction's intent at the centre and the two lower thirds and step 0.25 m
    forward, over and over; report success at the last step."""
    if step >= max_steps - 1:
        return _report()
    if step == 0:
        return _forward(4)
    k = (step - 1) % (len(THIRDS) + 1)
    if k == len(THIRDS):
        return _forward()
    x, y = THIRDS[k]
    return {"skill_name": "interact_pixel", "arguments": {"intent": intent_of(instruction), "x": x, "y": y}}


def search_and_act(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """SI: act at the centre, turn 45 degrees, act, step forward, ... until the last step; report success."""
    if step >= max_steps - 1:
        return _report()
    return (_click(intent_of(instruction)), _turn(45), _click(intent_of(instruction)), _forward())[step % 4]


def pick_and_place(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """SM: open, pick and place at the centre, stepping and turning between tries, until the last step; report."""
    if step >= max_steps - 1:
        return _report()
    return (_click("open_access"), _click("pick"), _forward(), _click("place"), _turn(45))[step % 5]


def clear_and_act(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """CR: pick up what is at the centre, turn round, drop it, turn back, then walk and act as AI does (picking up
    at the centre between strides too); report success."""
    if step >= max_steps - 1:
        return _report()
    if step < 4:
        return (_click("pick"), _turn(180), _drop(), _turn(180))[step]
    return (_forward(2), _click("pick"), _click(intent_of(instruction)), _turn(45))[(step - 4) % 4]


#: the blind kind each family's own baseline plays
FAMILY_POLICY: dict[str, Policy] = {"PG": centre_click, "DA": walk_forward, "VS": walk_then_spin, "SV": force_state,
                                    "AI": walk_and_act, "SI": search_and_act, "SM": pick_and_place,
                                    "CR": clear_and_act}


def combined(instruction: str, max_steps: int, step: int) -> dict[str, Any]:
    """Every family's blind kind, picked from the instruction's wording and the step budget."""
    return FAMILY_POLICY[family_of(instruction, max_steps)](instruction, max_steps, step)


@dataclass(frozen=True)
class Blind:
    """A blind baseline: its name, its policy, the families it is declared for (None: all) and what it does."""

    name: str
    policy: Policy
    families: tuple[str, ...] | None
    description: str


BLIND = (
    Blind("vigil-report-at-once", report_at_once, None, "reports success at once, never acts or looks"),
    Blind("vigil-blind-centre-click", centre_click, ("PG",), "PG: grounds the image centre, reports success"),
    Blind("vigil-blind-edge-clicks", edge_clicks, ("PG",), "PG: grounds four fixed points around the centre "
                                                            "in turn, then reports success"),
    Blind("vigil-blind-corner-clicks", corner_clicks, ("PG",), "PG: grounds four fixed corner points in turn, "
                                                              "then reports success"),
    Blind("vigil-blind-low-click", low_click, ("PG",), "PG: grounds (400, 420), low right of centre, then reports "
                                                       "success"),
    Blind("vigil-blind-walk-forward", walk_forward, ("DA",), "DA: walks forward one step at a time, then reports"),
    Blind("vigil-blind-stride-forward", stride_forward, ("DA",), "DA: walks forward 0.5 m at a time, then "
                                                                 "reports"),
    Blind("vigil-blind-veer-walk", veer_walk, ("DA",), "DA: turns 20 degrees right, then walks straight on, then "
                                                       "reports"),
    Blind("vigil-blind-walk-spin", walk_then_spin, ("VS",), "VS: walks 2 m straight on, then turns 45 degrees at a "
                                                           "time, then reports"),
    Blind("vigil-blind-walk-look", walk_and_look, ("VS",), "VS: walks 1 m, turns right twice, and again, then "
                                                           "reports"),
    Blind("vigil-blind-turn-around", turn_around, ("VS",), "VS: turns 45 degrees eight times, then reports"),
    Blind("vigil-blind-force-state", force_state, ("SV",),
          "SV: switches on / opens the image centre, then reports that state"),
    Blind("vigil-blind-walk-act", walk_and_act, ("AI",), "AI: acts at the centre with the instruction's intent "
                                                         "and steps forward, in turn, then reports"),
    Blind("vigil-blind-walk-act-thirds", walk_act_thirds, ("AI",), "AI: walks 1 m, then acts at the centre and "
                                                                    "the lower thirds, steps, and again"),
    Blind("vigil-blind-search-act", search_and_act, ("SI",), "SI: acts at the centre, turns, acts, steps, ..."),
    Blind("vigil-blind-pick-place", pick_and_place, ("SM",), "SM: opens, picks and places at the centre, "
                                                             "stepping and turning between tries"),
    Blind("vigil-blind-clear-act", clear_and_act, ("CR",), "CR: picks up at the centre, drops it behind, then "
                                                           "walks and acts"),
    Blind("vigil-blind-combined", combined, None, "every family's blind kind, chosen from the instruction's "
                                                  "wording and the step budget (never looks at the image)"),
)
BY_NAME = {b.name: b for b in BLIND}
BY_POLICY = {b.name: b.policy.__name__ for b in BLIND}


def applies(blind: Blind, family: str) -> bool:
    """Whether a baseline is declared for (and run by the generator on) a family."""
    return blind.families is None or family in blind.families


def _user_text(messages: list[dict[str, Any]]) -> str:
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return "\n".join(out)


def read_prompt(messages: list[dict[str, Any]]) -> tuple[str, int]:
    """The instruction and the step budget from a Vigil prompt's text parts (the image parts are never read)."""
    text = _user_text(messages)
    tasks = re.findall(r"Task: ?(.+)", text)
    if not tasks:
        raise ValueError("no 'Task:' line in the prompt")
    instruction = tasks[-1].strip()
    budget = re.search(r"at most (\d+)", text)
    if budget:
        return instruction, int(budget.group(1))
    # the paper's protocol shows no budget (vigil.step_count=false): guess it from the wording alone, PG's and SV's
    # short one for a click or grounding order or a question about a state, else AI's
    lowered = instruction.lower()
    short = "click" in lowered or "ground" in lowered or "?" in instruction
    return instruction, FAMILIES["PG" if short else family_of(instruction, 0)].max_steps


def script(policy: Policy) -> Callable[[list[dict[str, Any]], Mapping[str, Any]], str]:
    """A scripted model (`register_script`) playing `policy`: the step index comes from the request metadata."""

    def reply(messages: list[dict[str, Any]], metadata: Mapping[str, Any]) -> str:
        instruction, budget = read_prompt(messages)
        return json.dumps(policy(instruction, budget, int(metadata.get("step") or 0)))

    reply.__doc__ = policy.__doc__
    return reply


def register_scripts() -> None:
    """Register `scripted/<name>` for every blind baseline (idempotent)."""
    from suite.models import register_script

    for blind in BLIND:
        register_script(blind.name, script(blind.policy))


def declared() -> list[ShortcutBaseline]:
    """The baselines `suite audit` runs on Vigil, with chance and ceiling per family and overall."""
    out = []
    for blind in BLIND:
        fams = blind.families or FAMILY_CODES
        keys = (*fams, OVERALL) if blind.families is None else fams
        name = STOP_AT_ONCE if blind.policy is report_at_once else blind.name  # replaces the generic one
        out.append(ShortcutBaseline(
            name, blind.description, model=f"scripted/{blind.name}",
            config={} if blind.families is None else {"vigil.families": list(fams)},
            ceiling={k: CEILING[k] for k in keys}, chance={k: CHANCE[k] for k in keys}, metric="B", blind=True))
    return out


def play(task: Task, policy: Policy) -> tuple[Any, list[bool]]:
    """Run a blind policy on one task through the env and the parser, in this process (no loop, no images): the
    settlement, and whether the goal held after each of its steps (where it did, the same policy cut short there
    and reporting success would have solved the episode)."""
    from suite_vigil import scoring
    from suite_vigil.parsing import parse_reply
    from suite_vigil.plugin import make_env

    ep = task.data["episode"]
    env = make_env("vigil", task, None)
    try:
        env.skip_images()
        env.sim.render = False
        env.reset()
        step = 0
        while True:
            action = parse_reply(json.dumps(policy(ep["instruction"], int(ep["max_steps"]), step))).value
            step += 1
            if env.step(action).done:
                break
        return scoring.settle(task, Trajectory(task=task), env), [bool(s.goal) for s in env.state.log]
    finally:
        env.close()


def solved_by(task: Task, family: str) -> list[str]:
    """The blind baselines (declared for the family) that solve the task or any of whose prefixes would (the goal
    held after one of its steps: walking k steps instead of 11, turning k times, and so on). SV is exempt: its
    blind baselines are label guesses, held at chance by balanced labels instead."""
    if family == "SV":
        return []
    ep = task.data["episode"]
    plays_own = family_of(ep["instruction"], ep["max_steps"]) == family
    out = []
    for b in BLIND:
        if not applies(b, family) or (b.policy is combined and plays_own):
            continue  # the combined policy plays the family's own kind here: the same actions
        settlement, goals = play(task, b.policy)
        if settlement.metrics["B"] or any(goals):
            out.append(b.name)
    if plays_own and FAMILY_POLICY[family].__name__ in {BY_POLICY[n] for n in out}:
        out.append("vigil-blind-combined")
    return out
