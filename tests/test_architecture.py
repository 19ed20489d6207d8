"""The house rules of `pipeline/` that a review would otherwise have to re-check by hand.

`pipeline.core` is a stack of packages, each importing only packages below it; see
docs/architecture.md for what each layer owns.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PIPELINE = Path(__file__).resolve().parents[1] / "pipeline"
CORE = PIPELINE / "core"

LAYERS = (
    "model",
    "inputs",
    "llm",
    "tools",
    "generation",
    "filtering",
    "procedural",
    "evaluation",
    "release",
    "build",
    "audit",
)
"""Bottom to top: a package may import itself and the packages before it, never one after."""

MAX_LINES = 450


def _modules(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def _imports(path: Path) -> Iterator[tuple[ast.stmt, str]]:
    """Every import in `path` with the absolute module it names."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node, node.module


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["pipeline", "core"] and len(parts) > 2 else None


def _relative(path: Path) -> str:
    return path.relative_to(PIPELINE).as_posix()


def test_every_core_package_is_a_layer() -> None:
    packages = sorted(p.name for p in CORE.iterdir() if (p / "__init__.py").exists())
    assert packages == sorted(LAYERS)
    assert [p.name for p in CORE.glob("*.py")] == ["__init__.py"]


def test_core_imports_point_down_the_layers_only() -> None:
    upward = []
    for path in _modules(CORE):
        if path.parent == CORE:
            continue
        own = LAYERS.index(path.relative_to(CORE).parts[0])
        for node, module in _imports(path):
            layer = _layer(module)
            if layer is not None and LAYERS.index(layer) > own:
                upward.append(f"{_relative(path)}:{node.lineno} imports {module}")
    assert upward == []


def test_core_imports_at_module_level_only() -> None:
    """A function-local import is how a cycle hides; core has no reason for one."""
    nested = []
    for path in _modules(CORE):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(node) for node in tree.body}
        nested += [
            f"{_relative(path)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top_level
        ]
    assert nested == []


def test_core_has_no_dagster() -> None:
    found = [
        f"{_relative(path)}:{node.lineno}"
        for path in _modules(CORE)
        for node, module in _imports(path)
        if module.split(".")[0] == "dagster"
    ]
    assert found == []


def test_no_private_dagster_module_is_imported() -> None:
    private = [
        f"{_relative(path)}:{node.lineno} imports {module}"
        for path in _modules(PIPELINE)
        for node, module in _imports(path)
        if module.startswith("dagster._")
    ]
    assert private == []


@pytest.mark.parametrize("package", LAYERS)
def test_each_package_says_what_it_owns_and_lists_it_sorted(package: str) -> None:
    init = CORE / package / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{package}/__init__.py has no docstring"
    exported = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    )
    assert exported == sorted(exported)
    submodules = {p.stem for p in (CORE / package).glob("*.py") if p.stem != "__init__"}
    submodules |= {p.parent.name for p in (CORE / package).glob("*/__init__.py")}
    defined = {name for node in tree.body for name in _names(node)}
    assert set(exported) <= submodules | defined
    if not defined:  # a package that only groups modules lists every one of them
        assert set(exported) == submodules


def _names(node: ast.stmt) -> Iterator[str]:
    """The names a top-level statement binds."""
    if isinstance(node, ast.FunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Assign):
        yield from (t.id for t in node.targets if isinstance(t, ast.Name))
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        yield node.target.id
    elif isinstance(node, ast.ImportFrom):
        yield from (alias.asname or alias.name for alias in node.names)


def test_no_module_over_the_size_limit() -> None:
    sizes = {
        _relative(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules(PIPELINE)
    }
    oversized = {path for path, lines in sizes.items() if lines > MAX_LINES}
    assert oversized == set()
