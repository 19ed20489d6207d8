"""The background population of a world: more records of the kinds a seed names.

A seed names the dozen records its stories need (Van 17, the fuel card, two drivers). A real
fleet console holds dozens of vans, a card has a statement of fills, a practice has many
patients. Each family of records (entities sharing an id prefix, `veh_`, `drv_`, `txn_`)
gains deterministic members cloned from the seed's own ordinary members: new numbers in the
name and id, new person names, identifiers redrawn, numbers within the family's range, dates
before the scenario's today, links to other members. Prose attributes are never copied (a
clone of a record carrying an instruction must not carry it too), and no clone can be
mistaken for a record the seed's requests or hazards name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from random import Random

from pipeline.core.generation.dates import DAY_MONTH, MONTH_DAY
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.vocabulary import FIRST_NAMES, LAST_NAMES
from pipeline.core.inputs.seeds import Seed
from pipeline.core.model.seeding import seeded_rng
from pipeline.core.model.world import Record, Scalar

FAMILY_SIZE = {"numbered": (22, 40), "person": (14, 24)}
"""How many members a family reaches, by how its names vary."""

_PERSON = re.compile(r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2}")
_DATE = re.compile(r"((?:19|20)\d\d-[01]\d-[0-3]\d)(T[0-2]\d:[0-5]\d(?::[0-5]\d)?Z?)?")
_DATED_NAME = (_DATE, DAY_MONTH, MONTH_DAY, re.compile(r"\d+[._]\d+[._]\d+"))  # '28 Aug'
FUTURE_DATE_WORDS = frozenset([
    "expires", "expiry", "due", "until", "end", "ends", "valid", "renewal", "deadline", "next",
    "scheduled", "start", "outbound", "inbound", "departure", "arrival", "check", "return",
    "event", "appointment", "depart", "arrive", "checkin", "expected", "closing",
])  # fmt: skip
"""Words of attribute names whose dates may lie after the scenario's today."""


def background(seed: Seed, today: date) -> tuple[Record, ...]:
    """Members added to every family of the seed that has ordinary, clonable members."""
    rng = seeded_rng("population", seed.id)
    seed_records = [
        Record(
            id=e.id, kind=e.kind, name=e.name, attributes=dict(e.attributes), sensitive=e.sensitive
        )
        for e in seed.entities
    ]
    guard = _Guard(seed, seed_records)
    seed_ids = set(guard.ids)
    families: dict[str, list[Record]] = defaultdict(list)
    for record in seed_records:
        families[_prefix(record.id)].append(record)
    made: dict[str, list[Record]] = defaultdict(list)
    for prefix, members in families.items():
        templates = [m for m in members if _style(m) is not None]
        if not templates:
            continue
        style = _style(templates[0]) or "numbered"
        low, high = FAMILY_SIZE[style]
        wanted = rng.randint(low, high) - len(members)
        for n in range(wanted * 3):
            if len(made[prefix]) >= wanted:
                break
            template = templates[n % len(templates)]
            clone = _Cloner(rng, today, members, guard).clone(template)
            if guard.admits(clone):
                made[prefix].append(clone)
    everyone = {p: [*families[p], *made[p]] for p in families}
    clones = tuple(
        _linked(clone, seed_ids, everyone, rng) for prefix in made for clone in made[prefix]
    )
    earlier = tuple(
        entry
        for members in families.values()
        if not any(_style(m) for m in members)
        for template in members
        if not _under_way(template, seed_records, today)
        for entry in _history(template, members, guard, rng, today)
    )
    return clones + earlier


HISTORY_SIZE = (10, 22)
"""How many earlier entries a dated record's history holds (a card's earlier fills, a
driver's earlier messages, a wallet's earlier notices)."""
_ENTRY_NOUNS = frozenset([
    "notice", "notification", "alert", "alarm", "message", "note", "payment", "transfer", "post",
    "encounter", "excursion", "snapshot", "handover", "reading", "event", "call", "visit",
])  # fmt: skip
"""Last words of a dated record's name that say what kind of entry it is (`… governance
notice`), naming its history's entries when the name has no head words."""
_HEAD = re.compile(r"\s+(?:about|at|regarding|re|on|to)\s+|:\s*|\s+[-—]\s+")


