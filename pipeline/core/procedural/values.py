"""Schema-driven value synthesis: realistic values that validate against a tool's JSON Schema.

Tool call arguments are synthesised from `tool.parameters` and observations from
`tool.returns`. Values come, in order of preference, from explicit hints (construction's
choices, or the call's arguments echoed in its observation), the entity a record is about,
the schema's `examples`, entities whose ids or attributes match the field name, and finally
name-aware fakes, so a `get_balance` on `acc_x` returns `account_id: acc_x` with that
account's balance rather than noise.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.generation.roles import EntityView
from pipeline.core.procedural.fakes import FREE_TEXT, Fakes
from pipeline.core.procedural.schema_fit import coerce, resolve, type_of
from pipeline.core.procedural.schema_fit import fits as fits
from pipeline.core.procedural.schema_fit import name_tokens as name_tokens

_ABBREVIATIONS = {
    "acc": "account", "acct": "account", "txn": "transaction", "msg": "message",
    "evt": "event", "veh": "vehicle", "drv": "driver", "dev": "device", "cal": "calendar",
    "mbx": "mailbox", "rec": "record", "sched": "schedule", "geo": "geofence",
    "cam": "camera", "ilk": "interlock", "res": "reservoir", "wo": "work_order",
    "pr": "pull_request", "repo": "repository", "usr": "user", "emp": "employee",
}  # fmt: skip
JSON = Any


def is_free_text(field_name: str) -> bool:
    """Whether a string field named like this is prose rather than a code or an id."""
    tokens = name_tokens(field_name)
    return bool(tokens) and tokens[-1] in FREE_TEXT


def synthesize(
    schema: Mapping[str, Any],
    rng: random.Random,
    *,
    hints: Mapping[str, Any] | None = None,
    entities: Sequence[EntityView] = (),
    field_name: str = "",
    optional_share: float = 0.5,
    topic: str = "",
    preferred: Sequence[EntityView] = (),
) -> JSON:
    """A value valid against `schema`.

    `hints` map property names (at any depth) to fixed values; `optional_share` is the chance
    an optional property is filled (1.0 for observations: real APIs return every field);
    `topic` seeds free text with the domain's words; `preferred` entities (those the request
    talks about) win when an id field could name several.
    """
    synth = _Synth(rng, hints or {}, entities, optional_share, topic)
    synth.preferred = {e.id for e in preferred}
    return synth.value(schema, field_name, None, 0)


class _Synth:
    def __init__(
        self,
        rng: random.Random,
        hints: Mapping[str, Any],
        entities: Sequence[EntityView],
        optional_share: float,
        topic: str,
    ) -> None:
        self.rng = rng
        self.hints = hints
        self.entities = list(entities)
        self.by_id = {e.id: e for e in entities}
        self.optional_share = optional_share
        self.topic = topic
        self.preferred: set[str] = set()
        self.fakes = Fakes(rng, topic)

    # --- dispatch -----------------------------------------------------------------------------

    def value(
        self, schema: Mapping[str, Any], name: str, focus: EntityView | None, ordinal: int
    ) -> JSON:
        schema = resolve(schema)
        if "const" in schema:
            return schema["const"]
        kind = type_of(schema)
        if name in self.hints:
            hinted = coerce(self.hints[name], schema)
            if fits(hinted, schema):
                return hinted
        if "enum" in schema:
            return self._enum(schema, name, focus)
        if kind == "object":
            return self._object(schema, ordinal)
        if kind == "array":
            return self._array(schema, name, focus)
        for candidate in self._candidates(schema, kind, name, focus, ordinal):
            if fits(candidate, schema):
                return candidate
        return self.fakes.fake(schema, kind, name, focus)

    def _candidates(
        self,
        schema: Mapping[str, Any],
        kind: str,
        name: str,
        focus: EntityView | None,
        ordinal: int,
    ) -> list[JSON]:
        found: list[JSON] = []
        if focus is not None:
            found.extend(self._from_entity(focus, kind, name, primary=True))
        examples = list(schema.get("examples") or [])
        matched = self._matching_entities(name)
        if matched and kind == "string" and _is_id_name(name):
            preferred = [e for e in matched if e.id in self.preferred]
            if preferred and self.rng.random() < 0.9:
                found.append(self.rng.choice(preferred).id)
            found.append(matched[(ordinal + self.rng.randrange(len(matched))) % len(matched)].id)
        if examples and self.rng.random() < 0.8:
            found.append(self.rng.choice(examples))
        if focus is None or is_email_name(name):
            others = [e for e in self.entities if e is not focus]
            self.rng.shuffle(others)
            for entity in others:
                found.extend(self._from_entity(entity, kind, name, primary=False))
        found.extend(examples)
        return found

    # --- structures ---------------------------------------------------------------------------

    def _object(self, schema: Mapping[str, Any], ordinal: int) -> dict[str, JSON]:
        properties: Mapping[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        focus = self._focus(properties, ordinal)
        result: dict[str, JSON] = {}
        for prop, sub in properties.items():
            wanted = (
                prop in required or prop in self.hints or self.rng.random() < self.optional_share
            )
            if wanted:
                result[prop] = self.value(sub, prop, focus, ordinal)
        minimum = int(schema.get("minProperties", 0))
        for prop, sub in properties.items():
            if len(result) >= minimum:
                break
            result.setdefault(prop, self.value(sub, prop, focus, ordinal))
        return result

    def _focus(self, properties: Mapping[str, Any], ordinal: int) -> EntityView | None:
        """The entity a record is about: a hinted id, else one matching an id-like property."""
        id_props = [p for p in properties if _is_id_name(p)]
        for prop in id_props:
            hinted = self.hints.get(prop)
            if isinstance(hinted, str) and hinted in self.by_id:
                return self.by_id[hinted]
        for prop in id_props:
            matched = self._matching_entities(prop)
            chosen = [e for e in matched if e.id in self.preferred]
            if chosen and ordinal == 0:
                return self.rng.choice(chosen)
            if matched:
                start = self.rng.randrange(len(matched))
                return matched[(start + ordinal) % len(matched)]
        return None

    def _array(self, schema: Mapping[str, Any], name: str, focus: EntityView | None) -> list[JSON]:
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", max(low, 3)))
        count = self.rng.randint(max(low, min(1, high)), max(low, min(high, 3)))
        items = schema.get("items")
        item_schema: Mapping[str, Any] = items if isinstance(items, Mapping) else {}
        singular = name[:-1] if name.endswith("s") else name
        result: list[JSON] = []
        start = self.rng.randrange(1000)
        for index in range(count * 3):
            if len(result) >= count:
                break
            item = self.value(item_schema, singular, None if index else focus, start + index)
            if schema.get("uniqueItems") and item in result:
                continue
            result.append(item)
        while len(result) < low:
            result.append(self.value(item_schema, singular, None, len(result)))
        return result

    def _enum(self, schema: Mapping[str, Any], name: str, focus: EntityView | None) -> JSON:
        options = list(schema["enum"])
        if focus is not None:
            for candidate in self._from_entity(focus, "string", name, primary=True):
                if candidate in options:
                    return candidate
        return self.rng.choice(options)

    # --- entities -----------------------------------------------------------------------------

    def _matching_entities(self, name: str) -> list[EntityView]:
        """Entities a field like `account_id`, `vehicle_id` or `payee` plausibly refers to."""
        tokens = [t for t in name_tokens(name) if t not in {"id", "ids"}]
        if not tokens:
            return []
        noun = tokens[-1].rstrip("s") if len(tokens[-1]) > 3 else tokens[-1]
        result = []
        for entity in self.entities:
            prefix = entity.id.split("_", 1)[0].lower()
            expanded = _ABBREVIATIONS.get(prefix, prefix)
            if noun in {entity.kind, prefix, expanded} or (
                len(noun) >= 3 and (expanded.startswith(noun) or noun.startswith(expanded))
            ):
                result.append(entity)
        return result

    def _from_entity(
        self, entity: EntityView, kind: str, name: str, *, primary: bool
    ) -> list[JSON]:
        tokens = name_tokens(name)
        if not tokens:
            return []
        found: list[JSON] = []
        if primary and kind == "string":
            if tokens == ("id",) or (
                tokens[-1] == "id" and entity in self._matching_entities(name)
            ):
                found.append(entity.id)
            if tokens[-1] in {"name", "nickname", "label", "title"}:
                found.append(entity.name)
        for key, attr in entity.attributes.items():
            key_tokens = name_tokens(key)
            exact = key_tokens == tokens
            loose = bool(key_tokens) and tokens[-len(key_tokens) :] == key_tokens
            if exact or (loose and (primary or key_tokens[-1] in {"email", "mail"})):
                found.append(attr)
        return found

    # --- fakes --------------------------------------------------------------------------------


def is_email_name(name: str) -> bool:
    tokens = name_tokens(name)
    return bool(tokens) and tokens[-1] in {"email", "mail", "emails"}


def _is_id_name(name: str) -> bool:
    tokens = name_tokens(name)
    return bool(tokens) and tokens[-1] in {"id", "ids"}
