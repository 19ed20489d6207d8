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
from pipeline.core.model.per_world import per_world
from pipeline.core.model.seeding import stable_int
from pipeline.core.model.world import Record, World

Filler = Callable[[Record | None, World, Random], str]
_MONEY = frozenset([
    "amount", "balance", "price", "cost", "fee", "value", "total", "tax", "rent", "salary",
    "budget", "spend", "paid", "due", "usd", "eur", "gbp", "premium", "deductible", "charged",
])  # fmt: skip


def bare(record: Record | None) -> str:
    """A record's name without its bracketed or dashed description."""
    if record is None:
        return ""
    return re.split(r"\s+[-–(]", record.name)[0].strip()


def after_dash(record: Record | None) -> str:
    """'Rx 7730142 - Warfarin 5 mg' -> 'Warfarin 5 mg'; the whole name when undashed."""
    if record is None:
        return ""
    parts = re.split(r"\s+[-–]\s+", record.name, maxsplit=1)
    return parts[-1]


def currency_of(world: World) -> str:
    text = " ".join(f"{k} {v}" for r in world.records for k, v in r.attributes.items())
    for code in ("GBP", "EUR", "USD"):
        if code in text or code.lower() in text:
            return code
    return "EUR"


def _iban(record: Record | None, world: World, rng: Random) -> str:
    held = held_iban(record, world)
    if held is not None:
        return held
    digits = "".join(str(rng.randint(0, 9)) for _ in range(16))
    groups = " ".join(digits[k : k + 4] for k in range(0, 16, 4))
    if currency_of(world) == "GBP":
        bank = rng.choice(("NWBK", "BARC", "LOYD", "HBUK"))
        return f"GB{rng.randint(10, 98)} {bank} {groups[:-5]}"
    return f"DE{rng.randint(10, 98)} {groups} {rng.randint(10, 99)}"


def held_iban(record: Record | None, world: World) -> str | None:
    """The IBAN the world holds for this record: its own, or that of the party its name
    names ('PaperCo bill 553' is paid to PaperCo Supplies BV's `remit_iban`), so a bill, its
    listing and its payment show one account, not three made-up ones."""
    if record is None:
        return None
    own = _iban_of(record)
    if own is not None:
        return own
    words = {w for w in tokens(record.name) if len(w) >= 4}
    return next((iban for named, iban in _holders(world) if words & named), None)


def _iban_of(record: Record) -> str | None:
    return next(
        (
            v
            for k, v in record.attributes.items()
            if "iban" in tokens(k) and isinstance(v, str) and v
        ),
        None,
    )


@per_world
def _holders(records: tuple[Record, ...]) -> list[tuple[set[str], str]]:
    """The name words and IBAN of every record holding one (a few per world)."""
    return [(set(tokens(r.name)), iban) for r in records if (iban := _iban_of(r))]


def masked_iban(record: Record | None, world: World, rng: Random) -> str:
    last4 = next(
        (str(v)[-4:] for k, v in (record.attributes if record else {}).items() if "last4" in k),
        f"{rng.randint(0, 9999):04d}",
    )
    prefix = "GB" if currency_of(world) == "GBP" else "DE"
    return f"{prefix}** **** **** **** {last4}"


def _postcode(record: Record | None, world: World, rng: Random) -> str:
    if currency_of(world) == "GBP":
        letters = "ABDEFGHJLNPQRSTUWXYZ"
        area = rng.choice(("N", "SE", "LS", "M", "B", "EH", "BS"))
        unit = rng.choice(letters) + rng.choice(letters)
        return f"{area}{rng.randint(1, 19)} {rng.randint(1, 9)}{unit}"
    return f"{rng.randint(10, 99)}{rng.randint(100, 999)}"


def _role(record: Record | None, world: World, rng: Random) -> str:
    if record is not None and re.fullmatch(r"[a-z][a-z0-9_]*", bare(record)):
        return bare(record)  # a database role is named by its own name
    if record is not None and "course" in record.name.lower() + record.id:
        return rng.choice(("instructor", "teaching assistant"))
    return rng.choice(("member", "editor", "viewer"))


def one_of(*options: str) -> Filler:
    return lambda record, world, rng: options[rng.randrange(len(options))]


def slug(record: Record | None) -> str:
    return "-".join(tokens(bare(record))) or "document"


