"""Which records a tool that names a thing is for: a door-lock call locks a lock, a camera
snapshot comes from a camera, a vendor bill is paid as a bill — never the hallway thermostat
or a comment that happens to be a record of the same kind.

Derived from names alone, so imported tools get it too: among the world's records of one
kind, a word of the tool's name (or of the description of the field passing the record, 'Lock
device id.') that some of their names say and others do not picks out those that say it. A
tool whose words name none of them, or all, fits every record.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from pipeline.core.generation.semantics import refers_to, tokens
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.per_world import per_world
from pipeline.core.model.world import Record, World

_Index = dict[str, tuple[int, Counter[str]]]


def fits(tool: Tool, record: Record, world: World, field: str | None = None) -> bool:
    """Whether the tool can be about this record (see the module docstring); a `field` that
    names the record by more than its kind (`assignment_id` for an essay assignment, beside
    a submission reader) takes it whatever the tool's words say, `device_id` does not."""
    if field is not None:
        own = [w for w in tokens(field) if w != record.kind]
        if own and refers_to("_".join(own), record) >= 2:
            return True
    size, said = _index(world).get(record.kind, (0, Counter()))
    words = tokens(tool.name)[1:] + _described(tool, field)
    picking = {w for w in words if len(w) > 2 and w != record.kind and 0 < said[w] < size}
    return not picking or bool(picking & _words(record.id, record.name))


def _described(tool: Tool, field: str | None) -> list[str]:
    """What the field's description says its id is of ('Lock device id.' -> lock, device);
    nothing from a description that names no id ('Account to debit.': a verb, not a kind)."""
    properties = tool.parameters.get("properties") or {}
    schema = properties.get(field) if field is not None else None
    description = schema.get("description") if isinstance(schema, dict) else None
    words = tokens(description) if isinstance(description, str) else []
    return words[max(0, words.index("id") - 3) : words.index("id")] if "id" in words else []


@per_world
def _index(records: tuple[Record, ...]) -> _Index:
    """Per kind: how many records, and in how many of them each name word occurs."""
    index: _Index = {}
    for record in records:
        size, said = index.get(record.kind, (0, Counter()))
        said.update(_words(record.id, record.name))
        index[record.kind] = (size + 1, said)
    return index


@lru_cache(maxsize=1 << 16)
def _words(record_id: str, name: str) -> frozenset[str]:
    words = set(tokens(name)) | set(tokens(record_id))
    return frozenset(words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3})
