"""LongAct's action space (ALFRED-style: 8 navigation, 7 manipulation, Stop) and its checklist state types."""

from __future__ import annotations

NAVIGATION = ("MoveAhead", "MoveBack", "MoveLeft", "MoveRight", "RotateLeft", "RotateRight", "LookUp", "LookDown")
MANIPULATION = ("Pick", "Place", "Open", "Close", "ToggleOn", "ToggleOff", "Slice")
STOP = "Stop"
ACTIONS = (*NAVIGATION, *MANIPULATION, STOP)

#: the AI2-THOR call behind each manipulation action
THOR_ACTION = {
    "Pick": "PickupObject",
    "Place": "PutObject",
    "Open": "OpenObject",
    "Close": "CloseObject",
    "ToggleOn": "ToggleObjectOn",
    "ToggleOff": "ToggleObjectOff",
    "Slice": "SliceObject",
}
MOVES = {"MoveAhead": 0, "MoveBack": 180, "MoveLeft": 270, "MoveRight": 90}
ROTATIONS = ("RotateLeft", "RotateRight")
LOOKS = ("LookUp", "LookDown")

#: the paper's granularity: "Rotation and movement are set to 30 degrees and 0.05 m"
MOVE_M = 0.05
ROTATE_DEG = 30.0
LOOK_DEG = 30.0  # unspecified in the paper: AI2-THOR's default horizon step
#: the efficiency accounting: one step per 0.25 m moved, per 30 degrees turned, per interaction
EFFICIENCY_M = 0.25

#: checklist attributes (AI2-THOR metadata names) and the paper's GC-by-type columns
ATTRS = ("position", "isOpen", "isToggled", "isSliced", "isCooked", "isFilledWithLiquid")
KIND_OF = {
    "position": "PP",
    "isToggled": "TO",
    "isOpen": "OC",
    "isSliced": "Sl",
    "isCooked": "CK",
    "isFilledWithLiquid": "FW",
}
KINDS = ("PP", "TO", "OC", "Sl", "CK", "FW")
SCENARIOS = ("cleaning", "work_study", "rest_entertainment", "dining_kitchen")
SCENARIO_TITLES = {
    "cleaning": "Daily Cleaning & Tidying",
    "work_study": "Work & Study Preparation",
    "rest_entertainment": "Rest & Entertainment",
    "dining_kitchen": "Dining & Kitchen Related",
}
SPLITS = ("detailed", "concise")
