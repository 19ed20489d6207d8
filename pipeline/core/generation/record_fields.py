"""Which attribute of a record a return field names (`customer_id` <- the ticket's
`customer`, `alerts` <- the patient's `alert`), and the record's value cast to the field's
schema: the observation shows what the record holds, in the form the API returns it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pipeline.core.generation.plausible import schema_type
from pipeline.core.generation.semantics import tokens
from pipeline.core.model.world import Record


def attribute_for(name: str, record: Record, fmt: str | None = None) -> str | None:
    """The record attribute a return field names: equal, or one's words end the other's; an
    alias only where its value fits the field's format (`sent_to` of an e-mail is no phone)."""
    if name in record.attributes:
        return name
    wanted = tokens(name)
    linked = "_".join(wanted[:-1])
    if wanted[-1:] == ["id"] and " " not in str(record.attributes.get(linked, " ")):
        return linked  # `customer_id` <- the ticket's `customer` (an id, not a note's text)
    if wanted[-1:] in (["at"], ["on"]) and linked in record.attributes:
        return linked  # `updated_at` <- the note's `updated`: a listing shows the record's date
    ending = [
        key
        for key in record.attributes
        if (have := tokens(key))
        and wanted
        and (have == wanted[-len(have) :] or wanted == have[-len(wanted) :])
        and wanted not in _WHEN  # an isolation's `at` is no `scanned_at` of the host
    ]
    if ending:  # the closest: `new_available_balance` <- `available_balance`, not `balance`
        return max(ending, key=lambda key: -abs(len(tokens(key)) - len(wanted)))
    if wanted[-1] in _OWN_VALUES:
        same = [k for k in record.attributes if tokens(k)[-1:] == wanted[-1:]]
        if len(same) == 1:
            return same[0]  # `paid_to_iban` <- the bill's one `remit_to_iban`
    aliases = _ALIASES.get("_".join(wanted))
    if name.endswith("s") and name[:-1] in record.attributes:
        return name[:-1]  # `alerts` <- the patient's `alert`
    if name.endswith("ies") and f"{name[:-3]}y" in record.attributes:
        return f"{name[:-3]}y"  # `allergies` <- the patient's `allergy`
    return next(
        (
            a
            for a in aliases or ()
            if a in record.attributes and (fmt != "email" or "@" in str(record.attributes[a]))
        ),
        None,
    )


_WHEN = (["at"], ["on"], ["date"], ["time"], ["timestamp"])
"""A bare time field: the time of the call that returns it, not whichever time a record has."""
_OWN_VALUES = frozenset({"iban", "bic", "swift", "email", "phone"})
"""Last words of a field holding a value a record has one of: a payment's `paid_to_iban` is
the bill's IBAN, never a made-up one beside it."""

_ALIASES: dict[str, tuple[str, ...]] = {
    "date_of_birth": ("dob", "birth_date"),
    "dob": ("date_of_birth",),
    "email_address": ("email",),
    "phone_number": ("phone",),
    "postcode": ("postal_code", "zip"),
    "from": ("sender", "from_address", "sender_email"),
    "from_address": ("sender", "from", "sender_email"),
    "sender": ("from", "from_address"),
    "sent_to": ("recipient", "phone", "mobile", "email"),
    "file_name": ("attachment", "filename"),
    "filename": ("attachment", "file_name"),
}


def cast_to(value: Any, schema: Mapping[str, Any]) -> Any:
    kind = schema_type(schema)
    if kind in ("integer", "number") and isinstance(value, str):
        match = re.search(r"-?\d+(?:[.,]\d+)?", value.replace(",", ""))
        if match:
            number = float(match.group(0))
            return int(number) if kind == "integer" else number
    if kind == "string" and not isinstance(value, str):
        return str(value).lower() if isinstance(value, bool) else str(value)
    if kind == "boolean" and isinstance(value, str):
        return value.lower() in ("true", "yes", "1")
    return value


def fit_to(value: Any, schema: Mapping[str, Any]) -> Any:
    options = schema.get("enum")
    if options and value not in options:
        lowered = str(value).lower()
        return next((o for o in options if str(o).lower() in lowered), options[0])
    return value


def fits_type(value: Any, schema: Mapping[str, Any]) -> bool:
    kind = schema_type(schema)
    checks: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
        "array": list,
        "object": dict,
    }
    return isinstance(value, checks.get(kind, object))
