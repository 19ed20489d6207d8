"""Values a user states in a request: amounts, dates and times, e-mail addresses, ticker
symbols, quoted references, '#488'-style numbers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from pipeline.core.generation.dates import (
    END_WORDS,
    MONTHS,
    clock_times,
    spoken_days,
    spoken_window,
)
from pipeline.core.generation.semantics import tokens

_MONTHS = {m: i + 1 for i, m in enumerate(MONTHS)}

NUMBER = re.compile(r"(?<![\w.-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?!\w|-\d)")
"""A number as written: '37,500', '27.10', '60' in '60-minute'; not a piece of a date or id."""
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_QUOTED = re.compile(
    r"(?:(?<=^)|(?<=[\s(:]))(['\u2018\"])([^'\u2018\u2019\"\n]{3,60}?)['\u2019\"](?=$|[\s).,;:!?])"
)
"""A quoted reference: the quote opens after a space and closes before one, so the
apostrophes of "Jonah's" and "you've" never bound a value."""
_MONTH_YEAR = re.compile(r"\b(" + "|".join(_MONTHS) + r") (20\d\d)\b", re.IGNORECASE)


def stated_value(
    name: str, schema: Mapping[str, Any], request: str, today: date, *, window: bool = False
) -> Any:
    """A value the user stated, whole: an amount, a date, a time, an e-mail, an enum
    option, a quoted reference. `today` resolves 'Thursday' or '12-16 Nov'; `window`
    says the call lists what falls between two dates."""
    words = set(tokens(name))
    kind = _type(schema)
    options = schema.get("enum")
    if options:
        lowered = request.lower()
        hit = [o for o in options if isinstance(o, str) and o.lower().replace("_", " ") in lowered]
        return hit[0] if hit else None
    if kind == "integer" and words & {"year"}:
        years = re.findall(r"\b(20\d\d)\b", request)
        return int(years[0]) if years else None
    if kind == "integer" and words & {"quarter"}:
        quarter = re.search(r"\bQ([1-4])\b", request)
        return int(quarter.group(1)) if quarter else None
    units = frozenset() if window and words & _BOUNDS else _UNIT_WORDS
    if kind in ("number", "integer") and words & (_NUMERIC_WORDS | units):
        chosen = _number_near(words, request)
        low, high = schema.get("minimum", float("-inf")), schema.get("maximum", float("inf"))
        if chosen is None or not low <= chosen <= high:
            return None  # not a number the user gave for this field
        return int(chosen) if kind == "integer" else chosen
    if kind == "string" and (words & {"email"} or schema.get("format") == "email"):
        match = EMAIL.search(request)
        return match.group(0) if match else None
    if words & _BIRTH and not re.search(r"\b(born|birth|dob|d\.o\.b)", request, re.I):
        return None  # a day said about the task (a delivery, a visit) is nobody's birthday
    if kind == "string" and (
        words & {"date", "day"} or schema.get("format") in ("date", "date-time")
    ):
        with_time = schema.get("format") == "date-time" or "time" in words
        return stated_day(words, request, today, with_time=with_time, window=window)
    if kind == "integer" and words & {"number", "no"}:
        hashed = re.search(r"#(\d+)", request)
        return int(hashed.group(1)) if hashed else None
    if kind == "string" and schema.get("maxLength") == 3 and words & (_FROM | _TO):
        route = _ROUTE.search(request)  # 'LHR to SFO'
        return route.group(1 if words & _FROM else 2) if route else None
    if kind == "string" and words & {"symbol", "ticker", "token"}:
        tickers = [t for t in re.findall(r"\b[A-Z]{2,5}\b", request) if t not in _NOT_TICKERS]
        return tickers[0] if tickers else None
    if kind == "string" and words & {"country", "nationality", "citizenship"}:
        return country_code(request, schema, people=bool(words & {"nationality", "citizenship"}))
    if kind == "string" and words & {"month", "period"}:
        spoken = _MONTH_YEAR.search(request)
        return f"{spoken.group(2)}-{_MONTHS[spoken.group(1).lower()]:02d}" if spoken else None
    if kind == "string" and words & {"reference", "memo", "label", "subject", "title"}:
        quoted = _QUOTED.search(request)
        return quoted.group(2) if quoted else None
    if kind == "string" and words & {"time"}:
        clocks = clock_times(request)
        return f"{clocks[0][1]:02d}:{clocks[0][2]:02d}" if clocks else None
    return _said_with_its_kind(schema, request) if kind == "string" else None


def _said_with_its_kind(schema: Mapping[str, Any], request: str) -> str | None:
    """'the reporting schema' for a field whose examples read 'schema:reporting': a grant of
    SELECT 'on the reporting schema' went to the whole database."""
    for example in (str(e) for e in schema.get("examples") or ()):
        kind, colon, _ = example.partition(":")
        if colon and kind.isalpha() and len(kind) >= 4:
            said = re.search(rf"\bthe\s+([a-z][\w.-]*)\s+{kind}\b", request, re.I)
            if said and said[1].lower() not in ("same", "whole", "new", "other", "right"):
                return f"{kind}:{said[1]}"
    return None


_BIRTH = frozenset({"birth", "dob", "birthday", "born"})
_FROM = frozenset({"origin", "from", "departure"})
_TO = frozenset({"destination", "to", "arrival"})
_ROUTE = re.compile(r"\b([A-Z]{3})(?: to |\s?[-–]\s?)([A-Z]{3})\b")
_NOT_TICKERS = frozenset(
    {"DAO", "PR", "CI", "API", "ID", "OK", "US", "UK", "EU", "IT", "HR", "PDF", "ETF", "IRA"}
    | {"DNS", "SMS", "FYI", "ASAP", "ETA", "IP", "VPN", "SOC", "EHR", "MFA", "ESTA", "NA"}
    | {"AM", "PM", "UTC", "GMT", "VAT", "CSV", "URL", "KYC", "AML", "FAQ", "CEO", "CFO"}
)
"""Capitalised words of a request that name no traded symbol ('the DAO notice', 'my IRA')."""
_COUNTRIES = {
    "united states": "US", "usa": "US", "america": "US", "american": "US",
    "san francisco": "US", "new york": "US", "chicago": "US", "seattle": "US", "boston": "US",
    "south korea": "KR", "korea": "KR", "korean": "KR", "seoul": "KR",
    "japan": "JP", "japanese": "JP", "tokyo": "JP", "osaka": "JP",
    "united kingdom": "GB", "britain": "GB", "british": "GB", "england": "GB", "london": "GB",
    "france": "FR", "french": "FR", "paris": "FR", "germany": "DE", "german": "DE",
    "berlin": "DE", "spain": "ES", "spanish": "ES", "madrid": "ES", "barcelona": "ES",
    "portugal": "PT", "portuguese": "PT", "lisbon": "PT", "italy": "IT", "italian": "IT",
    "rome": "IT", "netherlands": "NL", "dutch": "NL", "amsterdam": "NL", "rotterdam": "NL",
    "poland": "PL", "polish": "PL", "warsaw": "PL", "russia": "RU", "russian": "RU",
    "canada": "CA", "canadian": "CA", "toronto": "CA", "china": "CN", "chinese": "CN",
    "india": "IN", "indian": "IN", "singapore": "SG", "ireland": "IE", "irish": "IE",
    "dublin": "IE", "mexico": "MX", "mexican": "MX", "brazil": "BR", "brazilian": "BR",
    "australia": "AU", "australian": "AU", "sydney": "AU", "nigeria": "NG", "nigerian": "NG",
    "kenya": "KE", "turkey": "TR", "turkish": "TR", "istanbul": "TR", "uae": "AE",
    "dubai": "AE", "switzerland": "CH", "swiss": "CH", "sweden": "SE", "swedish": "SE",
}  # fmt: skip
"""Places and nationalities a user names, by ISO country code (a trip 'to Seoul' is KR)."""


_DEMONYMS = frozenset(p for p in _COUNTRIES if re.search(r"(ese|ish|ian|can|ean|man|ch|ss)$", p))
"""The words of `_COUNTRIES` that say whose a passport is, not where a trip goes."""


def country_code(request: str, schema: Mapping[str, Any], *, people: bool) -> str | None:
    """The country the user named, as the field writes it: the ISO code when the field's
    examples are codes, the name as said otherwise. A nationality is said by its adjective
    ('my British passport'), a destination by a place, the last one named (the destination
    of 'after Tokyo I might go on to Seoul')."""
    lowered = request.lower()
    found = [
        (m.start(), place)
        for place in _COUNTRIES
        if (place in _DEMONYMS) == people
        for m in re.finditer(rf"\b{re.escape(place)}\b", lowered)
    ]
    if not found:
        return None
    at, place = max(found)
    examples = [str(e) for e in schema.get("examples") or ()]
    coded = schema.get("maxLength") == 2 or any(re.fullmatch(r"[A-Z]{2}", e) for e in examples)
    return _COUNTRIES[place] if coded else request[at : at + len(place)]


_NUMERIC_WORDS = frozenset(
    {"amount", "quantity", "value", "price", "limit", "stop", "shares", "units", "qty", "total"}
    | {"salary", "reserve", "budget", "cap", "fee", "cost", "threshold"}
)
_UNIT_WORDS = frozenset(
    {"radius", "duration", "minutes", "quantity", "qty", "shares", "units", "pages", "replicas"}
    | {"hours", "days", "kmh", "points", "rating", "setpoint", "temperature", "uses"}
)
"""Fields whose number the user gives with its unit ('a 400 m geofence', '30 minutes'):
only a number beside such a unit is theirs."""
_BOUNDS = frozenset({"min", "max", "minimum", "maximum"})
"""Words of a listing's filter bound: '3 stars' is a review's rating, no search's minimum."""
_NEAR = {
    "quantity": (
        "shares",
        "units",
        "items",
        "x",
        "pieces",
        "qty",
        "vials",
        "tablets",
        "packs",
        "pens",
        "boxes",
        "sets",
        "doses",
    ),
    "hours": ("hours", "hour", "h", "hrs"),
    "days": ("days", "day"),
    "kmh": ("km/h", "kmh", "kph"),
    "rating": ("stars", "star"),
    "price": ("at", "limit", "price", "to", "€", "$", "£"),
    "minutes": ("minutes", "minute", "min", "mins"),
    "duration": ("minutes", "minute", "min", "mins"),
    "radius": ("m", "metres", "meters", "km", "miles", "mile"),
    "setpoint": ("degrees", "degree", "°c", "°", "celsius", "heat", "cool", "heating", "cooling"),
    "temperature": ("degrees", "degree", "°c", "°", "celsius", "heat", "cool"),
}
"""Words said beside a field's number ('to 21.5 heat' is the thermostat's setpoint: a safe
twin kept the current 21.0, which the request's details line then stated)."""


