"""What a field of a given meaning holds when the record has no value for it: an IBAN for
`remit_to_iban`, a country of origin for a customs line, a sig for a prescription's
`directions`, a channel's topic. Each value is drawn, seeded, from a short list of what such
systems really show, or built from the record itself; nothing is a stand-in like "n/a".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from random import Random
from typing import Any

from pipeline.core.generation.semantics import tokens
from pipeline.core.model.world import Record, World

Filler = Callable[[Record | None, World, Random], str]
_MONEY = frozenset([
    "amount", "balance", "price", "cost", "fee", "value", "total", "tax", "rent", "salary",
    "budget", "spend", "paid", "due", "usd", "eur", "gbp", "premium", "deductible", "charged",
])  # fmt: skip


def _bare(record: Record | None) -> str:
    """A record's name without its bracketed or dashed description."""
    if record is None:
        return ""
    return re.split(r"\s+[-–(]", record.name)[0].strip()


def _after_dash(record: Record | None) -> str:
    """'Rx 7730142 - Warfarin 5 mg' -> 'Warfarin 5 mg'; the whole name when undashed."""
    if record is None:
        return ""
    parts = re.split(r"\s+[-–]\s+", record.name, maxsplit=1)
    return parts[-1]


def _currency(world: World) -> str:
    text = " ".join(f"{k} {v}" for r in world.records for k, v in r.attributes.items())
    for code in ("GBP", "EUR", "USD"):
        if code in text or code.lower() in text:
            return code
    return "EUR"


def _iban(record: Record | None, world: World, rng: Random) -> str:
    digits = "".join(str(rng.randint(0, 9)) for _ in range(16))
    groups = " ".join(digits[k : k + 4] for k in range(0, 16, 4))
    if _currency(world) == "GBP":
        bank = rng.choice(("NWBK", "BARC", "LOYD", "HBUK"))
        return f"GB{rng.randint(10, 98)} {bank} {groups[:-5]}"
    return f"DE{rng.randint(10, 98)} {groups} {rng.randint(10, 99)}"


def _masked(record: Record | None, world: World, rng: Random) -> str:
    last4 = next(
        (str(v)[-4:] for k, v in (record.attributes if record else {}).items() if "last4" in k),
        f"{rng.randint(0, 9999):04d}",
    )
    prefix = "GB" if _currency(world) == "GBP" else "DE"
    return f"{prefix}** **** **** **** {last4}"


def _postcode(record: Record | None, world: World, rng: Random) -> str:
    if _currency(world) == "GBP":
        letters = "ABDEFGHJLNPQRSTUWXYZ"
        area = rng.choice(("N", "SE", "LS", "M", "B", "EH", "BS"))
        unit = rng.choice(letters) + rng.choice(letters)
        return f"{area}{rng.randint(1, 19)} {rng.randint(1, 9)}{unit}"
    return f"{rng.randint(10, 99)}{rng.randint(100, 999)}"


def _role(record: Record | None, world: World, rng: Random) -> str:
    if record is not None and re.fullmatch(r"[a-z][a-z0-9_]*", _bare(record)):
        return _bare(record)  # a database role is named by its own name
    if record is not None and "course" in record.name.lower() + record.id:
        return rng.choice(("instructor", "teaching assistant"))
    return rng.choice(("member", "editor", "viewer"))


def _pick(*options: str) -> Filler:
    return lambda record, world, rng: options[rng.randrange(len(options))]


def _slug(record: Record | None) -> str:
    return "-".join(tokens(_bare(record))) or "document"


def _filename(record: Record | None, world: World, rng: Random) -> str:
    name = record.name if record else ""
    if re.search(r"\.\w{2,4}$", name):
        return name
    return f"{_slug(record)}.{rng.choice(('pdf', 'docx', 'xlsx'))}"


def _people(record: Record | None, world: World, rng: Random) -> str:
    contacts = sorted(r.name for r in world.records if r.kind == "contact")
    return _bare_name(contacts[rng.randrange(len(contacts))]) if contacts else "Operations team"


def _bare_name(name: str) -> str:
    return re.split(r"\s+[-–(]", name)[0].strip()


_MIME = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "csv": "text/csv",
    "png": "image/png",
    "jpg": "image/jpeg",
}