def _history(
    template: Record, family: Sequence[Record], guard: _Guard, rng: Random, today: date
) -> list[Record]:
    """Earlier entries of the history a dated record belongs to (the fills before the one a
    dispute is about): same kind and parent, dates stepped back, fresh ids and values, named
    by their head words and day (`Fuel fill, 12 Oct 2024`), never by the template's subject."""
    if template.sensitive or not _dated(template):
        return []
    head = _HEAD.split(template.name, maxsplit=1)[0].strip()
    last = tokens(template.name)[-1:] or [""]
    if head == template.name:
        head = last[0].capitalize() if last[0] in _ENTRY_NOUNS else ""
    if not head:
        return []
    cloner = _Cloner(rng, today, family, guard)
    cloner.template = template
    back = timedelta(0)
    out: list[Record] = []
    for _ in range(rng.randint(*HISTORY_SIZE)):
        back += timedelta(days=rng.randint(2, 9), minutes=rng.randrange(-180, 180, 5))
        attributes: dict[str, Scalar] = {}
        for key, value in template.attributes.items():
            drawn = cloner._attribute(key, value, None, -back)
            if isinstance(drawn, str) and drawn == value and drawn not in guard.ids:
                drawn = _unsaid(key, drawn, family, guard)
            if drawn is not None:
                attributes[key] = drawn
        moment = next(
            (date.fromisoformat(str(v)[:10]) for k, v in attributes.items() if _past(k, v)),
            today - back,
        )
        entry = Record(
            id=f"{_prefix(template.id)}_{rng.randint(100000, 999999)}",
            kind=template.kind,
            name=f"{head}, {moment.day} {moment:%b %Y}",
            attributes=attributes,
        )
        unlinked = {k: v for k, v in attributes.items() if v not in guard.ids}
        if guard.admits(entry.model_copy(update={"attributes": unlinked}), dated=True):
            out.append(entry)  # its parent is the seed's record on purpose
    return out


def _under_way(template: Record, records: Sequence[Record], today: date) -> bool:
    """Whether the record a dated entry belongs to is one trip still under way, its only
    dates days ahead: it has no past to hold a history (auditors read twenty temperature
    excursions of one vaccine shipment, over the four months before it was picked)."""
    linked = set(map(str, template.attributes.values()))
    for parent in (r for r in records if r.id in linked):
        dated = {k: str(v)[:10] for k, v in parent.attributes.items() if _DATE.fullmatch(str(v))}
        arrives = [d for k, d in dated.items() if set(tokens(k)) & _ARRIVAL_WORDS]
        soon = str(today + timedelta(days=30))
        if arrives and all(d >= str(today) for d in dated.values()) and min(arrives) <= soon:
            return True
    return False


_ARRIVAL_WORDS = frozenset({"eta", "arrival", "arrives", "arriving"})


def _dated(record: Record) -> bool:
    """Whether a record is an entry in time (a fill, a message): a past date of its own."""
    return any(_past(k, v) for k, v in record.attributes.items())


def _past(key: str, value: Scalar) -> bool:
    return _DATE.fullmatch(str(value)) is not None and not set(tokens(key)) & FUTURE_DATE_WORDS


def _unsaid(key: str, value: str, family: Sequence[Record], guard: _Guard) -> str | None:
    """A category value the seed's texts do not name: an entry of a history is never the one
    a request or hazard is about (`Shell Leyton` stays with the fill the dispute names)."""
    if len(value) < 4 or not guard._said(value.lower()):
        return value
    others = sorted(
        str(v)
        for m in family
        if isinstance(v := m.attributes.get(key), str) and not guard._said(v.lower())
    )
    return others[0] if others else None


