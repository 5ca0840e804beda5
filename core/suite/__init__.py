"""embodied-suite: run embodied-agent benchmarks against any model and compare them in one table.

The Python API (`suite.api`) is reachable from here without importing it up front: `suite.run(...)`,
`suite.arun(...)`, `suite.resume(...)`, `suite.load(path)`, `suite.validate(...)`, `suite.audit(...)`, `suite.Run`.
"""

import os
import types
from typing import Any

__version__ = "0.1.0"

# litellm fetches its model cost map from the internet when first imported unless told not to; plugins (and
# tests) may import litellm before the suite's own lazy loader does, so the suite says it at its own import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

#: the API's names, imported from `suite.api` on first use (so `import suite` stays quick: no litellm, no pandas)
API = ("Frames", "Run", "Validation", "aresume", "arun", "load", "resume", "validate")


def __getattr__(name: str) -> Any:
    """`suite.<name>` for the API's names, from `suite.api` on first use."""
    if name in API:
        import suite.api

        return getattr(suite.api, name)
    raise AttributeError(f"module 'suite' has no attribute {name!r}")


class _CallableGroup(types.ModuleType):
    """The `suite.run` and `suite.audit` packages (groups of the core), which are also the API's `suite.run(...)` and
    `suite.audit(...)`: Python binds a subpackage's name on its parent whenever it is imported, so a plain function
    of that name could not stay there."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the API function of this group's name (`suite.api.run`, `suite.api.audit`)."""
        import suite.api

        return getattr(suite.api, self.__name__.rpartition(".")[2])(*args, **kwargs)


def _callable_groups() -> None:
    from suite import audit, run  # their `__init__`s hold only a docstring

    for group in (audit, run):
        group.__class__ = _CallableGroup


_callable_groups()
