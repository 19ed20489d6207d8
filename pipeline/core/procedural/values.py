"""Schema-driven value synthesis: realistic values that validate against a tool's JSON Schema.

Tool call arguments are synthesised from `tool.parameters` and observations from
`tool.returns`. Values come, in order of preference, from explicit hints (construction's
choices, or the call's arguments echoed in its observation), the entity a record is about,
the schema's `examples`, entities whose ids or attributes match the field name, and finally
name-aware fakes, so a `get_balance` on `acc_x` returns `account_id: acc_x` with that
account's balance rather than noise.
"""

from __future__ import annotations

import math
import random
import re
import string
import uuid
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any

from pipeline.core.generation.plausible import schema_type
from pipeline.core.generation.roles import EntityView

_ABBREVIATIONS = {
    "acc": "account", "acct": "account", "txn": "transaction", "msg": "message",
    "evt": "event", "veh": "vehicle", "drv": "driver", "dev": "device", "cal": "calendar",
    "mbx": "mailbox", "rec": "record", "sched": "schedule", "geo": "geofence",
    "cam": "camera", "ilk": "interlock", "res": "reservoir", "wo": "work_order",
    "pr": "pull_request", "repo": "repository", "usr": "user", "emp": "employee",
}  # fmt: skip
_FIRST_NAMES = [
    "Alex",
    "Jamie",
    "Robin",
    "Noor",
    "Tomas",
    "Ines",
    "Kofi",
    "Lena",
    "Ravi",
    "Mira",
    "Oskar",
    "Yuki",
    "Farah",
    "Declan",
]
_LAST_NAMES = [
    "Keller",
    "Okoye",
    "Brandt",
    "Silva",
    "Haddad",
    "Lindgren",
    "Moreau",
    "Castillo",
    "Novak",
    "Quinn",
    "Arslan",
]
_CITIES = ["Lisbon", "Rotterdam", "Leeds", "Lyon", "Porto", "Graz", "Aarhus", "Bilbao", "Cork"]
_STATUSES = ["completed", "active", "scheduled", "ok", "processed", "pending"]
_FREE_TEXT = ("body", "content", "text", "message", "note", "notes", "comment", "description",
              "memo", "summary", "snippet", "details", "reason", "subject", "title", "log",
              "excerpt", "preview", "html", "page", "remarks", "insight", "insights",
              "instructions", "label", "result")  # fmt: skip
_SENTENCES = [
    "Everything on this item looks in order as of the last sync.",
    "Updated after the routine review earlier this week.",
    "No further action is needed unless the figures change.",
    "Follow-up scheduled with the usual contact.",
    "Details were confirmed against the latest records.",
    "Flagged for a quick look at the next check-in.",
    "Values reflect the most recent reading available.",
    "Processed in the normal queue without exceptions.",
    "Kept on file for the standard retention period.",
    "Requested by the account owner and logged accordingly.",
]
_BASE_DAY = date(2024, 6, 3)

JSON = Any


