"""embodied-suite: run embodied-agent benchmarks against any model and compare them in one table.

The Python API (`suite.api`) is reachable from here without importing it up front: `suite.run(...)`,
`suite.arun(...)`, `suite.resume(...)`, `suite.load(path)`, `suite.validate(...)`, `suite.audit(...)`, `suite.Run`.
"""

import os
from typing import Any

__version__ = "0.1.0"

# litellm fetches its model cost map from the internet when first imported unless told not to; plugins (and
# tests) may import litellm before the suite's own lazy loader does, so the suite says it at its own import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

#: the API's names, imported from `suite.api` on first use (so `import suite` stays quick: no litellm, no pandas)
API = ("Frames", "Run", "Validation", "aresume", "arun", "audit", "load", "resume", "run", "validate")


def __getattr__(name: str) -> Any:
    """`suite.<name>` for the API's names, from `suite.api` on first use."""
    if name in API:
        import suite.api

        return getattr(suite.api, name)
    raise AttributeError(f"module 'suite' has no attribute {name!r}")