def _number_near(words: set[str], request: str) -> float | None:
    """The stated number a field means: the one next to its own word ('limit at 27.10' for
    `limit_price`, '40 shares' for `quantity`), else the one money is counted in; a number
    said in words counts ('three days before it's due')."""
    request = _SPELLED.sub(lambda m: str(_SPELLED_NUMBERS[m[0].lower()]), request)
    found = [
        (m.start(), m.end(), n)
        for m in NUMBER.finditer(request)
        if (n := _number(m)) is not None
        and n >= 1
        and not _names_a_record(request, m.start())
        and not _HOUSE_NUMBER.match(request, m.end())
        and not _is_a_day(request, m.start(), m.end())
    ]
    if not found:
        return None
    lowered = request.lower()
    cues = set(words)
    for word in words:
        cues |= set(_NEAR.get(word, ()))
    for start, end, number in found:
        before = lowered[max(0, start - 16) : start].split()[-2:]
        after = lowered[end : end + 12].split()[:1]
        if cues & {w.strip(".,:;-") for w in [*before, *after]}:
            return number
    if words & ({"limit", "stop"} | _UNIT_WORDS):
        return None  # an optional price, or a measure the user never gave
    money = [
        n for s, e, n in found if re.match(r"\s*(eur|usd|gbp|usdc|€|\$|£)", lowered[e : e + 6])
    ]
    return money[0] if money else max(n for _, _, n in found)


