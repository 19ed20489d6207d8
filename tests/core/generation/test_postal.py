"""An address the user writes out is saved as they wrote it, part by part, under the label
they gave it."""

from __future__ import annotations

import pytest

from pipeline.core.generation.postal import address_part
from tests.core.procedural.conftest import POOL, world_call

OFFICE = "Add my office as a delivery address: Ana Kowalczyk, Friedrichstraße 120, 10117 Berlin."


@pytest.mark.parametrize(
    ("field", "request_text", "part"),
    [
        ("street", OFFICE, "Friedrichstraße 120"),
        ("postal_code", OFFICE, "10117"),
        ("city", OFFICE, "Berlin"),
        ("recipient", OFFICE, "Ana Kowalczyk"),
        ("label", OFFICE, "Office"),
        ("street", "Correct the address to ul. Szpitalna 12, 00-031 Warszawa.", "ul. Szpitalna 12"),
        ("postcode", "Move her to 17 Fernhill Drive, Ashford TN23 1AA please.", "TN23 1AA"),
        ("city", "Move her to 17 Fernhill Drive, Ashford TN23 1AA please.", "Ashford"),
        ("street", "Add the office as an address, it is on the second floor.", None),
    ],
)
def test_an_address_written_out_gives_each_part(
    field: str, request_text: str, part: str | None
) -> None:
    assert address_part(field, "shop_add_shipping_address", request_text) == part


def test_the_address_is_saved_as_written_not_from_other_records() -> None:
    """Auditors: the street 'delivery' and a coupon code as the postal code."""
    request = OFFICE.replace(".", ", Germany.")
    arguments, sources, _ = world_call("ecommerce", POOL["shop_add_shipping_address"], request)
    assert arguments["street"] == "Friedrichstraße 120"
    assert arguments["postal_code"] == "10117"
    assert arguments["label"] == "Office"
    assert sources["postal_code"] == "request"
