"""A model string litellm certainly cannot place, told apart without importing litellm (2-3 s of CPU), from the
files of the installed litellm: its model map and its provider enum.

Only the one case that is certain is decided here: a bare name (no `/`, no `:`), with no provider set in
`model.params` and no litellm proxy configured in the environment, that is in no list litellm derives from its
model map and matches none of its hard-coded name rules. Everything else goes to litellm itself
(`suite.models.preflight.check_model`), so this can only make the error come sooner, never change a verdict;
`tests/models/test_quick_names.py` checks that against the real `get_llm_provider`."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

#: Bare-name rules of litellm 1.106's `get_llm_provider` that hold for names outside its model map.
_NAME_RULES = ("gpt-image", "amazon_nova", "ft:", "*")


class LiteLLMFiles:
    """What `_unplaced` reads from the litellm module (`model_cost`, `provider_list`, `custom_provider_map`), read
    from the installed package's files instead."""

    def __init__(self, root: Path, custom: list[str]) -> None:
        self.model_cost: dict[str, Any] = json.loads(
            (root / "model_prices_and_context_window_backup.json").read_text(encoding="utf-8"))
        self.model_cost.pop("sample_spec", None)
        rules = self.model_cost.pop("fallback_generalizations", {}).get("rules", [])
        self.generalizations = [re.compile(rule["pattern"]) for rule in rules  # the routing rules name a provider
                                if rule.get("pattern") and rule.get("model_info", {}).get("litellm_provider")]
        self.provider_list = _providers(root / "types" / "utils.py")
        self.listed = _listed_names(root / "__init__.py") | _listed_names(root / "constants.py")
        self.listed |= {key.split("/", 1)[1] for key in self.model_cost if "/" in key}  # lists litellm strips
        self.custom_provider_map = [{"provider": name} for name in custom]


@cache
def _package_root() -> Path | None:
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    return Path(spec.origin).parent if spec and spec.origin else None


def _providers(path: Path) -> list[str]:
    """The values of litellm's `LlmProviders` enum, read from its source."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "LlmProviders":
            assigned = [n.value for n in node.body if isinstance(n, ast.Assign)]
            return [v.value for v in assigned if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return []


def _listed_names(path: Path) -> set[str]:
    """Every string in the literal lists and sets a litellm module assigns (its hard-coded model lists)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        for part in ast.walk(node.value):  # `[...]`, and `set([...])` and the like around one
            if isinstance(part, ast.List | ast.Set | ast.Tuple):
                names |= {e.value for e in part.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return names


def files(custom: list[str]) -> LiteLLMFiles | None:
    """litellm's model map and provider list from its files, or None where they cannot be read."""
    root = _package_root()
    if root is None:
        return None
    try:
        found = LiteLLMFiles(root, custom)
    except (OSError, ValueError, SyntaxError, KeyError, re.error):
        return None
    return found if found.provider_list and found.model_cost else None


def certainly_unplaced(model: str, params: Mapping[str, Any], known: LiteLLMFiles) -> bool:
    """Whether litellm's `get_llm_provider(model)` would refuse `model` (True only where that is certain)."""
    if "/" in model or ":" in model or any(params.get(k) for k in ("custom_llm_provider", "api_base")):
        return False
    if any(k.startswith(("LITELLM_PROXY", "USE_LITELLM_PROXY")) for k in os.environ):
        return False
    if model in known.model_cost or model in known.listed or model in known.provider_list:
        return False
    if model.startswith(_NAME_RULES) or any(rule.search(model) for rule in known.generalizations):
        return False
    return True