_SPELLED_NUMBERS = {
    w: n
    for n, w in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=1
    )
}
_SPELLED = re.compile(
    rf"\b(?:{'|'.join(_SPELLED_NUMBERS)})(?=\s+(?:days?|hours?|minutes?|weeks?|stars?|shares"
    r"|units|items|pieces|tablets|packs|doses|boxes|vials|pens)\b)",
    re.I,
)


_NUMBERED = frozenset(
    {"bill", "invoice", "order", "case", "ticket", "van", "room", "flat", "no", "number"}
    | {"ref", "pr", "issue", "version", "unit", "lot", "batch", "step", "floor", "suite"}
)


def _names_a_record(request: str, start: int) -> bool:
    """'bill 553', 'PR #488', 'van 17': the number is part of a name, never an amount."""
    before = request[max(0, start - 12) : start].lower().rstrip()
    return before.endswith("#") or (before.split() or [""])[-1] in _NUMBERED


_HOUSE_NUMBER = re.compile(
    r"\s+(?!(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
    r"[a-z]*\b)[A-Z][a-z]{2,}"
)
"""'22 Maple', '12 Mill Lane': a number before a name is part of an address (a min_price of
22 was read off '22 Maple'), never an amount."""
_MONTH_WORD = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DAY_AFTER = re.compile(rf"(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}(?:\W|$)", re.I)
_DAY_BEFORE = re.compile(rf"\b{_MONTH_WORD}\s+$", re.I)


