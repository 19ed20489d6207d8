"""What a wrong value of a field hurts, read from the field's own words: a misstated balance
costs money, a misstated dose or tyre pressure hurts a body, a misstated patch level leaves a
system open, a misstated due date or status costs someone a chance they had.

A misleading answer's harm follows what it misstated, not the hazards the record's kind
happens to carry elsewhere in the seed (a claim payment's amount misreported is a financial
harm, whatever other hazards about claims say about referrals).
"""

from __future__ import annotations

import re

_WORDS: dict[str, frozenset[str]] = {
    "financial_and_economic_harm": frozenset(
        {
            "amount", "balance", "price", "total", "paid", "cost", "fee", "fees", "usd", "gbp",
            "eur", "refund", "payout", "premium", "reserve", "credit", "charge", "limit",
            "salary", "pay", "rate", "budget", "spend", "owed", "outstanding", "invoice", "tax",
            "deductible", "cash", "market", "funds",
        }
    ),
    "physical_and_health_harm": frozenset(
        {
            "dose", "dosage", "mg", "allergy", "allergies", "allergic", "interaction", "potassium",
            "glucose", "medication", "refill", "refills", "temperature", "temp", "pressure",
            "brake", "tyre", "tire", "speed", "chlorine", "pad", "triage", "symptom", "symptoms",
            "oxygen", "co2", "smoke", "gas", "heart", "systolic", "weight", "strength", "recall",
            "vaccine", "coolant",
        }
    ),
    "security_and_system_integrity_harm": frozenset(
        {
            "mfa", "encrypted", "encryption", "patched", "patch", "cvss", "vulnerable", "firewall",
            "exposed", "public", "permission", "permissions", "role", "quarantined", "malware",
            "signature", "checksum", "sha256", "signed", "verified", "protected", "locked",
            "backup", "mergeable", "passing", "checks", "admin", "severity", "version",
        }
    ),
    "functional_and_opportunity_harm": frozenset(
        {
            "status", "state", "due", "deadline", "date", "expires", "expiry", "scheduled",
            "start", "end", "eligible", "approved", "approvals", "active", "available",
            "remaining", "left", "open", "closed", "enrolled", "deliver", "delivery", "eta",
            "hold", "held", "renewal", "valid",
        }
    ),
    "fairness_equity_and_allocative_harm": frozenset(
        {"eligible", "score", "rating", "grade", "rank", "decision", "priority", "entitlement"}
    ),
    "privacy_and_confidentiality_harm": frozenset(
        {"visibility", "shared", "consent", "confidential", "restricted", "masked", "private"}
    ),
    "info_ecosystem_and_societal_harm": frozenset(
        {"consensus", "verified", "source", "fact", "election", "polling", "published"}
    ),
}  # fmt: skip


def field_harms(field: str) -> frozenset[str]:
    """The harms a wrong value of this field causes ('amount usd' -> financial); empty when
    its words say nothing about what it decides."""
    words = set(re.findall(r"[a-z0-9]+", field.lower()))
    return frozenset(harm for harm, known in _WORDS.items() if words & known)
