"""What the `longact` config section accepts (checked by the core before a run's first episode)."""

from __future__ import annotations

from typing import Any

from suite.contract.settings import MODEL_DEFAULTS, OPTIONAL_PATH, one_of, optional_list

from suite_longact.vocabulary import SCENARIOS, SPLITS

IMAGE_MODES = ("rgb", "depth", "segmentation")
ACCUMULATED = ("current", "ever")  # GC of the state now, or of items that ever held
AXES = ("raw", "efficiency", "active")
NORMALISE = ("none", "final")  # IR on the GC as it is, or on the GC divided by its final value
REGRESS_ON = ("time", "index")  # IR's regressions on normalised time (default) or on the index (the printed formula)
BACKENDS = ("household", "ai2thor")

POSITIVE = {"type": "number", "exclusiveMinimum": 0}

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "data_dir": OPTIONAL_PATH,
        "split": one_of(SPLITS),
        "scenarios": optional_list(one_of(SCENARIOS)),
        "max_steps": {"type": "integer", "minimum": 1},
        "image_size": {"type": "integer", "minimum": 16},
        "images": {"type": "array", "items": one_of(IMAGE_MODES), "uniqueItems": True},
        "field_of_view": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 180},
        "visibility_distance": POSITIVE,
        "interaction_distance": POSITIVE,
        "move_m": POSITIVE,
        "rotate_deg": POSITIVE,
        "look_deg": POSITIVE,
        "count_looks": {"type": "boolean"},
        "privileged_hints": {"type": "boolean"},
        "opaque_ids": {"type": "boolean"},
        "history": {"type": "integer", "minimum": 0},
        "max_instances": {"type": "integer", "minimum": 1},
        "prompt_dir": OPTIONAL_PATH,
        "ir": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "n": {"type": "integer", "minimum": 2},
                "accumulated": one_of(ACCUMULATED),
                "axis": one_of(AXES),
                "normalise": one_of(NORMALISE),
                "regress_on": one_of(REGRESS_ON),
            },
        },
        "env": {"type": "object", "properties": {"backend": one_of(BACKENDS)}},
        "model_defaults": MODEL_DEFAULTS,
    },
}

HOLOMIND_MODULES = ("high_planner", "low_planner", "executor", "critic")
HOLOMIND_ABLATIONS = ("high_planner", "episodic_memory", "critic")  # the paper's Table 4 rows
#: when the critic judges: after every raw action of a skill (the paper's) or once when the skill has ended
CRITIC_EVERY = ("step", "skill")
_MODULE = {"type": "object", "additionalProperties": False,
           "properties": {"model": {"type": ["string", "null"], "minLength": 1}}}
#: what `agent.holomind` accepts (checked when the agent is made, before its first call)
HOLOMIND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "modules": {"type": "object", "additionalProperties": False,
                    "properties": {m: _MODULE for m in HOLOMIND_MODULES}},
        "max_replans": {"type": "integer", "minimum": 0},
        "max_escalations": {"type": "integer", "minimum": 0},
        "history": {"type": "integer", "minimum": 0},
        "shared_experience": {"type": "boolean"},
        "critic_every": one_of(CRITIC_EVERY),
        "verify": {"type": "boolean"},
        "ablate": {"type": ["string", "null"], "enum": [None, *HOLOMIND_ABLATIONS]},
        "images": {"type": "array", "items": one_of(IMAGE_MODES), "uniqueItems": True},
        "image_modules": {"type": "array", "items": one_of(HOLOMIND_MODULES), "uniqueItems": True},
        "prompt_dir": OPTIONAL_PATH,
        "max_goals": {"type": "integer", "minimum": 1},
        "max_rules": {"type": "integer", "minimum": 0},
        "max_calls_per_step": {"type": "integer", "minimum": 1},
    },
}
