"""Settings that need an optional package (an extra of embodied-suite): refused before the run when it is missing."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass

from suite.contract.errors import ConfigError


@dataclass(frozen=True)
class Requirement:
    """`setting` (as the user writes it) needs `module` importable, which the extra `extra` installs."""

    setting: str
    module: str
    extra: str


def installed(module: str) -> bool:
    """Whether a top-level module can be imported (without importing it)."""
    return importlib.util.find_spec(module) is not None


def check_requirements(requirements: Iterable[Requirement]) -> None:
    """One line naming the extra to install for the first requirement whose module is missing."""
    for req in requirements:
        if not installed(req.module):
            raise ConfigError(f"{req.setting} needs the {req.extra} extra ({req.module} is not installed): "
                              f"pip install 'embodied-suite[{req.extra}]' (in a checkout: pip install -e "
                              f"\".[{req.extra}]\")")