def filename(record: Record | None, world: World, rng: Random) -> str:
    name = record.name if record else ""
    if re.search(r"\.\w{2,4}$", name):
        return name
    # the record's own kind of file, not a draw: a path ending .xlsx sat beside a PDF's type
    return f"{slug(record)}.{('pdf', 'docx', 'xlsx')[stable_int('file', slug(record)) % 3]}"


def someone(record: Record | None, world: World, rng: Random) -> str:
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
    "zip": "application/zip",
    "json": "application/json",
    "txt": "text/plain",
    "html": "text/html",
}

FILLERS: dict[str, Filler] = {
    "iban": _iban,
    "masked_iban": masked_iban,
    "postcode": _postcode,
    "role": _role,
    "origin": one_of("CN", "DE", "VN", "TR", "IN", "US"),
    "topic": lambda r, w, rng: f"Updates and questions about {bare(r) or 'the team'}",
    "drug": lambda r, w, rng: after_dash(r),
    "directions": one_of(
        "Take one tablet by mouth once daily",
        "Take one tablet by mouth twice daily with food",
        "Take one capsule by mouth every 8 hours until finished",
    ),
    "test": lambda r, w, rng: bare(r),
    "source": one_of("Reuters", "Bloomberg", "company press release", "Financial Times"),
    "pod": lambda r, w, rng: f"{slug(r)}-{rng.randint(10**4, 10**5 - 1):x}-{rng.randint(100, 999)}",
    "team": one_of("Platform", "Finance", "Operations", "Sales", "Customer Success"),
    "client": someone,
    "uploaded_by": someone,
    "counterparty": someone,
    "filename": filename,
    "file_name": filename,
    "file_path": lambda r, w, rng: f"/workspace/downloads/{filename(r, w, rng)}",
    "path": lambda r, w, rng: f"/shared/{filename(r, w, rng)}",
    "sandbox_path": lambda r, w, rng: f"/sandbox/attachments/{filename(r, w, rng)}",
    "sha256": lambda r, w, rng: "".join(rng.choice("0123456789abcdef") for _ in range(64)),
    "checksum": lambda r, w, rng: "".join(rng.choice("0123456789abcdef") for _ in range(64)),
    "signature": lambda r, w, rng: (
        "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(130))
    ),
    "mime_type": lambda r, w, rng: _MIME.get(
        filename(r, w, rng).rsplit(".", 1)[-1].lower(), "application/octet-stream"
    ),
    "exchange": one_of("NASDAQ", "NYSE"),
    "cancellation": one_of(
        "Free cancellation until 48 hours before check-in",
        "Free cancellation until 18:00 on the day before arrival",
    ),
    "program": lambda r, w, rng: bare(r),
    "work_authorisation": one_of("UK citizen", "Skilled Worker visa", "Settled status"),
    "work_authorization": one_of("US citizen", "Permanent resident", "H-1B visa"),
    "notebook": one_of("Work", "Personal", "Projects"),
    "assessment": one_of(
        "Symptoms consistent with the presenting complaint; no red flags reported.",
        "Stable; findings in line with the previous review.",
    ),
    "follow_up": one_of(
        "Review in two weeks, sooner if symptoms worsen.",
        "Routine follow-up in one month.",
    ),
    "os": one_of("Windows 11 23H2", "macOS 14.5", "Ubuntu 22.04 LTS"),
    "stdout": one_of("done", "OK"),
    "stderr": lambda r, w, rng: "",
    "workshop": one_of("Northside Fleet Services", "City Commercials workshop"),
    "line": lambda r, w, rng: str(rng.randint(12, 380)),
    "evidence": lambda r, w, rng: (
        f"{r.name}: {', '.join(f'{k} {v}' for k, v in list(r.attributes.items())[:2])}"
        if r is not None
        else "Alert telemetry attached"
    ),
}
"""Field meanings the records rarely hold, keyed by the field name or its last words
(`field_meanings` adds more and looks them up)."""


_VERDICT_GIVERS = frozenset(["analyst", "analysts", "review", "reviews", "ratings", "votes"])
"""Counts of who gave a record's consensus or rating (`analyst_count`, `review_count`)."""


_BALANCE_STATES = frozenset(["available", "pending", "current", "ledger", "cleared"])


def _described(schema: Mapping[str, Any]) -> set[str]:
    return set(tokens(str(schema.get("description") or "")))


