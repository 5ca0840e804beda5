"""`scripted/holomind-rules`: a deterministic, rule-following stand-in for a model that plays every HoloMind module
(registered by the LongAct plugin, so `suite run --agent holomind --model scripted/holomind-rules` works offline).

It reads each module's prompt: the goals are the instruction's clauses, each goal becomes find / pick / place or a
state change, the executor picks the best-matching listed instance, the critic reviews every plan as sound, lets a
running skill go on, passes what succeeded, asks for a local refinement when the object was out of view or reach
and for a replan otherwise, and the high-level planner gives up a goal whose replans failed. It shows the agent's
machinery on real episodes; it is not a baseline of any model.
"""

from __future__ import annotations

import json
import re
from typing import Any

from suite.models import register_script

from suite_longact.holomind.modules import text_of

VERBS = {"turn on": "toggle_on", "switch on": "toggle_on", "turn off": "toggle_off", "open": "open",
         "close": "close", "slice": "slice"}
#: failures a local fix (another viewpoint, another instance) may cure: the critic answers Refine
LOCAL = ("not in view", "out of reach", "is not in the spatial memory", "not interactable")
ROOMS = {"kitchen": "Kitchen", "living room": "LivingRoom", "bedroom": "Bedroom", "bathroom": "Bathroom"}


def _type_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]+", text.lower()) if w not in {"the", "a", "in", "on", "to", "and", "it"}]


def _best(lines: list[str], words: list[str]) -> str | None:
    """The listed instance whose type holds most of the words (then its room and receptacle)."""
    scored = []
    for line in lines:
        parts = line.split(" | ")
        if len(parts) < 3:
            continue
        otype = parts[1].strip().lower()
        hits = sum(w in otype for w in words)
        if hits:
            scored.append((-(3 * hits + sum(w in line.lower() for w in words)), parts[0].strip()))
    return min(scored)[1] if scored else None


def rules(messages: list[dict[str, Any]]) -> str:
    """Every HoloMind module, by rule."""
    system, user = messages[0]["content"], text_of(messages[1]["content"])
    if "watching one of its skills" in system:  # the critic after each raw action (critic_every=step): go on
        return json.dumps({"verdict": "Pass", "diagnosis": "the skill goes on"})
    if "check the spatial memory" in system:  # crop verification: a listed type that holds the goal's words
        wanted = _type_words(user.split("Goal:")[1].split("\n")[0])
        lines = user.split("Candidates")[1].splitlines()[1:]
        keep = [line.split(". ", 1)[1].split(" | ")[0] for line in lines if ". " in line and " | " in line
                and any(w in line.split(" | ")[1].lower() for w in wanted)]
        return json.dumps({"match": keep})
    if "Before the robot acts" in system:  # the critic's review of the sub-goals
        return json.dumps({"verdict": "Pass", "diagnosis": "the sub-goals follow the goal"})
    if "Reconsider the goal" in system:
        return json.dumps({"goal": "", "give_up": True})
    if "Split the instruction" in system:
        text = user.split("Instruction:")[1].split("\n\nMemory:")[0]
        body = text.split("Please", 1)[-1]
        clauses = [c.strip(" .") for c in re.split(r";", body) if c.strip(" .")]
        return json.dumps({"goals": [{"id": f"g{i}", "goal": c, "after": []} for i, c in enumerate(clauses, 1)]})
    if "Rewrite the next goal" in system:
        return json.dumps({"goal": user.split("Next goal:")[1].split("\n")[0].strip()})
    if "low-level planner" in system:
        goal = user.split("Goal:")[1].split("\n")[0].strip().lower()
        for verb, skill in VERBS.items():
            if goal.startswith(verb):
                thing = goal[len(verb):].strip()
                if skill == "slice":
                    return json.dumps({"subgoals": ["pick knife", f"slice {thing}"]})
                return json.dumps({"subgoals": [f"find {thing}", f"{skill} {thing}"]})
        m = re.match(r"(?:put|bring|take|throw|lay|set|move) (.+?) (?:to|in|on|into) (the .+)", goal)
        if m:
            return json.dumps({"subgoals": [f"find {m.group(1)}", f"pick {m.group(1)}", f"find {m.group(2)}",
                                            f"place {m.group(2)}"]})
        return json.dumps({"subgoals": [f"find {goal}"]})
    if "executor" in system:
        sub = user.split("Sub-goal:")[1].split("\n")[0].strip()
        verb, _, rest = sub.partition(" ")
        words = _type_words(rest)
        known = user.split("Remembered:")[1].split("Critic feedback:")[0].strip().splitlines()
        seen = user.split("In view now:")[1].split("Remembered:")[0].strip().splitlines()
        target = _best(seen + known, [w for w in words if w not in ROOMS and w not in {"room", "living"}])
        if verb == "find":
            if target:
                return json.dumps({"skill": "go_to", "target": target})
            room = next((v for k, v in ROOMS.items() if k in rest), None)
            return json.dumps({"skill": "go_to_room", "target": room} if room and "feedback: none" in user
                              else {"skill": "explore", "target": None})
        skill = {"pick": "pick", "place": "place"}.get(verb, verb)
        if target is None:
            return json.dumps({"skill": "explore", "target": None})
        return json.dumps({"skill": skill, "target": target})
    result = user.split("Result:")[1].split("\n")[0]
    if result.strip().startswith("ok"):
        return json.dumps({"verdict": "Pass", "diagnosis": "done"})
    if any(local in result for local in LOCAL):
        return json.dumps({"verdict": "Refine", "diagnosis": f"{result.strip()}: look from another viewpoint"})
    return json.dumps({"verdict": "Replan", "diagnosis": result.strip(), "rule": None})


def register() -> None:
    """Register `scripted/holomind-rules`."""
    register_script("holomind-rules", rules)
