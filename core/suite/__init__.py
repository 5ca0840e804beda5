"""embodied-suite: run embodied-agent benchmarks against any model and compare them in one table."""

import os

__version__ = "0.1.0"

# litellm fetches its model cost map from the internet when first imported unless told not to; plugins (and
# tests) may import litellm before the suite's own lazy loader does, so the suite says it at its own import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