_PERSONAL = frozenset(
    {"email", "phone", "mobile", "dob", "date_of_birth", "birth_date", "mrn", "handle"}
    | {"username", "employee_id", "nhs_number", "ssn", "first_name", "last_name"}
)
"""Attributes only a person's record holds: an account or record named like a person is one."""
_HELD_BY = frozenset({"holder", "cardholder", "card_holder", "account_holder"})
"""Attributes of a person's own instrument (a saved card): they hold a few, never a family."""


def _prefix(record_id: str) -> str:
    return record_id.split("_")[0].lower()


def _style(record: Record) -> str | None:
    """How a clone's name can differ: a person's name, or a number in it; else not cloned."""
    if any(pattern.search(record.name) for pattern in _DATED_NAME):
        return None
    if record.kind == "account" and set(record.attributes) & _HELD_BY:
        return None  # a shopper has two saved cards, not thirty 'Visa Debit ending …'
    if _PERSON.fullmatch(record.name) and (
        record.kind == "contact"
        or (record.kind in ("account", "record") and set(record.attributes) & _PERSONAL)
    ):
        return "person"  # 'Everyday Checking' is an account's name, not a holder's
    if _NUMBER.search(record.name):
        return "numbered"
    return None


class _Guard:
    """Keeps clones apart from the records the seed's texts name."""

    def __init__(self, seed: Seed, records: Sequence[Record]) -> None:
        texts = [w.request for w in seed.workflows] + [h.description for h in seed.hazards]
        texts += [p.rule for p in seed.policies] + [p.name for p in seed.personas]
        self.text = " ".join(texts).lower()
        self.names = {r.name.lower() for r in records}
        self.ids = {r.id for r in records}
        self.seed_ids = frozenset(self.ids)
        counts: dict[str, int] = defaultdict(int)
        for record in records:
            for word in set(re.findall(r"[a-z]{6,}", record.name.lower())):
                counts[word] += 1
        self.distinctive = {w for w, n in counts.items() if n == 1}
        people = [r.name for r in records if _PERSON.fullmatch(r.name)]
        self.people = {
            w.lower() for name in people + [p.name for p in seed.personas] for w in name.split()
        }

    def admits(self, clone: Record, *, dated: bool = False) -> bool:
        """Whether a clone is new and unnamed by the seed's texts; a dated entry's name may
        share its template's kind word (`Notice, 28 Oct 2024`): its day tells it apart."""
        name = clone.name.lower()
        bare = re.sub(r"\s*\(.*?\)", "", name).strip()
        if clone.id in self.ids or name in self.names or self._said(bare):
            return False
        words = [] if dated else re.findall(r"[a-z]{6,}", name)
        if any(w in self.distinctive and self._said(w) for w in words):
            return False
        if _PERSON.fullmatch(clone.name) and set(name.split()) & self.people:
            return False
        coded = [str(v).lower() for v in clone.attributes.values() if re.search(r"\d", str(v))]
        if any(len(v) >= 5 and self._said(v) for v in coded):
            return False
        self.ids.add(clone.id)
        self.names.add(name)
        return True

    def _said(self, phrase: str) -> bool:
        return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", self.text) is not None


