"""The core's dependency direction (CONTRIBUTING.md): each group of `suite` imports only itself and the groups below it.

Imports made only for type checking (under `if TYPE_CHECKING:`) are not counted: they never run, so they cannot
create an import cycle; every import that runs, at module level or inside a function, is.
"""

from __future__ import annotations

import ast
from pathlib import Path

import suite

CORE = Path(suite.__file__).resolve().parent

#: bottom to top; a group may import the groups before it in this list
LAYERS = ["contract", "models", "data", "store", "report", "engine", "executors", "launch", "validity", "api", "cli",
          "testing"]


def _type_checking_block(node: ast.AST) -> bool:
    """Whether `node` is `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def runtime_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """Every `suite...` module a file imports outside `if TYPE_CHECKING:` blocks, with its line."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if _type_checking_block(node):
            for child in node.orelse:  # type: ignore[attr-defined]
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names if alias.name.startswith("suite."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "suite":
                found.extend((node.lineno, f"suite.{alias.name}") for alias in node.names)
            elif node.module.startswith("suite."):
                found.append((node.lineno, node.module))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def group_of(module: str) -> str | None:
    """The group of a dotted `suite.<group>...` name (None for the package itself or a name outside the groups)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_group_is_listed() -> None:
    """A new package under core/suite must take its place in LAYERS (and in CONTRIBUTING.md)."""
    packages = {p.name for p in CORE.iterdir() if (p / "__init__.py").is_file() and p.name != "configs"}
    assert packages == set(LAYERS)
    assert not [p.name for p in CORE.glob("*.py") if p.name != "__init__.py"], "every module belongs to a group"


def test_imports_point_down() -> None:
    """No module imports a group above its own."""
    wrong = []
    for path in sorted(CORE.rglob("*.py")):
        own = path.relative_to(CORE).parts[0]
        if own not in LAYERS:
            continue
        for line, module in runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            target = group_of(module)
            if target is not None and LAYERS.index(target) > LAYERS.index(own):
                wrong.append(f"{path.relative_to(CORE)}:{line} ({own}) imports {module} ({target})")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_the_check_sees_function_level_imports() -> None:
    """An import inside a function counts; one under TYPE_CHECKING does not."""
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from suite.cli import x\n"
                     "def f():\n    from suite.launch.session import y\n")
    assert runtime_imports(tree) == [(5, "suite.launch.session")]


MAX_LINES = 500
REPO = CORE.parents[1]


def test_no_module_over_500_lines() -> None:
    """Small modules whose names say what they hold: none of the core's or a plugin package's grows past 500 lines
    (split it by what its parts hold)."""
    packages = [CORE, *sorted(REPO.glob("plugins/*/suite_*"))]
    long = [f"{path.relative_to(REPO)}: {n}" for package in packages for path in sorted(package.rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, "modules over 500 lines:\n" + "\n".join(long)
