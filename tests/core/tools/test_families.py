"""Resource families and API domains of the OpenAPI import: whole families are kept, an API's
stray operation does not join a domain the API is not about, and the mapping can fix a
provider's domains."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.domains import DomainScorer, load_domain_mapping
from pipeline.core.tools.importers.families import api_domains, resource_of
from pipeline.core.tools.importers.openapi import import_openapi_document
from pipeline.core.tools.importers.openapi_directory import select
from tests.core.tools.test_openapi_import import (
    DOMAINS,
    MAPPING,
    candidate,
    document,
    operation,
    write_mapping,
)


def test_resource_of_names_the_collection_a_path_works_on() -> None:
    assert resource_of("/v1/orders") == "orders"
    assert resource_of("/v1/orders/{order_id}") == "orders"
    assert resource_of("/v1/orders/{order_id}/cancel") == "orders"
    assert resource_of("/shops/{shop}/orders") == "orders"
    assert resource_of("/{id}") == ""


def test_api_domains_keep_what_most_operations_are_about() -> None:
    fits = [{"logistics": 6}, {"logistics": 3}, {"web_research": 3, "logistics": 3}]
    assert api_domains(fits) == {"logistics"}  # web_research's 3 is under 30 % of 12
    assert api_domains([{"logistics": 3}, {"pharmacy": 3}]) == {"logistics", "pharmacy"}
    assert api_domains([]) == set()
    # three operations that are best at a domain make it the API's too
    assert api_domains([{"logistics": 30}] + [{"pharmacy": 3}] * 3) == {"logistics", "pharmacy"}


def test_a_stray_operation_stays_out_of_a_domain_its_api_is_not_about(
    tmp_path: Path,
) -> None:
    scorer = DomainScorer(load_domain_mapping(write_mapping(tmp_path / "m.toml"), DOMAINS))
    paths = {
        f"/shipments/{n}": {"get": operation(f"Show the parcel shipment of depot {n}.")}
        for n in range(4)
    }
    paths["/articles"] = {"get": operation("Search the article archive of the hub.")}
    result = import_openapi_document(document(paths), "parcelhub.io", "x", scorer)
    assert {c.tool.domains for c in result.candidates} == {("logistics",)}
    (stray,) = result.rejections
    assert stray.reason == "outside the domains its API belongs to"
    assert stray.record == "parcelhub.io#/paths/~1articles/get"


def test_the_mapping_fixes_a_providers_domains_or_leaves_it_out(tmp_path: Path) -> None:
    text = MAPPING + '\n[apis]\n"parcelhub.io" = []\n"drugs.io/labels" = ["pharmacy"]\n'
    scorer = DomainScorer(load_domain_mapping(write_mapping(tmp_path / "m.toml", text), DOMAINS))
    paths = {"/parcels": {"get": operation("Track a parcel and its shipment.")}}
    left_out = import_openapi_document(document(paths), "parcelhub.io/v2", "x", scorer)
    assert left_out.candidates == [] and len(left_out.rejections) == 1
    placed = import_openapi_document(document(paths), "drugs.io/labels", "x", scorer)
    assert placed.candidates == [] and scorer.fixed_domains("drugs.io/labels") == {"pharmacy"}
    bad = MAPPING + '\n[apis]\n"parcelhub.io" = ["shipping"]\n'
    with pytest.raises(InputError, match="not a domain") as err:
        load_domain_mapping(write_mapping(tmp_path / "bad.toml", bad), DOMAINS)
    assert (err.value.record, err.value.field) == ("parcelhub.io", "apis")


def test_selection_takes_a_resource_family_whole() -> None:
    family = [
        candidate(f"hub_{op}_orders", ("logistics",), "hub.io")._replace(resource="orders")
        for op in ("list", "get", "create")
    ]
    singles = [
        candidate(f"single_{n}", ("logistics",), f"p{n}.io")._replace(resource=f"r{n}")
        for n in range(3)
    ]
    chosen = [c.tool.name for c in select(singles + family)]
    at = chosen.index("hub_list_orders")
    # the family of three comes first and together, before any single operation
    assert set(chosen[at : at + 3]) == {c.tool.name for c in family} and at == 0