class _Cloner:
    """One new member of a family, drawn from a template member and the family's values."""

    def __init__(self, rng: Random, today: date, family: Sequence[Record], guard: _Guard) -> None:
        self.rng = rng
        self.today = today
        self.family = family
        self.guard = guard
        self.digits: dict[int, int] = {}
        self.template = family[0]

    def clone(self, template: Record) -> Record:
        self.template = template
        style = _style(template)
        if style == "person":
            name = f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"
        else:
            # the number that names a record it belongs to stays (auditors: 'Van 37 lost
            # communication…' listed in Van 17's diagnostics, linked to Van 17)
            parents = {
                int(n)
                for v in template.attributes.values()
                if isinstance(v, str) and v in self.guard.seed_ids and v != template.id
                for n in re.findall(r"\d+", v)
            }
            name = _NUMBER.sub(
                lambda m: m.group(0) if int(m.group(0)) in parents else self._number(m.group(0)),
                template.name,
            )
        shift = self._shift(template)
        attributes: dict[str, Scalar] = {}
        for key, value in template.attributes.items():
            drawn = self._attribute(key, value, name if style == "person" else None, shift)
            if drawn is not None:
                attributes[key] = drawn
        return Record(
            id=self._id(template, name, style),
            kind=template.kind,
            name=name,
            attributes=attributes,
            sensitive=template.sensitive,
        )

    def _number(self, run: str) -> str:
        """A fresh number for a run of digits, the same wherever the number appears
        (`Van 17` and `veh_van_017`), padded as the run was."""
        value = int(run)
        if value not in self.digits:
            width = len(str(value))
            low = 10 ** (width - 1) if width > 1 else 1
            self.digits[value] = self.rng.randint(low, 10**width - 1)
        return str(self.digits[value]).zfill(len(run))

    def _id(self, template: Record, name: str, style: str | None) -> str:
        if style == "person" and not re.search(r"\d", template.id):
            slug = "_".join(tokens(name))
            return f"{_prefix(template.id)}_{slug}"
        return _NUMBER.sub(lambda m: self._number(m.group(0)), template.id)

    def _shift(self, template: Record) -> timedelta:
        """One move for all of a record's dates, so their order holds (delivered before the
        return window ends), and its past dates stay before today."""
        past = [
            date.fromisoformat(m.group(1))
            for key, value in template.attributes.items()
            if not set(tokens(key)) & FUTURE_DATE_WORDS
            and (m := _DATE.fullmatch(str(value))) is not None
        ]
        latest = (min(self.today - d for d in past).days - 1) if past else 40
        days = self.rng.randint(-60, max(-1, min(40, latest)))
        return timedelta(days=days, minutes=self.rng.randrange(-240, 240, 5))

    def _attribute(
        self, key: str, value: Scalar, person: str | None, shift: timedelta
    ) -> Scalar | None:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in self.digits:
            return int(self._number(str(value)))  # `run_id` 48213 of `CI run 48213`, renumbered
        if isinstance(value, int | float):
            said = re.search(rf"(?<![\d.]){re.escape(str(value))}(?![\d.])", self.template.name)
            return value if said else self._in_range(key, value)
        text = str(value)
        if text in self.guard.ids:
            return text  # pointed at some member of that family afterwards
        moment = _DATE.fullmatch(text)
        if moment:
            return _moved(moment, shift)
        if "@" in text and person is not None and re.fullmatch(r"[^@\s]+@[\w.-]+", text):
            local = ".".join(w.lower() for w in person.split())
            return f"{local}@{text.split('@', 1)[1]}"
        words = {w[:-1] if re.search(r"[^s]s$", w) else w for w in tokens(key)}
        if words & {"address", "street"} and " " in text and len(text) <= 60:
            mapped = self._mapped(text)
            if mapped != text:
                return mapped  # `89 Maple` lies at 89 Maple Ave
            return re.sub(r"\d+", lambda m: str(self.rng.randint(1, 240)), text, count=1)
        if re.search(r"https?://|@|\n", text) or len(text) > 40 or text.count(" ") >= 4:
            return None  # prose, a link or an address of someone: never copied
        if person is not None and set(re.findall(r"[a-z]+", text.lower())) & self.guard.people:
            return None  # the seed person's own relations are not the clone's
        if (words & IDENTIFIERS and re.search(r"\d", text)) or re.fullmatch(r"0x[\da-fA-F]+", text):
            return self._code(text)
        if words & {"status", "state"}:
            options = sorted({str(m.attributes[key]) for m in self.family if key in m.attributes})
            return self.rng.choice(options)
        return text  # a category of the template (its carrier, its plan) stays with its name

    def _in_range(self, key: str, value: float) -> float | int:
        values = [
            float(v)
            for m in self.family
            if isinstance(v := m.attributes.get(key), int | float) and not isinstance(v, bool)
        ] or [float(value)]
        low, high = min(values), max(values)
        if low == high:
            low, high = low * 0.6, high * 1.4
        drawn = self.rng.uniform(min(low, high), max(low, high))
        if set(tokens(key)) & {"pct", "percent", "percentage"}:
            drawn = min(max(drawn, 0.0), 100.0)
        if isinstance(value, int):
            step = 100 if value >= 1000 and value % 100 == 0 else 1
            return int(round(drawn / step) * step)
        places = len(str(value).split(".")[1]) if "." in str(value) else 2
        return round(drawn, places)

    def _mapped(self, text: str) -> str:
        """The text with the numbers this clone renumbered renumbered alike."""
        return re.sub(
            r"\d+",
            lambda m: self._number(m.group(0)) if int(m.group(0)) in self.digits else m.group(0),
            text,
        )

    def _code(self, text: str) -> str:
        """An identifier of the same shape: the clone's numbers mapped, else its tail redrawn
        (a plate, a VIN, a phone number)."""
        mapped = self._mapped(text)
        if mapped != text:
            return mapped
        keep = max(2, 2 * len(text) // 3)
        letters = text.replace(" ", "").isalnum() and text.upper() == text
        tail = "".join(
            str(self.rng.randint(0, 9))
            if ch.isdigit()
            else self.rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ")
            if ch.isalpha() and letters
            else ch
            for ch in text[keep:]
        )
        return text[:keep] + tail


_NUMBER = re.compile(
    r"(?<![\d.])(?!(?:19|20)\d\d(?!\d))\d{2,}(?![\d.])"
    r"(?!\s?(?:mg|mcg|ml|g|kg|t|km|m|gb|mb|tb|h|%)\b)(?!-[A-Z]\b)"
)
"""A number in a name that tells records apart (`Van 17`), not a quantity (`10 mg`)."""
IDENTIFIERS = frozenset([
    "id", "number", "no", "ref", "reference", "plate", "vin", "phone", "mobile", "fax", "mrn",
    "npi", "ip", "hostname", "host", "last4", "pan", "iban", "routing", "pin", "serial", "licence",
    "license", "code", "sku", "ndc", "imei", "mac", "tag", "tracking",
])  # fmt: skip
"""Words of attribute names whose values identify one record, so each clone draws its own."""


def _moved(moment: re.Match[str], shift: timedelta) -> str:
    day = date.fromisoformat(moment.group(1))
    if moment.group(2) is None:
        return (day + timedelta(days=shift.days)).isoformat()
    stamp = datetime.fromisoformat(moment.group(0).rstrip("Z")) + shift
    return stamp.strftime("%Y-%m-%dT%H:%M:00Z")


def _linked(
    clone: Record, seed_ids: set[str], everyone: dict[str, list[Record]], rng: Random
) -> Record:
    """A clone's links to seed records (a fill's `card`) point at some member of that family:
    the one its name numbers (`Van 55 …` belongs to Van 55), else, where the seed shows a
    parent with several such records (an account's orders), that parent half the time, so
    the records the stories are about have a history of their own."""
    attributes = dict(clone.attributes)
    numbers = {int(n) for n in re.findall(r"\d+", clone.name)}
    for key, value in clone.attributes.items():
        if not (isinstance(value, str) and value in seed_ids):
            continue
        parents = everyone[_prefix(value)]
        named = [p for p in parents if numbers & {int(n) for n in re.findall(r"\d+", p.id)}]
        siblings = [m for m in everyone[_prefix(clone.id)] if m.attributes.get(key) == value]
        if named:
            attributes[key] = named[0].id
        elif len(siblings) < 2 or rng.random() < 0.5:
            attributes[key] = rng.choice(parents).id
    return clone.model_copy(update={"attributes": attributes})


def population_of(seed: Seed, records: Iterable[Record], today: date) -> tuple[Record, ...]:
    """The seed's records followed by their background."""
    return (*records, *background(seed, today))