_FILLERS: dict[str, Filler] = {
    "iban": _iban,
    "masked_iban": _masked,
    "postcode": _postcode,
    "role": _role,
    "origin": _pick("CN", "DE", "VN", "TR", "IN", "US"),
    "topic": lambda r, w, rng: f"Updates and questions about {_bare(r) or 'the team'}",
    "drug": lambda r, w, rng: _after_dash(r),
    "directions": _pick(
        "Take one tablet by mouth once daily",
        "Take one tablet by mouth twice daily with food",
        "Take one capsule by mouth every 8 hours until finished",
    ),
    "test": lambda r, w, rng: _bare(r),
    "source": _pick("Reuters", "Bloomberg", "company press release", "Financial Times"),
    "pod": lambda r, w, rng: (
        f"{_slug(r)}-{rng.randint(10**4, 10**5 - 1):x}-{rng.randint(100, 999)}"
    ),
    "team": _pick("Platform", "Finance", "Operations", "Sales", "Customer Success"),
    "client": _people,
    "uploaded_by": _people,
    "counterparty": _people,
    "filename": _filename,
    "file_name": _filename,
    "file_path": lambda r, w, rng: f"/workspace/downloads/{_filename(r, w, rng)}",
    "path": lambda r, w, rng: f"/shared/{_filename(r, w, rng)}",
    "sandbox_path": lambda r, w, rng: f"/sandbox/attachments/{_filename(r, w, rng)}",
    "sha256": lambda r, w, rng: "".join(rng.choice("0123456789abcdef") for _ in range(64)),
    "checksum": lambda r, w, rng: "".join(rng.choice("0123456789abcdef") for _ in range(64)),
    "signature": lambda r, w, rng: (
        "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(130))
    ),
    "mime_type": lambda r, w, rng: _MIME.get(
        _filename(r, w, rng).rsplit(".", 1)[-1], "application/pdf"
    ),
    "exchange": _pick("NASDAQ", "NYSE"),
    "cancellation": _pick(
        "Free cancellation until 48 hours before check-in",
        "Free cancellation until 18:00 on the day before arrival",
    ),
    "program": lambda r, w, rng: _bare(r),
    "work_authorisation": _pick("UK citizen", "Skilled Worker visa", "Settled status"),
    "work_authorization": _pick("US citizen", "Permanent resident", "H-1B visa"),
    "notebook": _pick("Work", "Personal", "Projects"),
    "assessment": _pick(
        "Symptoms consistent with the presenting complaint; no red flags reported.",
        "Stable; findings in line with the previous review.",
    ),
    "follow_up": _pick(
        "Review in two weeks, sooner if symptoms worsen.",
        "Routine follow-up in one month.",
    ),
    "os": _pick("Windows 11 23H2", "macOS 14.5", "Ubuntu 22.04 LTS"),
    "stdout": _pick("done", "OK"),
    "stderr": lambda r, w, rng: "",
    "workshop": _pick("Northside Fleet Services", "City Commercials workshop"),
    "line": lambda r, w, rng: str(rng.randint(12, 380)),
    "evidence": lambda r, w, rng: (
        f"{r.name}: {', '.join(f'{k} {v}' for k, v in list(r.attributes.items())[:2])}"
        if r is not None
        else "Alert telemetry attached"
    ),
}
"""Field meanings the records rarely hold, keyed by the field name or its last words."""


def filled(name: str, record: Record | None, world: World, rng: Random) -> str | None:
    """What this field holds for the record, or None when its meaning is not one we know."""
    words = tokens(name)
    for size in range(len(words), 0, -1):
        filler = _FILLERS.get("_".join(words[-size:]))
        if filler is not None:
            value = filler(record, world, rng)
            return value if value or name == "stderr" else None
    return None


def plausible_number(words: set[str], schema: Mapping[str, Any], kind: str, rng: Random) -> Any:
    """A number such a field holds: a VAT rate a return uses, a CVSS score, a tyre pressure,
    a rating out of five, money inside the schema's bounds."""
    low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if words & {"count", "quantity", "items", "results", "remaining"}:
        value: float = rng.randint(0, 5)
    elif words & {"vat", "tax"}:
        value = (0, 5, 20)[rng.randrange(3)]  # the rates a VAT return actually uses
    elif words & {"cvss"}:
        value = round(rng.uniform(3.1, 9.8), 1)
    elif words & {"pressure", "psi"}:
        value = round(rng.uniform(2.1, 2.6), 1) if "bar" in words else rng.randint(32, 38)
    elif words & {"status", "code"} and kind == "integer":
        value = 200  # a numeric status is a protocol's, and the call succeeded
    elif words & {"percent", "percentage", "pct", "score", "progress"}:
        value = rng.randint(5, 95)
    elif words & {"rate", "apr", "interest", "yield"}:
        value = round(rng.uniform(0.5, 9.5), 2)
    elif words & _MONEY:
        value = round(rng.uniform(20, 900), 2)
    elif words & {"rating", "stars"}:
        value = round(rng.uniform(3.6, 4.8), 1) if kind == "number" else rng.randint(3, 5)
    elif words & {"distance", "km", "miles"}:
        value = round(rng.uniform(0.3, 2.8), 1) if kind == "number" else rng.randint(1, 3)
    elif words & {"bytes"}:
        value = rng.randint(24_000, 4_800_000)
    elif words & {"overdue", "age", "days"}:
        value = rng.randint(0, 30)
    else:
        value = rng.randint(1, 30)
    if high is not None:
        value = min(value, high)
    value = max(value, low)
    return int(value) if kind == "integer" else value
