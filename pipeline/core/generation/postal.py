"""A postal address the user writes out ('Ana Kowalczyk, Friedrichstraße 120, 10117 Berlin,
Germany'), read into the parts an address form asks for, and the label they give it ('add my
office as a delivery address'). Auditors found such an address saved with the street
'delivery' and a coupon code as its postal code."""

from __future__ import annotations

import re

from pipeline.core.generation.semantics import tokens

_WORD = r"[^\W\d_][\w.'’-]*"
_NAMED = rf"{_WORD}(?: {_WORD}){{0,3}}"
_STREET = rf"{_NAMED} \d+[a-zA-Z]?(?:/\d+)?|\d+[a-zA-Z]? {_NAMED}"
"""'Friedrichstraße 120', 'ul. Długa 14/3' or '17 Fernhill Drive'."""
_UK_POSTCODE = r"[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}"
_ADDRESS = re.compile(
    rf"(?:^|: |\bto |\bat )(?:(?P<name>[A-Z]\w+(?: [A-Z][\w'-]+){{1,2}}), )?"
    rf"(?P<street>{_STREET}), "
    rf"(?:(?P<postal>\d{{4,5}}|\d{{2}}-\d{{3}}) (?P<city>[A-Z][\w'-]+(?: [A-Z][\w'-]+)*)"
    rf"|(?P<uk_city>[A-Z][\w'-]+(?: [A-Z][\w'-]+)*) (?P<uk_postal>{_UK_POSTCODE}))"
)
_LABELLED = re.compile(
    r"\b(?:add|save|store) (?:my|our|the) (\w+) as (?:a |an |the |my |our )?(?:new )?"
    r"(?:delivery |shipping |billing |postal )?address\b",
    re.IGNORECASE,
)
_PARTS = {
    "street": {"street", "line1", "address1", "street_address", "address_line"},
    "postal": {"postal_code", "postcode", "zip", "zip_code"},
    "city": {"city", "town"},
    "name": {"recipient", "recipient_name", "full_name"},
}


def address_part(name: str, tool: str, request: str) -> str | None:
    """The part of the address the request writes out that this field of an address-saving
    call asks for: its street, postal code, city, recipient or the label the user gives it."""
    if "address" not in tokens(tool):
        return None
    if name == "label" and (labelled := _LABELLED.search(request)):
        return labelled.group(1).capitalize()
    found = _ADDRESS.search(request)
    if found is None:
        return None
    parts = {
        "street": found["street"],
        "postal": found["postal"] or found["uk_postal"],
        "city": found["city"] or found["uk_city"],
        "name": found["name"],
    }
    return next((parts[p] for p, names in _PARTS.items() if name in names), None)
