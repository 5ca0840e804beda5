"""What the `agentvqa` config section accepts (checked by the core before a run's first episode)."""

from __future__ import annotations

from typing import Any

from suite.contract.settings import MODEL_DEFAULTS, MODEL_PRESET, MODEL_PRESETS, OPTIONAL_PATH, one_of, optional_list

from suite_agentvqa.prompting import VIDEO_PARTS
from suite_agentvqa.taxonomy import CATEGORIES, DATASETS, DOMAIN_BY_KEY

#: `frames`: every video as `num_frames` evenly spaced frames; `native`: video files (mp4, webm, ...) sent whole,
#: for models that accept video (the paper gave such models the video).
VIDEO_MODES = ("frames", "native")

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "data_dir": OPTIONAL_PATH,
        "datasets": optional_list(one_of(DATASETS)),
        "domains": optional_list(one_of(DOMAIN_BY_KEY)),
        "categories": optional_list(one_of(CATEGORIES)),
        "limit_per_dataset": {"type": ["integer", "null"], "minimum": 1},
        "sample_seed": {"type": "integer"},
        "shuffle": {"type": "boolean"},
        "shuffle_seed": {"type": "integer"},
        "circular": {"type": "boolean"},
        "num_frames": {"type": "integer", "minimum": 1},
        "video_mode": one_of(VIDEO_MODES),
        "video_part": one_of(VIDEO_PARTS),
        "media_labels": {"type": "boolean"},
        "history": {"type": "boolean", "description": "false: leave the previous actions out (Figure 5's ablation)"},
        "image_detail": {"enum": ["high", "low", "auto", None]},
        "prompt_dir": OPTIONAL_PATH,
        "constant_letter": {"type": "string", "pattern": "^\\s*[A-Za-z]\\s*$"},
        "model_defaults": MODEL_DEFAULTS,
        "model_preset": MODEL_PRESET,
        "model_presets": MODEL_PRESETS,
    },
}
