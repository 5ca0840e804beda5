"""Vigil's fixed vocabulary: skills, intents and their aliases, report statuses, families and their budgets."""

from __future__ import annotations

from dataclasses import dataclass

SKILLS = ("navigate", "look", "interact_pixel", "report")
NAV_MODES = ("forward", "backward", "turn_left", "turn_right")
LOOK_DIRECTIONS = ("up", "down")
#: The eight canonical intents (Table 5's body is lost; the set named across the paper's text).
INTENTS = ("ground", "activate", "deactivate", "open_access", "close_access", "pick", "place", "drop")
#: Common aliases normalised to the canonical intent at run time (the paper names open and toggle_on).
INTENT_ALIASES = {
    "open": "open_access", "close": "close_access", "toggle_on": "activate", "turn_on": "activate",
    "switch_on": "activate", "toggle_off": "deactivate", "turn_off": "deactivate", "switch_off": "deactivate",
    "pickup": "pick", "pick_up": "pick", "grab": "pick", "put": "place", "put_into": "place",
    "place_into": "place", "release": "drop", "click": "ground", "point": "ground", "select": "ground",
}
#: The eight report statuses; any other value is normalised to `invalid`.
STATUSES = ("success", "fail", "on", "off", "open", "closed", "unsafe", "invalid")
#: Statuses that count as an honest "not done" in goal-completion mode.
FAIL_STATUSES = ("fail", "unsafe", "invalid")
#: The simulator action each world-changing intent maps to (ground changes nothing; drop needs no pixel).
INTENT_ACTIONS = {
    "activate": "ToggleObjectOn", "deactivate": "ToggleObjectOff", "open_access": "OpenObject",
    "close_access": "CloseObject", "pick": "PickupObject", "place": "PutObject", "drop": "DropHandObject",
}
GRID_STEP = 0.25  # metres per navigate forward/backward step (AI2-THOR's default grid)


@dataclass(frozen=True)
class Family:
    """A task family: code, name, tier, step budget (Table 9) and whether its target is visible at the start."""

    code: str
    name: str
    tier: str
    max_steps: int
    visible_at_start: bool | None


FAMILIES = {f.code: f for f in (
    Family("PG", "Pixel Grounding", "diagnostic", 5, True),
    Family("DA", "Distance Approach", "diagnostic", 12, True),
    Family("VS", "View Search", "diagnostic", 20, False),
    Family("SV", "State Verification", "diagnostic", 5, True),
    Family("AI", "Approach & Interact", "compositional", 25, True),
    Family("SI", "Search & Interact", "compositional", 35, False),
    Family("SM", "Sequential Manipulation", "compositional", 30, None),
    Family("CR", "Constraint Resolving", "compositional", 40, False),  # behind the closed doors of its room
)}
FAMILY_CODES = tuple(FAMILIES)
SM_TEMPLATES = ("reveal_pick", "put_into", "rearrange", "open_pick_place")
SPEC_TYPES = ("target_grounded", "agent_near_target", "object_state", "object_held", "object_at_receptacle",
              "report_status")
