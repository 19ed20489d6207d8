"""More field meanings, and the look-up over all of them: what a pull request's `base`, a
sensor's `unit`, a sanctions hit's `list` or a session's `client_addr` hold when the record
has no value for it. Each value is one a real system shows for such a field, drawn seeded
from a short list or built from the record, the world and its today; never "n/a".
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from random import Random

from pipeline.core.generation.semantics import NAME_WORDS, refers_to, tokens
from pipeline.core.generation.vocabulary import (
    FILLERS,
    Filler,
    after_dash,
    bare,
    currency_of,
    masked_iban,
    one_of,
    slug,
    someone,
)
from pipeline.core.model.seeding import stable_int
from pipeline.core.model.world import Record, World

_UNITS = (
    ("chlorine", "mg/L"), ("mgl", "mg/L"), ("turbid", "NTU"), ("ntu", "NTU"), ("ph", "pH"),
    ("pressure", "bar"), ("bar", "bar"), ("psi", "psi"), ("temp", "°C"), ("degc", "°C"),
    ("flow", "m³/h"), ("level", "%"), ("pct", "%"), ("speed", "rpm"), ("rpm", "rpm"),
    ("power", "kW"), ("kw", "kW"), ("volt", "V"), ("current", "A"), ("humid", "%RH"),
    ("glucose", "mmol/L"), ("heart", "bpm"), ("weight", "kg"), ("systolic", "mmHg"),
)  # fmt: skip
"""Words of a sensor's tag or name and the unit its readings are in."""


def _unit(record: Record | None, world: World, rng: Random) -> str:
    held = [record.name, record.id, *map(str, record.attributes.values())] if record else []
    words = set(tokens(" ".join(held).replace("_", " ")))
    return next((u for w, u in _UNITS if w in words or any(t.startswith(w) for t in words)), "")


def _hex(size: int) -> Filler:
    return lambda r, w, rng: "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(size))


def _ip(record: Record | None, world: World, rng: Random) -> str:
    return f"10.{rng.randint(0, 60)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"


def _street(record: Record | None, world: World, rng: Random) -> str:
    held = [
        str(v)
        for r in world.records
        for k, v in r.attributes.items()
        if "address" in k and re.match(r"\d+ \w", str(v)) and len(str(v)) <= 60
    ]
    if held:
        return re.sub(r"^\d+", str(rng.randint(2, 180)), held[rng.randrange(len(held))])
    street = rng.choice(("High Street", "Station Road", "Mill Lane", "Church Street", "Park Road"))
    return f"{rng.randint(2, 180)} {street}"


def _address(record: Record | None, world: World, rng: Random) -> str:
    """A device's address is a network address; anyone else's a street."""
    device = record is not None and record.kind in ("device", "host", "server", "asset")
    return _ip(record, world, rng) if device else _street(record, world, rng)


def _carrier(record: Record | None, world: World, rng: Random) -> str:
    by_currency = {
        "GBP": ("Royal Mail Tracked 24", "DPD UK", "Evri"),
        "USD": ("UPS Ground", "FedEx Home Delivery", "USPS Priority Mail"),
    }
    return rng.choice(by_currency.get(currency_of(world), ("DHL Express", "DPD", "GLS")))


def _handle(record: Record | None, world: World, rng: Random) -> str:
    """The handle the record's name gives ('Comment from @ashford_eats'), else one made of
    its name: auditors read '@commentfromashford' where the user had said '@ashford_eats'."""
    name = bare(record) if record is not None else "team"
    given = re.search(r"@[A-Za-z0-9_.]+", record.name if record is not None else "")
    return given.group(0).rstrip(".") if given else "@" + ("".join(tokens(name))[:18] or "team")


def _recipient(record: Record | None, world: World, rng: Random) -> str:
    """Where a message to the record's party went: its address or number on file."""
    if record is None:
        return ""
    for key, value in record.attributes.items():
        if set(tokens(key)) & {"email", "phone", "mobile", "sms"} and isinstance(value, str):
            return value
    return bare(record)


