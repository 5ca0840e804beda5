"""A model string litellm certainly cannot place, told apart without importing litellm (2-3 s of CPU), from the
files of the installed litellm: its model map, its provider enum and JSON providers, and the source of
`get_llm_provider` (which sets it consults, which prefixes it tests) and of the import step that fills those sets.

Only what is certain is decided here: a bare name, or a `prefix/name` whose prefix is no provider, with no provider
set in `model.params` and no litellm proxy configured in the environment, that no consulted set holds and no rule of
litellm's places. Everything else goes to litellm itself (`suite.models.preflight.check_model`), so this can only
make the error come sooner, never change a verdict; `tests/models/test_quick_names.py` checks that against the real
`get_llm_provider`."""

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

#: Name rules of litellm 1.106's `get_llm_provider` that its source does not spell as `model.startswith(...)`.
_NAME_RULES = ("gpt-image", "amazon_nova", "ft:", "*")
_LOGIC = Path("litellm_core_utils") / "get_llm_provider_logic.py"


class LiteLLMFiles:
    """What `get_llm_provider` consults, read from the installed litellm's files: its model map, its provider enum
    and JSON providers, the names its per-provider sets hold (filled from the model map as litellm fills them at
    import, plus their literal entries), and the prefixes it tests with `model.startswith`."""

    def __init__(self, root: Path, custom: list[str]) -> None:
        self.model_cost: dict[str, Any] = json.loads(
            (root / "model_prices_and_context_window_backup.json").read_text(encoding="utf-8"))
        self.model_cost.pop("sample_spec", None)
        rules = self.model_cost.pop("fallback_generalizations", {}).get("rules", [])
        self.generalizations = [re.compile(rule["pattern"]) for rule in rules  # the routing rules name a provider
                                if rule.get("pattern") and rule.get("model_info", {}).get("litellm_provider")]
        self.provider_list = _providers(root / "types" / "utils.py")
        json_providers = root / "llms" / "openai_like" / "providers.json"
        self.json_providers = set(json.loads(json_providers.read_text(encoding="utf-8"))) \
            if json_providers.exists() else set()
        consulted, self.prefixes = _consulted(root / _LOGIC)
        self.listed = _filled_sets(root / "__init__.py", self.model_cost, consulted)
        for module in (root / "__init__.py", root / "constants.py"):
            self.listed |= _literal_entries(module, consulted)
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


def _consulted(path: Path) -> tuple[set[str], tuple[str, ...]]:
    """The `litellm.<set>` names `get_llm_provider` tests a model string against, and its `model.startswith`
    prefixes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_llm_provider")
    sets: set[str] = set()
    prefixes: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.In) for op in node.ops):
            sets |= {c.attr for c in node.comparators if isinstance(c, ast.Attribute)
                     and isinstance(c.value, ast.Name) and c.value.id == "litellm"}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith":
            prefixes |= {e.value for arg in node.args for e in ast.walk(arg)
                         if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return sets, tuple(sorted(prefixes))


def _filled_sets(path: Path, model_cost: Mapping[str, Any], consulted: set[str]) -> set[str]:
    """The model-map names litellm's `_populate_provider_model_sets` puts into a consulted set: for each branch on
    `litellm_provider`, the keys of that provider, with any prefix the branch strips (`key.replace("p/", "")`)
    taken off as well (both forms kept: the check may only err towards letting a name through)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    function = next(n for n in tree.body
                    if isinstance(n, ast.FunctionDef) and n.name == "_populate_provider_model_sets")
    by_provider: dict[str, set[str]] = {}  # provider -> prefixes stripped
    for branch in (n for n in ast.walk(function) if isinstance(n, ast.If)):
        providers = {c.value for c in ast.walk(branch.test) if isinstance(c, ast.Constant) and isinstance(c.value, str)
                     and c.value != "litellm_provider"}
        body = ast.Module(body=branch.body, type_ignores=[])
        targets = {n.func.value.id for n in ast.walk(body) if isinstance(n, ast.Call)
                   and isinstance(n.func, ast.Attribute) and n.func.attr in ("add", "append")
                   and isinstance(n.func.value, ast.Name)}
        if targets & consulted:
            stripped = {n.args[0].value for n in ast.walk(body) if isinstance(n, ast.Call)
                        and isinstance(n.func, ast.Attribute) and n.func.attr == "replace" and n.args
                        and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)}
            for provider in providers:
                by_provider.setdefault(provider, set()).update(stripped)
    names: set[str] = set()
    for key, entry in model_cost.items():
        prefixes = by_provider.get(str(entry.get("litellm_provider", "")))
        if prefixes is not None:
            names.add(key)
            names |= {key.replace(prefix, "") for prefix in prefixes}
    return names


def _literal_entries(path: Path, consulted: set[str]) -> set[str]:
    """Every string in the literal lists and sets a litellm module assigns to a consulted set's name."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets = [node.target.id]
        else:
            continue
        if node.value is None or not set(targets) & consulted:
            continue
        names |= {e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant) and isinstance(e.value, str)}
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
    """Whether litellm's `get_llm_provider(model)` would refuse `model` (True only where that is certain): a bare
    name, or a `prefix/name` whose prefix is no provider, that no set litellm consults holds and no rule places."""
    if ":" in model or any(params.get(k) for k in ("custom_llm_provider", "api_base")):
        return False
    if any(k.startswith(("LITELLM_PROXY", "USE_LITELLM_PROXY")) for k in os.environ):
        return False
    prefix = model.split("/", 1)[0] if "/" in model else None
    providers = set(known.provider_list) | known.json_providers | {p["provider"] for p in known.custom_provider_map}
    if prefix is not None and prefix in providers:
        return False
    if model in known.model_cost or model in known.listed or model in known.provider_list:
        return False
    if model.startswith(_NAME_RULES + known.prefixes) or any(rule.search(model) for rule in known.generalizations):
        return False
    return True
