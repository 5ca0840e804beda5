"""What the `omniear` config section accepts (checked by the core before a run's first episode)."""

from __future__ import annotations

from typing import Any

from suite.contract.settings import MODEL_DEFAULTS, OPTIONAL_PATH, one_of, optional_list

from suite_omniear.data import CATEGORIES, SPLITS
from suite_omniear.sim.fixes import FIXES
from suite_omniear.sim.simulator import OBSERVATION_MODES

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "data_dir": OPTIONAL_PATH,
        "splits": {"type": "array", "items": one_of(SPLITS), "minItems": 1, "uniqueItems": True},
        "categories": optional_list(one_of(CATEGORIES)),
        "scenes": optional_list({"type": ["string", "integer"]}),
        "observation_mode": one_of(OBSERVATION_MODES),
        "max_steps": {"type": "integer", "minimum": 1},
        "max_history_single": {"type": "integer", "minimum": 0},
        "max_history_multi": {"type": "integer", "minimum": 0},
        "exclude_scalar_max_size": {"type": "boolean"},
        "fixes": {"type": "array", "items": one_of(sorted(FIXES)), "uniqueItems": True},
        "prompt_dir": OPTIONAL_PATH,
        "model_defaults": MODEL_DEFAULTS,
    },
}
