"""What the `asgard` config section accepts (checked by the core before a run's first episode)."""

from __future__ import annotations

from typing import Any

from suite.contract.settings import MODEL_DEFAULTS, MODEL_PRESET, MODEL_PRESETS, OPTIONAL_PATH, one_of, optional_list

from suite_asgard.conditions import FEEDBACK_MODES, IMAGE_MODES
from suite_asgard.termination import PROGRESS_RULES
from suite_asgard.vocabulary import TASK_TYPES

BACKENDS = ("household", "ai2thor")

CONDITION: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "images": one_of(IMAGE_MODES),
        "feedback": one_of(FEEDBACK_MODES),
        "hand_opacity": {"type": "number", "minimum": 0, "maximum": 1},
        "memory": {"type": "boolean"},
    },
}

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "data_dir": OPTIONAL_PATH,
        "test_set": {"type": "string", "minLength": 1},
        "item_cache": OPTIONAL_PATH,
        "task_types": optional_list(one_of(TASK_TYPES)),
        "scenes": optional_list({"type": "string", "minLength": 1}),
        "image_size": {"type": "integer", "minimum": 16},
        "field_of_view": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 180},
        "visibility_distance": {"type": "number", "exclusiveMinimum": 0},
        "env": {"type": "object", "properties": {"backend": one_of(BACKENDS)}},
        "prompt_dir": OPTIONAL_PATH,
        "common_sense": {"type": "boolean"},
        "system_message": {"type": "boolean"},
        "termination": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "loop_repeats": {"type": "integer", "minimum": 2},
                "loop_counts_unparsable": {"type": "boolean"},
                "progress": one_of(PROGRESS_RULES),
            },
        },
        "condition": {"type": "string", "minLength": 1},
        "conditions": {"type": "object", "additionalProperties": CONDITION},
        "model_defaults": MODEL_DEFAULTS,
        "model_preset": MODEL_PRESET,
        "model_presets": MODEL_PRESETS,
    },
}
