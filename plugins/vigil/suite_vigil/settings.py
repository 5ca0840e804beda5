"""What the `vigil` config section accepts (checked by the core before a run's first episode)."""

from __future__ import annotations

from typing import Any

from suite.contract.settings import MODEL_DEFAULTS, MODEL_PRESET, MODEL_PRESETS, OPTIONAL_PATH, one_of, optional_list

from suite_vigil.goals import NEAR_MEASURES, SV_RULES
from suite_vigil.prompting import PROMPTS
from suite_vigil.sim import BACKENDS
from suite_vigil.vocabulary import FAMILY_CODES

COORDS = ("native", "normalized_1000")

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "data_dir": OPTIONAL_PATH,
        "prompt_dir": OPTIONAL_PATH,
        "families": optional_list(one_of(FAMILY_CODES)),
        "coords": one_of(COORDS),
        "prompt": one_of(PROMPTS),
        "feedback": {"type": "boolean"},
        "images": {"type": "boolean",
                   "description": "false: no frame is rendered or sent (blind; the audit's blind baselines)"},
        "step_count": {"type": "boolean", "description": "show 'Step k of at most N' (the paper's agent is not told)"},
        "invalid_reason": {"type": "boolean",
                           "description": "show why a reply was invalid (the paper's base condition does not)"},
        "near_to": {**one_of(NEAR_MEASURES),
                    "description": "DA's distance: centre (the paper's Euclidean distance) or box (nearest point)"},
        "sv_world": {**one_of(SV_RULES),
                     "description": "SV's world: unchanged (visible, preset state untouched) or visible (the paper's)"},
        "env": {"type": "object", "additionalProperties": False, "properties": {"backend": one_of(BACKENDS)}},
        "invalid_limits": {
            "type": "object",
            "description": "the invalid-action limit of each family (Table 8's values are lost from the paper)",
            "additionalProperties": False,
            "required": list(FAMILY_CODES),
            "properties": {code: {"type": "integer", "minimum": 0} for code in FAMILY_CODES},
        },
        "model_defaults": MODEL_DEFAULTS,
        "model_preset": MODEL_PRESET,
        "model_presets": MODEL_PRESETS,
    },
}