def _slot(record: Record | None, world: World, rng: Random) -> str:
    day = date.fromisoformat(world.today) + timedelta(days=rng.randint(1, 3))
    start = rng.choice((8, 10, 12, 14, 16, 18))
    return f"{day.isoformat()} {start:02d}:00-{start + 2:02d}:00"


def _lot(record: Record | None, world: World, rng: Random) -> str:
    made = date.fromisoformat(world.today) - timedelta(days=rng.randint(30, 200))
    return f"L{made:%y%m}-{rng.randint(100, 999)}"


def _image(record: Record | None, world: World, rng: Random) -> str:
    name = slug(record) if record is not None else "service"
    version = f"{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
    return f"registry.internal/{name}:{version}"


def _masked_tail(record: Record | None, world: World, rng: Random) -> str:
    return f"•••• {rng.randint(0, 9999):04d}"


def _diff(record: Record | None, world: World, rng: Random) -> str:
    path = f"src/{slug(record).replace('-', '_')[:24] or 'handler'}.py"
    line = rng.randint(12, 180)
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{line},6 +{line},7 @@\n-    retries = 3\n+    retries = settings.max_retries\n"
        "+    backoff = settings.backoff_seconds\n     return deliver(event, retries)"
    )


def _written(*keys: str) -> Filler:
    """What the write this answer reports set: one of its arguments (a grant's privilege)."""

    def value(record: Record | None, world: World, rng: Random) -> str:
        arguments = world.changes[-1].arguments if world.changes else {}
        given = [(k, arguments[k]) for k in keys if arguments.get(k) not in (None, "", [])]
        if len(given) == 1:
            return str(given[0][1])
        return ", ".join(f"{k.replace('_threshold', '').replace('_', ' ')} {v}" for k, v in given)

    return value


def _dispensed(record: Record | None, world: World, rng: Random) -> str:
    """The product a substitution dispensed: the NDC and strength it was asked for."""
    arguments = world.changes[-1].arguments if world.changes else {}
    ndc, strength = arguments.get("new_drug_ndc"), arguments.get("strength")
    drug = after_dash(record) if record is not None and after_dash(record) != record.name else ""
    said = ", ".join(str(v) for v in (drug, strength) if v)
    return f"{said} (NDC {ndc})" if ndc else said


def _last4(record: Record | None, rng: Random) -> str:
    held = str(record.attributes.get("last4", "")) if record is not None else ""
    return held if re.fullmatch(r"\d{4}", held) else f"{rng.randint(0, 9999):04d}"


def _held(world: World, rng: Random, *keys: str) -> str:
    """A short value another record of the world keeps under one of `keys`."""
    values = sorted(
        {
            v
            for r in world.records
            for k in keys
            if isinstance(v := r.attributes.get(k), str) and 0 < len(v) <= 60
        }
    )
    return values[rng.randrange(len(values))] if values else ""