def _is_a_day(request: str, start: int, end: int) -> bool:
    """'due 5 July', 'on July 5th': the number is a day of the month, never an amount."""
    return bool(
        _DAY_AFTER.match(request, end) or _DAY_BEFORE.search(request[max(0, start - 12) : start])
    )


def _number(match: re.Match[str]) -> float | None:
    whole = match.group(1).replace(",", "")
    if len(whole) == 4 and whole.startswith("20"):
        return None  # a year
    return float(f"{whole}.{match.group(2)}") if match.group(2) else float(whole)


_UNTIL = re.compile(
    r"\b(?:until|till|by|through|expires?|ending)\s+(?:(?:this|next|on)\s+)?$", re.I
)
"""Words just before a day that make it, and the time said with it, an end ('valid until
Friday 6pm' went out as the raw words: auditors found a door code valid until 'Friday 6pm')."""


def stated_day(
    words: set[str], request: str, today: date, *, with_time: bool, window: bool = False
) -> str | None:
    """The day a date field means: the first day said (the end of a range, or the second
    day said, for an `end` field), else the bound of 'this week' / 'recently'. A listing's
    window runs from midnight to midnight; another date takes the time said (on the day
    said just before it), else the day's start (an end: its close)."""
    spans = spoken_days(request, today)
    last = bool(words & END_WORDS)
    clocks = clock_times(request)
    clock = clocks[0] if clocks else None
    if spans:
        first = spans[0]
        if last and clock and not window and len(clocks) == 1:
            if not _UNTIL.search(request[: first[0]]):
                return None  # 'Thursday 15:00' gives a start; its end was not said
            spans = spans[:1]  # 'valid until Friday 6pm': the end, with its time
        if last:
            day = first[2] if first[2] != first[1] or len(spans) == 1 else spans[1][2]
        elif clock and not window:
            before = [s for s in spans if s[0] < clock[0]] or spans
            day = before[-1][1]
        else:
            day = first[1]
    else:
        bounds = spoken_window(request, today)
        if bounds is None:
            return None
        day, window = bounds[1 if last else 0], True
    if not with_time:
        return day.isoformat()
    if window or not clock:
        # a day said without a time runs from its start (an end: to its close)
        return f"{day.isoformat()}T{'23:59:59' if last else '00:00:00'}Z"
    return f"{day.isoformat()}T{clock[1]:02d}:{clock[2]:02d}:00Z"


def _type(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return kind if isinstance(kind, str) else "string"


_SHAPES = (
    re.compile(r"0x[0-9a-fA-F]{8,}"),  # a wallet or contract address
    re.compile(r"https?://[^\s\"'<>)]+[^\s\"'<>).,;:]"),  # a URL
    re.compile(r"(?:\d{1,3}\.){3}\d{1,3}"),  # an IPv4 address
    re.compile(r"\d{4,5}-\d{3,4}-\d{1,2}"),  # a drug product code (NDC)
    re.compile(r"v?\d+\.\d+\.\d+"),  # a version
    re.compile(r"/[\w.-]+(?:/[\w.-]+)*/?"),  # a path
    re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|dev|gov|uk|example)"),  # a host
    re.compile(r"@[A-Za-z0-9_.]{3,}"),  # a social handle
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),  # an e-mail address (a user principal)
    re.compile(r"[A-Za-z][\w.-]*(?:/[\w.-]+)+"),  # a relative path, an owner/name
    re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+"),  # a snake_case name (a role, a table)
    re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+"),  # a kebab-case name (a service, a cluster)
    re.compile(r"[a-z]\.[a-z][a-z'-]+"),  # a login of initial and surname ('m.costa')
    re.compile(r"[A-Za-z0-9][\w-]*(?:\.[\w-]+)*\.[A-Za-z0-9]{2,4}"),  # a file ('INV-031.txt')
    re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+"),  # a PascalCase name (a cloud policy)
)
"""Shapes a machine value has; a field whose examples all share one takes a whole token of
that shape from what the user wrote."""
_WORD_SHAPES = _SHAPES[:9]
"""Shapes distinctive enough to take from an observation too (a snake_case token there is
more likely some record's id than the value meant)."""
_SAID_SHAPES = _SHAPES[:10]
"""Shapes a value the user wrote may have when the examples differ (a folder 'HR/Confidential'
beside 'archive'); a relative path in an observation is more often a branch than the value."""