def plausible_number(words: set[str], schema: Mapping[str, Any], kind: str, rng: Random) -> Any:
    """A number such a field holds: a VAT rate a return uses, a CVSS score, a tyre pressure,
    a rating out of five, money inside the schema's bounds."""
    low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float
    if words & _VERDICT_GIVERS:
        # those behind a consensus or an average rating: never none beside their verdict
        value = rng.randint(4, 28) if words & {"analyst", "analysts"} else rng.randint(12, 640)
    elif words & {"count", "quantity", "items", "results", "remaining"}:
        value = rng.randint(0, 5)
    elif words & {"vat", "tax"}:
        value = (0, 5, 20)[rng.randrange(3)]  # the rates a VAT return actually uses
    elif words & {"cvss"}:
        value = round(rng.uniform(3.1, 9.8), 1)
    elif words & {"pressure", "psi"}:
        value = round(rng.uniform(2.1, 2.6), 1) if "bar" in words else rng.randint(32, 38)
    elif words & {"volume", "shares", "float"}:
        value = rng.randint(40_000, 9_000_000)  # shares traded or outstanding, not a handful
    elif words & {"cap", "capitalisation", "capitalization"}:
        value = round(rng.uniform(5e7, 3e11), -5)
    elif words & {"pe", "ratio"}:
        value = round(rng.uniform(8, 45), 1)
    elif words & {"exit", "errors", "failures", "failed"}:
        value = 0  # a run that finished reports no failures unless the world says so
    elif words & {"status", "code"} and kind == "integer":
        value = 200  # a numeric status is a protocol's, and the call succeeded
    elif "score" in words and kind == "number" and not words & {"percent", "pct"}:
        value = round(rng.uniform(0.05, 0.95), 2)  # a model's score is a probability: 0.58
    elif words & {"percent", "percentage", "pct", "score", "progress"}:
        value = rng.randint(5, 95)
    elif words & {"rate", "apr", "interest", "yield"}:
        value = round(rng.uniform(0.5, 9.5), 2)
    elif "balance" in words or (words <= _BALANCE_STATES and "balance" in _described(schema)):
        value = round(rng.uniform(2_500, 48_000), 2)  # an account's balance, not a purchase
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


_BYTES_PER = {"bytes": 1, "kb": 2**10, "mb": 2**20, "gb": 2**30, "tb": 2**40}
_FREED = frozenset({"freed", "reclaimed", "released", "recovered", "saved"})


def freed_space(words: set[str], held: Mapping[str, Any], rng: Random) -> float | int | None:
    """Space a clean-up frees, in the field's unit: part of what the record it cleaned holds
    (auditors: 22 GB freed from a 14.3 GB folder), or None when either has no size."""
    unit = next((u for u in _BYTES_PER if u in words), None)
    if unit is None or not words & _FREED:
        return None
    size = next(
        (
            float(v) * _BYTES_PER[k.rsplit("_", 1)[-1]]
            for k, v in held.items()
            if k.startswith("size_")
            and k.rsplit("_", 1)[-1] in _BYTES_PER
            and isinstance(v, int | float)
            and not isinstance(v, bool)
        ),
        None,
    )
    if not size:
        return None
    freed = size * rng.uniform(0.1, 0.7) / _BYTES_PER[unit]
    return int(freed) if unit == "bytes" else round(freed, 1)


FIRST_NAMES = [
    "Aisha", "Ben", "Carla", "Dmitri", "Elif", "Femi", "Gwen", "Hugo", "Isla", "Jonas", "Kasia",
    "Luca", "Maren", "Nikhil", "Olga", "Pablo", "Rosa", "Sanjay", "Tessa", "Umar", "Vera", "Wen",
    "Xavier", "Yara", "Zoltan", "Bianca", "Cormac", "Dalia", "Emre", "Freya",
]  # fmt: skip
LAST_NAMES = [
    "Abara", "Bergstrom", "Carvalho", "Dubois", "Eriksen", "Fontaine", "Garza", "Holm", "Iqbal",
    "Jansen", "Kowal", "Lund", "Marsh", "Nakamura", "Osei", "Petrov", "Rahman", "Sorensen",
    "Tanaka", "Ueda", "Varga", "Whitlock", "Yilmaz", "Zeller", "Achterberg", "Brodie", "Cruz",
    "Devlin", "Ferris",
]  # fmt: skip
"""Names of the people a world's background holds (population clones of its persons)."""