def name_tokens(field_name: str) -> list[str]:
    """`fromAccountId` / `from_account_id` -> ['from', 'account', 'id']."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", field_name)
    return [t for t in re.split(r"[^a-zA-Z0-9]+", spaced.lower()) if t]


def is_free_text(field_name: str) -> bool:
    """Whether a string field named like this is prose rather than a code or an id."""
    tokens = name_tokens(field_name)
    return bool(tokens) and tokens[-1] in _FREE_TEXT


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

    # --- dispatch -----------------------------------------------------------------------------

    def value(
        self, schema: Mapping[str, Any], name: str, focus: EntityView | None, ordinal: int
    ) -> JSON:
        schema = _resolve(schema)
        if "const" in schema:
            return schema["const"]
        kind = _type_of(schema)
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
        return self._fake(schema, kind, name, focus)

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
            if tokens == ["id"] or (tokens[-1] == "id" and entity in self._matching_entities(name)):
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

    def _fake(
        self, schema: Mapping[str, Any], kind: str, name: str, focus: EntityView | None
    ) -> JSON:
        if kind == "boolean":
            return self._boolean(name)
        if kind in {"integer", "number"}:
            return self._number(schema, kind, name)
        if kind == "null":
            return None
        return _fit_length(self._string(schema, name, focus), schema, self.rng)

    def _boolean(self, name: str) -> bool:
        tokens = set(name_tokens(name))
        if tokens & {"success", "ok", "sent", "delivered", "applied", "enabled", "active"}:
            return self.rng.random() < 0.85
        if tokens & {"error", "failed", "blocked", "locked", "overdue"}:
            return self.rng.random() < 0.15
        return self.rng.random() < 0.5

    def _number(self, schema: Mapping[str, Any], kind: str, name: str) -> int | float:
        tokens = set(name_tokens(name))
        rng = self.rng
        value: float
        if tokens & {"amount", "price", "cost", "total", "balance", "fee", "limit", "debited"}:
            value = round(rng.uniform(12, 2400), 2)
        elif tokens & {"pct", "percent", "percentage", "rate", "ratio", "share"}:
            value = round(rng.uniform(0.5, 96), 1)
        elif tokens & {"temperature", "setpoint", "temp", "c"}:
            value = round(rng.uniform(17, 24), 1)
        elif tokens & {"lat", "latitude"}:
            value = round(rng.uniform(50.5, 53.5), 5)
        elif tokens & {"lon", "lng", "longitude"}:
            value = round(rng.uniform(-2.5, 6.5), 5)
        elif tokens & {"count", "number", "num", "quantity", "items", "size"}:
            value = rng.randint(1, 24)
        elif tokens & {"kmh", "speed", "mph"}:
            value = rng.randint(0, 95)
        elif tokens & {"seconds", "minutes", "hours", "days", "duration"}:
            value = rng.randint(1, 90)
        elif tokens & {"year"}:
            value = rng.randint(2019, 2024)
        else:
            value = round(rng.uniform(1, 250), 2)
        return _fit_number(value, schema, kind, rng)

    def _string(self, schema: Mapping[str, Any], name: str, focus: EntityView | None) -> str:
        rng = self.rng
        fmt = schema.get("format")
        if fmt == "date":
            return _day(rng).isoformat()
        if fmt == "date-time":
            return _timestamp(rng)
        if fmt == "time":
            return f"{rng.randint(7, 19):02d}:{rng.choice([0, 15, 30, 45]):02d}:00"
        if fmt == "email" or fmt == "idn-email":
            return _email(rng)
        if fmt in {"uri", "url", "iri", "uri-reference"}:
            return _url(rng, name)
        if fmt == "uuid":
            return str(uuid.UUID(int=rng.getrandbits(128)))
        tokens = name_tokens(name)
        last = tokens[-1] if tokens else ""
        if last in {"email", "mail"}:
            return _email(rng)
        if last in {"url", "uri", "link", "href"}:
            return _url(rng, name)
        if last in {"at", "timestamp", "time", "since", "until", "start", "end"}:
            return _timestamp(rng)
        if last in {"date", "day", "due"}:
            return _day(rng).isoformat()
        if last in {"id", "ids", "number", "ref", "reference", "code", "sha"}:
            return _identifier(rng, tokens)
        if last in {"currency"}:
            return "EUR"
        if last in {"status", "state", "result"}:
            return rng.choice(_STATUSES)
        if last in {"phone", "mobile", "msisdn"}:
            return f"555-01{rng.randint(10, 99)}"
        if last in {"iban"}:
            return f"GB00 {''.join(rng.choices(string.ascii_uppercase, k=4))} " + " ".join(
                f"{rng.randint(0, 9999):04d}" for _ in range(3)
            )
        if last in {"name", "holder", "owner", "sender", "recipient", "author", "assignee", "to"}:
            if focus is not None and last == "name":
                return focus.name
            return f"{rng.choice(_FIRST_NAMES)} {rng.choice(_LAST_NAMES)}"
        if last in {"location", "city", "place", "address"}:
            return rng.choice(_CITIES)
        if last in {"version"}:
            return f"{rng.randint(1, 5)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
        if last in _FREE_TEXT:
            return self._prose(tokens, focus)
        if last in {"type", "kind", "category", "mode", "level", "scope", "permission", "role"}:
            return rng.choice(["standard", "default", "basic", "primary", "regular"])
        if last in {"unit", "units"}:
            return rng.choice(["kWh", "EUR", "km", "items"])
        if focus is not None and rng.random() < 0.5:
            return focus.name
        return f"{' '.join(tokens[-2:]) or 'value'} {rng.randint(2, 98)}".strip()

    def _prose(self, tokens: Sequence[str], focus: EntityView | None) -> str:
        rng = self.rng
        if tokens and tokens[-1] in {"subject", "title", "label"}:
            about = focus.name if focus is not None else self.topic or "your request"
            return rng.choice(["Re: ", "Update: ", "", "Reminder: "]) + about
        lead = f"{focus.name}: " if focus is not None and rng.random() < 0.6 else ""
        return lead + " ".join(rng.sample(_SENTENCES, 2))


# --- validation helpers -------------------------------------------------------------------------


def _resolve(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """Flatten `allOf`, and take the first non-null branch of `anyOf` / `oneOf`."""
    merged: dict[str, Any] = dict(schema)
    for key in ("anyOf", "oneOf"):
        options = merged.pop(key, None)
        if options:
            chosen = next((o for o in options if o.get("type") != "null"), options[0])
            merged.update(_resolve(chosen))
    for part in merged.pop("allOf", None) or []:
        merged.update(_resolve(part))
    return merged


def _type_of(schema: Mapping[str, Any]) -> str:
    kind = schema_type(schema, unknown="enum" if "enum" in schema else "string")
    return "null" if kind in ("enum", "string") and schema.get("type") == ["null"] else kind


def is_email_name(name: str) -> bool:
    tokens = name_tokens(name)
    return bool(tokens) and tokens[-1] in {"email", "mail", "emails"}


def _is_id_name(name: str) -> bool:
    tokens = name_tokens(name)
    return bool(tokens) and tokens[-1] in {"id", "ids"}


def coerce(value: Any, schema: Mapping[str, Any]) -> Any:
    """Nudge a hinted value into the schema's type when the intent is unambiguous."""
    kind = _type_of(_resolve(schema))
    try:
        if kind == "number" and isinstance(value, str):
            return float(value.replace(",", ""))
        if kind == "integer" and isinstance(value, str | float) and not isinstance(value, bool):
            number = float(str(value).replace(",", ""))
            return int(number) if number.is_integer() else value
        if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        if kind == "array" and not isinstance(value, list):
            return [value]
    except ValueError:
        return value
    return value


