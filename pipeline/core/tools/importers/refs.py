"""Inline local `$ref`s so imported schemas stand alone, within a depth and size budget.

Real OpenAPI documents nest references dozens deep and share them widely, so naive inlining can
grow without bound: a reference met again inside its own expansion, or nested deeper than
`max_depth`, becomes a described placeholder, and an expansion that visits more than `max_nodes`
nodes is rejected as too large for an agent to use.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from pipeline.core.tools.importers.common import Rejected

MAX_REF_DEPTH = 64
"""Deep enough for any hand-written document; the OpenAPI directory import uses less."""


class _Budget:
    def __init__(self, max_nodes: int | None) -> None:
        self.left = max_nodes
        self.limit = max_nodes

    def spend(self, field: str) -> None:
        if self.left is None:
            return
        self.left -= 1
        if self.left < 0:
            raise Rejected(field, f"schema expands past {self.limit} nodes")


def resolve_refs(
    node: Any,
    root: Any,
    field: str,
    *,
    max_depth: int = MAX_REF_DEPTH,
    max_nodes: int | None = None,
) -> Any:
    """`node` with every local reference (a JSON pointer into `root`) inlined.

    Sibling keywords override the referenced ones. Raises `Rejected` naming `field` for a
    non-local or dangling reference, or when the expansion exceeds `max_nodes`.
    """
    return _resolve(node, root, field, (), max_depth, _Budget(max_nodes))


def _resolve(
    node: Any, root: Any, field: str, stack: tuple[str, ...], depth: int, budget: _Budget
) -> Any:
    budget.spend(field)
    if isinstance(node, list):
        return [_resolve(item, root, field, stack, depth, budget) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" not in node:
        return {
            key: _resolve(value, root, field, stack, depth, budget) for key, value in node.items()
        }
    ref = node["$ref"]
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise Rejected(field, f"$ref {ref!r} is not local; only '#/...' references are supported")
    siblings = {
        key: _resolve(value, root, field, stack, depth, budget)
        for key, value in node.items()
        if key != "$ref"
    }
    if ref in stack:
        return {"description": f"Recursive reference to {ref}, not expanded."} | siblings
    target = json_pointer(root, ref, field)
    if len(stack) >= depth:
        kind = target.get("type") if isinstance(target, dict) else None
        cut: dict[str, Any] = {"type": kind} if isinstance(kind, str) else {}
        return cut | {"description": f"{ref.rsplit('/', 1)[-1]}, not expanded here."} | siblings
    resolved = _resolve(target, root, field, (*stack, ref), depth, budget)
    return resolved | siblings if isinstance(resolved, dict) else resolved


def json_pointer(root: Any, ref: str, field: str) -> Any:
    if ref != "#" and not ref.startswith("#/"):
        raise Rejected(field, f"$ref {ref!r} is not a JSON pointer ('#/...')")
    target = root
    for token in ref[2:].split("/") if ref != "#" else []:
        key = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and key in target:
            target = target[key]
        elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
            target = target[int(key)]
        else:
            raise Rejected(field, f"$ref {ref!r} does not resolve")
    return target
