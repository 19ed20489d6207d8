"""The version of an offline backend's code, for its cache keys: a hash of every module of the
project that the backend runs, found by following its imports, not only its own package.

An answer of the procedural backend is a function of its code, so its name (the 'model' in
every cache key) must change whenever any module it reads changes: a judge helper, a seeding
function or a role's schema in another package would otherwise serve stale answers.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from pathlib import Path


def code_version(package: str) -> str:
    """Ten hex digits of sha256 over the source of `package` and every module it imports,
    transitively, within the same top-level package."""
    digest = hashlib.sha256()
    for name, path in sorted(covered_modules(package).items()):
        digest.update(f"{name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def covered_modules(package: str) -> dict[str, Path]:
    """Module name -> source file of `package`'s modules and their project imports."""
    root = package.partition(".")[0]
    found: dict[str, Path] = {}
    todo = [package, *_submodules(package)]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        path = _source(name)
        if path is None:
            continue
        found[name] = path
        todo.extend(m for m in _imports(path, name) if m.partition(".")[0] == root)
    return found


def _source(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):  # `name` is an attribute of a module, not a module
        return None
    origin = spec.origin if spec is not None else None
    return Path(origin) if origin and origin.endswith(".py") else None


def _submodules(package: str) -> list[str]:
    path = _source(package)
    if path is None or path.name != "__init__.py":
        return []
    return [f"{package}.{p.stem}" for p in sorted(path.parent.glob("*.py")) if p.stem != "__init__"]


def _imports(path: Path, name: str) -> list[str]:
    """Absolute names of the modules `path` (module `name`) imports; `from m import x` names
    both `m` and `m.x`, since `x` may be a submodule (names that are not resolve to nothing)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = parts if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names += [module, *(f"{module}.{alias.name}" for alias in node.names)]
    return names