def fits(value: Any, schema: Mapping[str, Any]) -> bool:
    """A fast structural check of the keywords the tool pool uses (the tests use jsonschema)."""
    schema = _resolve(schema)
    if "const" in schema:
        return bool(value == schema["const"])
    if "enum" in schema and value not in schema["enum"]:
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if kinds and not any(_is_type(value, k) for k in kinds):
        return False
    if isinstance(value, str):
        if len(value) < int(schema.get("minLength", 0)):
            return False
        if "maxLength" in schema and len(value) > int(schema["maxLength"]):
            return False
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return False
        return _format_ok(value, schema.get("format"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number_ok(value, schema)
    if isinstance(value, list):
        if len(value) < int(schema.get("minItems", 0)):
            return False
        if "maxItems" in schema and len(value) > int(schema["maxItems"]):
            return False
        items = schema.get("items")
        return not isinstance(items, Mapping) or all(fits(v, items) for v in value)
    if isinstance(value, dict):
        properties: Mapping[str, Any] = schema.get("properties") or {}
        if any(key not in value for key in schema.get("required") or []):
            return False
        if schema.get("additionalProperties") is False and set(value) - set(properties):
            return False
        return all(fits(v, properties[k]) for k, v in value.items() if k in properties)
    return True


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    checks: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "boolean": bool,
        "object": dict,
        "array": list,
        "null": type(None),
    }
    expected = checks.get(kind)
    return expected is None or isinstance(value, expected)


def _number_ok(value: float, schema: Mapping[str, Any]) -> bool:
    if "minimum" in schema and value < schema["minimum"]:
        return False
    if "maximum" in schema and value > schema["maximum"]:
        return False
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        return False
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        return False
    step = schema.get("multipleOf")
    return not step or math.isclose(round(value / step) * step, value, abs_tol=1e-9)


def _format_ok(value: str, fmt: Any) -> bool:
    if fmt == "date":
        return _parses(date.fromisoformat, value) and len(value) == 10
    if fmt == "date-time":
        return bool(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value))
    if fmt in {"email", "idn-email"}:
        return bool(re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", value))
    if fmt in {"uri", "url", "iri"}:
        return bool(re.fullmatch(r"[a-z][a-z0-9+.-]*://\S+", value))
    return True


def _parses(parser: Any, value: str) -> bool:
    try:
        parser(value)
    except ValueError:
        return False
    return True


def _fit_number(
    value: float, schema: Mapping[str, Any], kind: str, rng: random.Random
) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None and not (low <= value <= high):
        value = rng.uniform(low, high) if kind == "number" else rng.randint(math.ceil(low), high)
    elif low is not None and value < low:
        value = low + abs(value)
    elif high is not None and value > high:
        value = high * rng.uniform(0.3, 0.9) if high > 0 else high
    step = schema.get("multipleOf")
    if step:
        value = round(value / step) * step
    elif kind == "integer":
        value = round(value)
    else:
        value = round(float(value), 2)
    nudge = step or (1 if kind == "integer" else 0.01)
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        value = schema["exclusiveMinimum"] + nudge
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        value = schema["exclusiveMaximum"] - nudge
    if kind == "integer":
        result = round(value)
        if low is not None and result < low:
            result = math.ceil(low)
        if high is not None and result > high:
            result = math.floor(high)
        return result
    return float(value)


def _fit_length(text: str, schema: Mapping[str, Any], rng: random.Random) -> str:
    low = int(schema.get("minLength", 0))
    while len(text) < low:
        text += " " + rng.choice(["details", "pending", "noted", "reviewed"])
    if "maxLength" in schema:
        text = text[: int(schema["maxLength"])].rstrip() or text[: int(schema["maxLength"])]
    return text


def _day(rng: random.Random) -> date:
    return _BASE_DAY + timedelta(days=rng.randint(-20, 30))


def _timestamp(rng: random.Random) -> str:
    moment = datetime.combine(_day(rng), datetime.min.time()) + timedelta(
        hours=rng.randint(7, 19), minutes=rng.randrange(0, 60, 5)
    )
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def _email(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST_NAMES).lower()}.{rng.choice(_LAST_NAMES).lower()}@example.com"


def _url(rng: random.Random, name: str) -> str:
    slug = "-".join(name_tokens(name)) or "item"
    return f"https://portal.example.com/{slug}/{rng.randint(1000, 99999)}"


def _identifier(rng: random.Random, tokens: Sequence[str]) -> str:
    stem = [t for t in tokens if t not in {"id", "ids", "number", "ref", "reference", "code"}]
    prefix = (stem[-1][:4] if stem else "ref").lower()
    if tokens and tokens[-1] == "sha":
        return "".join(rng.choices("0123456789abcdef", k=40))
    return f"{prefix}_{rng.randint(10000, 99999)}"