def _customs_mrn(record: Record | None, world: World, rng: Random) -> str:
    """An EU customs Movement Reference Number: year, country, 14 characters."""
    code = "".join(rng.choice("0123456789ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(14))
    return f"{world.today[2:4]}NL{code}"


MORE_FILLERS: dict[str, Filler] = {
    "unit": _unit,
    "units": _unit,
    "base": one_of("main"),
    "base_branch": one_of("main"),
    "head": lambda r, w, rng: f"feature/{slug(r)[:30]}",
    "contract": _hex(40),
    "contract_address": _hex(40),
    "token_address": _hex(40),
    "client_addr": _ip,
    "client_address": _ip,
    "jump_host": lambda r, w, rng: f"jump{rng.randint(1, 3):02d}.ot.internal",
    "carrier": _carrier,
    "section": lambda r, w, rng: f"{rng.choice('AB')}0{rng.randint(1, 4)}",
    "vendor": one_of("Northside Auto Body", "Precision Collision Repair", "Metro Glass & Body"),
    "financing": one_of("Conventional 30-year mortgage, 20% down", "Cash", "FHA loan, 3.5% down"),
    "detail": one_of(
        "No known issues reported by the seller.",
        "Minor roof repair in 2021; receipts on file.",
        "Water heater replaced in 2022.",
    ),
    "sent_via": one_of("secure portal message", "email"),
    "address": _address,
    "emergency_address": _street,
    "lot": _lot,
    "usual_adult_dose": one_of(
        "500 mg by mouth every 8 hours", "10 mg by mouth once daily", "50 mg by mouth twice daily"
    ),
    "alert_threshold": one_of("systolic above 180 mmHg or diastolic above 110 mmHg"),
    "handle": _handle,
    "workflow": one_of("ci.yml", "build-and-test.yml"),
    "dispensed_product": _dispensed,
    "acknowledged_by": someone,
    "last4": lambda r, w, rng: f"{rng.randint(0, 9999):04d}",
    "masked": _masked_tail,
    "iban_masked": masked_iban,
    "account_masked": masked_iban,
    "number_masked": _masked_tail,
    "bio": lambda r, w, rng: f"Official account of {bare(r) or 'the team'}.",
    "list": one_of("EU Consolidated Financial Sanctions List", "OFAC SDN List", "UK HMT List"),
    "folder": one_of("Archive"),
    "diff": _diff,
    "granted": _written("privilege", "privileges", "role"),
    "revoked": _written("privilege", "privileges", "role"),
    "thresholds": lambda r, w, rng: (
        _written("high_threshold", "low_threshold")(r, w, rng)
        or "systolic above 180 mmHg or diastolic above 110 mmHg"
    ),
    "sent_to": _recipient,
    "delivered_to": _recipient,
    "image": _image,
    "delivery_slot": _slot,
    "psap": one_of("County 911 dispatch centre", "Regional emergency dispatch centre"),
    "tier": one_of("Silver", "Gold", "Platinum"),
    "doors": one_of("locked"),
    "cargo": one_of("locked"),
    "conclusion": one_of("failure", "success"),
    "verdict": one_of("suspicious", "no reports", "clean"),
    "boost_package": one_of("Local reach - 7 days", "Standard - 3 days"),
    "diagnosis": one_of(
        "Possible angina; urgent in-person assessment advised",
        "Non-cardiac chest pain likely; review if symptoms persist",
    ),
    "passport_validity_rule": one_of(
        "Valid for the whole stay", "At least 6 months beyond the date of arrival"
    ),
    "registrar": one_of("Namecheap, Inc.", "GoDaddy.com, LLC", "Gandi SAS"),
    "decision": one_of("approved", "referred for caseworker review"),
    "eta_name": one_of("UK ETA", "ESTA", "K-ETA", "NZeTA"),
    "product": lambda r, w, rng: bare(r),
    "party_name": lambda r, w, rng: bare(r),
    "action": one_of("viewed record", "viewed results", "printed summary", "updated record"),
    "output": one_of("Completed: 0 errors, 0 warnings", "OK - collected 14 artefacts"),
    "merchant_category_code": one_of("5411", "5812", "5999", "4111", "5732"),
    "masked_pan": lambda r, w, rng: f"•••• •••• •••• {_last4(r, rng)}",
    "shared_with": someone,
    "repeat": one_of("none", "weekly", "daily"),
    "scope": one_of(
        "Single-storey rear extension and internal alterations",
        "Replacement windows and a new front porch",
    ),
    "insight": one_of(
        "No readings outside the configured limits in this window.",
        "Readings stable; no gaps in the series.",
    ),
    "matched_name": one_of("Nordvale Trading LLC", "Sevmor Shipping Ltd", "Kestrel Freight FZE"),
    "drug": lambda r, w, rng: after_dash(r) or _held(w, rng, "drug", "medication"),
    "content_type": lambda r, w, rng: (
        "text/html; charset=utf-8" if r is None or r.kind != "file" else "application/pdf"
    ),
}
"""Field meanings the records rarely hold, keyed by the field name or its last words."""
_WHOLE_NAME = frozenset([
    "address", "action", "list", "output", "detail", "product", "head", "base", "mode",
    "section", "decision", "verdict", "folder", "image", "plan", "bio", "tier", "vendor",
])  # fmt: skip
"""Keys that say what a field holds only as its whole name (`email_address` is no street)."""
IN_TOOL: dict[tuple[str, str], Filler] = {
    ("explain", "plan"): lambda r, w, rng: (
        f"Index Scan using {slug(r).replace('-', '_')[:20] or 'orders'}_pkey "
        f"(cost=0.43..{rng.randint(120, 900)}.{rng.randint(10, 99)} rows={rng.randint(1, 400)})"
    ),
    ("plc", "mode"): one_of("run"),  # as `iiot_get_plc_program_info` reports it
    ("customs", "mrn"): _customs_mrn,
    ("visit", "plan"): one_of(
        "Continue current medication; recheck in four weeks.",
        "Start the agreed treatment; review results at the next visit.",
    ),
    ("triage", "routing"): one_of("Emergency department - call 911 now", "Same-day urgent care"),
}
"""Meanings a field has in one kind of tool, keyed by a word of the tool's name and the field."""


def filled(
    name: str, record: Record | None, world: World, rng: Random, tool: str = ""
) -> str | None:
    """What this field holds for the record, or None when its meaning is not one we know."""
    for word in tokens(tool):
        special = IN_TOOL.get((word, name))
        if special is not None:
            return special(record, world, rng) or None
    words = tokens(name)
    if len(words) >= 2 and words[-1] in ("by", "with") and words[-2].endswith("ed"):
        return someone(record, world, rng) or None  # `changed_by`, `shared_with`: a person
    for size in range(len(words), 0, -1):
        key = "_".join(words[-size:])
        more = MORE_FILLERS.get(key) if size == len(words) or key not in _WHOLE_NAME else None
        filler = more or FILLERS.get(key)
        if filler is not None:
            value = filler(record, world, rng)
            return value if value or name == "stderr" else None
    return None


def names_record(words: list[str], record: Record) -> bool:
    """Whether a name field names this record: `name`, `display_name`, `patient_name` of a
    patient; not `company_name` of a watchlist or `eta_name` of a traveller's profile."""
    if not words or words[-1] not in NAME_WORDS:
        return False
    own = len(words) == 1 or words[0] in NAME_WORDS | {"short", "record", "item"}
    own = own or (words[0] == "file" and record.kind == "file")  # a CV's file is no person
    return own or refers_to("_".join(words[:-1]), record) > 0


def party_name(words: list[str], record: Record | None, world: World) -> str | None:
    """`seller_name` of a listing: the name of the seller it links to, else of one seller
    of the world, the same one each time for this record."""
    if words[-1:] != ["name"] or len(words) < 2:
        return None
    role = "_".join(words[:-1])
    linked = world.get(str(record.attributes.get(role))) if record else None
    if linked is not None:
        return bare(linked)
    family = [r for r in world.records if refers_to(role, r) >= 3]
    if not family:
        return None
    return bare(family[stable_int(record.id if record else "-", role) % len(family)])


def held_elsewhere(name: str, world: World, rng: Random) -> str | None:
    """The same field as another record of the world holds it (an MRN, a section, a
    carrier), its digits redrawn so no identifier is shared; short values only. A date is
    moved by days instead, since redrawn digits made a page `published` on 2347-80-09."""
    held = sorted(
        {
            v
            for r in world.records
            if isinstance(v := r.attributes.get(name), str) and 0 < len(v) <= 40 and "\n" not in v
        }
    )
    if not held:
        return None
    chosen = held[rng.randrange(len(held))]
    dated = re.match(r"\d{4}-\d{2}-\d{2}", chosen)
    if dated:
        moved = date.fromisoformat(dated.group(0)) - timedelta(days=rng.randint(1, 60))
        return moved.isoformat() + chosen[dated.end() :]
    return re.sub(r"\d", lambda _: str(rng.randint(0, 9)), chosen)