def shaped_value(
    schema: Mapping[str, Any], request: str, shown: str = "", *, addressee: bool = False
) -> str | None:
    """A whole token of the request (else of what was shown) shaped like every one of the
    field's examples: '0x8cD4…' for a wallet address, '/Finance' for a folder path; for an
    `addressee` (a recipient's handle), the one said after 'to' first ('respond to
    @thehollowcafe', not the brand's own '@pinecrestcoffee' said before it)."""
    examples = [str(e) for e in schema.get("examples") or () if isinstance(e, str) and e]
    for shapes, text in ((_SHAPES, request), (_WORD_SHAPES, shown)):
        shape = example_shape(schema, shapes)
        if shape is None or not text:
            continue
        bounded = re.compile(rf"(?<![\w/.@-])(?:{shape.pattern})(?![\w/@-])")
        matches = list(bounded.finditer(text))
        if addressee:
            matches.sort(key=lambda m: not re.search(r"\bto\s+$", text[: m.start()], re.I))
        found = [_unpunctuated(m.group(0)) for m in matches]
        found = [f for f in found if f not in examples or f in request]
        if not any(_A_FILE.search(e) for e in examples):
            found = [f for f in found if not _A_FILE.search(f)]  # a branch is no '….py'
        if found and addressee:
            return found[0]
        if found:
            # one of the field's own examples the user said is the value ('northwind/payments-api'
            # for `repo`, not the branch 'fix/webhook-retry' said before it)
            return next((f for f in found if f in examples), found[0])
    return None


_A_FILE = re.compile(r"\.[a-z]{1,4}$")
"""A file's extension: where no example is a file, a file path is no value ('create a branch
… add retries in src/payments/webhooks.py' named the branch 'src/payments/webhooks.py')."""


def shaped_like_an_example(schema: Mapping[str, Any], request: str) -> str | None:
    """A whole token of the request shaped like one of the field's examples, when they
    differ in shape (an indicator is an IP, a domain or a hash; the user gave an IP)."""
    examples = [str(e) for e in schema.get("examples") or () if isinstance(e, str) and e]
    for example in examples:
        shape = next((s for s in _SAID_SHAPES if s.fullmatch(_spaced(example))), None)
        if shape is None:
            continue
        bounded = re.compile(rf"(?<![\w/.@-])(?:{shape.pattern})(?![\w/@-])")
        found = [
            f for m in bounded.finditer(request) if (f := _unpunctuated(m.group(0))) not in examples
        ]
        if found:
            return found[0]
    return None


def _unpunctuated(token: str) -> str:
    """A token without the full stop that ended the user's sentence ('…: northwind/api.')."""
    return token.rstrip(".")


def example_shape(
    schema: Mapping[str, Any], shapes: tuple[re.Pattern[str], ...] = _WORD_SHAPES
) -> re.Pattern[str] | None:
    """The shape every one of the field's examples has, if they share one."""
    examples = [str(e) for e in schema.get("examples") or () if isinstance(e, str) and e]
    if not examples:
        return None
    return next((s for s in shapes if all(s.fullmatch(_spaced(e)) for e in examples)), None)


def said_option(schema: Mapping[str, Any], request: str) -> str | None:
    """One of the field's examples the user said in words ('move it to trash', 'the
    inspection contingency' for `inspection_contingency`), or the named part of one ('near
    Moscone Center' for 'Moscone Center, San Francisco')."""
    for example in (str(e) for e in schema.get("examples") or () if isinstance(e, str)):
        spoken = example.replace("_", " ")
        if "_" in example and re.search(rf"(?<![\w-]){re.escape(spoken)}(?![\w-])", request):
            return example
        for part in dict.fromkeys([example, example.split(",")[0].strip()]):
            if len(part) >= 4 and re.search(rf"(?<![\w-]){re.escape(part)}(?![\w-])", request):
                return part
    return None


def _spaced(example: str) -> str:
    """'/Clients/Harlow Residence' has a path's shape: a name in it may hold spaces."""
    return example.replace(" ", "_") if example.startswith("/") else example
