"""Importers on the real public samples and on hand-made edge cases, and merging into a pool."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from pipeline.core.inputs.tool_pool import Tool, load_tool_file, load_tool_pool
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import SNAKE_CASE
from pipeline.core.tools.importers.common import (
    CATEGORY_DOMAINS,
    DEFAULT_DOMAIN,
    HTTP_METHODS,
    MAX_NAME_LENGTH,
    ImportResult,
    normalise_name,
)
from pipeline.core.tools.importers.openai_functions import import_openai
from pipeline.core.tools.importers.toolalpaca import import_toolalpaca
from pipeline.core.tools.importers.toolbench import TOOLBENCH_RETURNS, import_toolbench
from pipeline.core.tools.merge import import_report_path, merge_into_pool
from tests.support.paths import SHARED_DATA

TOOLBENCH_FILE = SHARED_DATA / "toolbench" / "G1_query.json"
TOOLALPACA_FILE = SHARED_DATA / "toolalpaca" / "eval_simulated.json"

DOMAIN_IDS = {
    "personal_banking", "brokerage", "payments_invoicing", "ecommerce", "travel_booking",
    "email_calendar", "workplace_chat", "cloud_storage", "code_repository_ci", "devops_cloud",
    "database_admin", "hr_recruiting", "healthcare_records", "pharmacy", "telehealth",
    "smart_home", "industrial_iot", "automotive_fleet", "social_media", "web_research",
    "customer_support_crm", "legal_documents", "education_lms", "government_services",
    "real_estate", "logistics", "insurance_claims", "crypto_wallet", "security_operations",
    "personal_assistant",
}  # fmt: skip


def shared_file(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"public sample {path} is absent (expected at ../shared/data from the repo)")
    return path


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def assert_sound(tools: list[Tool]) -> None:
    """What every import must give: unique snake names and self-contained, valid schemas."""
    names = [tool.name for tool in tools]
    assert len(names) == len(set(names))
    for tool in tools:
        assert len(tool.name) <= MAX_NAME_LENGTH
        Draft202012Validator.check_schema(tool.parameters)
        Draft202012Validator.check_schema(tool.returns)
        assert "$ref" not in json.dumps([tool.parameters, tool.returns])
        assert set(tool.parameters["required"]) <= set(tool.parameters["properties"])
        assert set(tool.domains) <= DOMAIN_IDS


def rejection_reasons(result: ImportResult) -> dict[str, tuple[str | None, str]]:
    return {r.record: (r.field, r.reason) for r in result.rejections}


# --- the real public samples ------------------------------------------------------------------


def test_toolbench_sample_every_api_entry_is_imported_or_rejected() -> None:
    path = shared_file(TOOLBENCH_FILE)
    records = json.loads(path.read_text(encoding="utf-8"))
    entries = [
        f"{i}.api_list.{j}" for i, r in enumerate(records) for j in range(len(r["api_list"]))
    ]

    result = import_toolbench(path)

    assert len(result.tools) + len(result.rejections) == len(entries)
    assert {r.record for r in result.rejections} <= set(entries)
    assert len({r.record for r in result.rejections}) == len(result.rejections)
    assert all(r.reason and r.original_name for r in result.rejections)
    assert_sound(result.tools)
    # SQUAKE's two APIs have a blank description; each query repeats them.
    reasons = rejection_reasons(result)
    assert reasons["0.api_list.0"] == ("api_description", "missing description")
    assert reasons["3.api_list.1"] == (None, "identical repeat of record 0.api_list.1")
    assert (len(result.tools), len(result.rejections)) == (10, 8)


def test_toolbench_sample_maps_fields_onto_the_tool_shape() -> None:
    result = import_toolbench(shared_file(TOOLBENCH_FILE))
    by_original = {tool.original_name: tool for tool in result.tools}
    tool = by_original[
        "Transportistas de Argentina / "
        "/tracking/correo_argentino/create_task/:service/:tracking_code"
    ]
    assert tool.source == "toolbench"
    assert tool.domains == ("logistics",)
    assert tool.side_effect == "none"
    assert tool.returns == TOOLBENCH_RETURNS
    assert tool.description.startswith("Create task to get the history.")
    assert tool.parameters["required"] == ["service", "tracking_code"]
    assert tool.parameters["properties"]["service"]["default"] == "ecommerce"
    assert "default" not in tool.parameters["properties"]["tracking_code"]  # "" is no default

    quote = by_original[
        "Transportistas de Argentina / /quotes/postcode/correo_argentino/:weight/:postCodeSrc/"
        ":postCodeDst"
    ]
    assert quote.parameters["properties"]["weight"] == {
        "type": "number",
        "description": "Weight in KG",
    }
    assert all(tool.name.startswith("transportistas_de_argentina_") for tool in result.tools)


def test_toolalpaca_sample_every_operation_is_imported_or_rejected() -> None:
    path = shared_file(TOOLALPACA_FILE)
    entries = json.loads(path.read_text(encoding="utf-8"))
    operations = [
        (entry["Name"], route, method)
        for entry in entries
        for route, item in json.loads(entry["Documentation"])["paths"].items()
        for method in item
        if method in HTTP_METHODS
    ]

    result = import_toolalpaca(path)

    assert len(result.tools) + len(result.rejections) == len(operations)
    assert all(r.reason for r in result.rejections)
    assert_sound(result.tools)
    assert {tool.source for tool in result.tools} == {"toolalpaca"}
    assert (len(result.tools), len(result.rejections)) == (54, 0)


def test_toolalpaca_sample_resolves_refs_and_reads_bodies_and_responses() -> None:
    result = import_toolalpaca(shared_file(TOOLALPACA_FILE))
    by_original = {tool.original_name: tool for tool in result.tools}

    # Request and response schemas come from #/components/schemas via $ref.
    dashboard = by_original["Apache Superset.createDashboard"]
    assert dashboard.name == "apache_superset_create_dashboard"
    assert set(dashboard.parameters["properties"]) == {"dashboardName", "description", "charts"}
    assert dashboard.side_effect == "reversible"
    verse = by_original["A Bíblia Digital.getSpecificVerse"]
    assert verse.name == "a_biblia_digital_get_specific_verse"
    assert verse.returns["properties"]["metadata"]["type"] == "object"  # nested $ref inlined
    assert verse.parameters["required"] == ["book", "chapter", "verse"]

    # A body that repeats the query parameters is one set of arguments.
    avatar = by_original["Améthyste.generateAvatar"]
    assert avatar.parameters["properties"]["style"]["enum"] == ["minimal", "grunge"]
    assert avatar.parameters["required"] == ["userId"]

    report = by_original["AbuseIPDB.reportAbusiveIP"]
    assert report.domains == ("security_operations",)
    assert report.parameters["required"] == ["ip", "categories"]
    assert report.returns["required"] == ["success", "reportId"]
    assert by_original["Axolotl.getRandomAxolotlImage"].domains == (DEFAULT_DOMAIN,)


# --- ToolBench edge cases ---------------------------------------------------------------------


def toolbench_entry(**overrides: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "category_name": "Payments",
        "tool_name": "Acme Pay",
        "api_name": "createInvoice",
        "api_description": "Create an invoice for a customer and email it to them.",
        "required_parameters": [],
        "optional_parameters": [],
        "method": "POST",
    }
    return entry | overrides


def test_toolbench_types_in_any_case_and_defaults(tmp_path: Path) -> None:
    def param(name: str, type_: str, default: Any = "") -> dict[str, Any]:
        return {"name": name, "type": type_, "description": f"The {name}.", "default": default}

    entry = toolbench_entry(
        required_parameters=[param("amount", "NUMBER", "10"), param("customer", "string")],
        optional_parameters=[
            param("due", "DATE (YYYY-MM-DD)", "2024-01-31"),
            param("paid", "Boolean", "true"),
            param("lines", "array"),
            param("meta", "OBJECT", "not json"),
            param("status", "ENUM", "open"),
            param("where", "GEOPOINT (latitude, longitude)"),
            param("count", "number", "many"),
            param("customer", "STRING"),  # listed twice: the required listing wins
        ],
    )
    result = import_toolbench(write_json(tmp_path / "apis.json", [entry]))  # a plain entry list

    assert result.rejections == []
    (tool,) = result.tools
    props = tool.parameters["properties"]
    assert props["amount"] == {"type": "number", "description": "The amount.", "default": 10}
    assert props["customer"] == {"type": "string", "description": "The customer."}
    assert props["due"] == {
        "type": "string",
        "format": "date",
        "description": "The due.",
        "default": "2024-01-31",
    }
    assert props["paid"]["default"] is True
    assert props["lines"] == {"type": "array", "description": "The lines."}
    assert props["meta"] == {"type": "object", "description": "The meta."}  # invalid default
    assert props["status"] == {"type": "string", "description": "The status.", "default": "open"}
    assert props["where"]["type"] == "string"
    assert "GEOPOINT" in props["where"]["description"]
    assert "default" not in props["count"]
    assert tool.parameters["required"] == ["amount", "customer"]
    assert tool.parameters["additionalProperties"] is False
    assert tool.name == "acme_pay_create_invoice"
    assert tool.original_name == "Acme Pay / createInvoice"
    assert tool.domains == ("payments_invoicing",)
    assert tool.side_effect == "reversible"


def test_toolbench_bad_records_are_rejected_with_field_and_reason(tmp_path: Path) -> None:
    entries = [
        toolbench_entry(),
        "not an object",
        toolbench_entry(tool_name=""),
        toolbench_entry(api_name="Get", api_description="Too short"),
        toolbench_entry(api_name="Fetch", method="FETCH"),
        toolbench_entry(api_name="List", required_parameters=[{"type": "STRING"}]),
        toolbench_entry(api_name="Ping", optional_parameters="none"),
        toolbench_entry(tool_name="全部", api_name="列表"),
    ]
    result = import_toolbench(write_json(tmp_path / "apis.json", entries))

    assert [tool.name for tool in result.tools] == ["acme_pay_create_invoice"]
    assert rejection_reasons(result) == {
        "1": (None, "an api_list entry must be an object"),
        "2": ("tool_name", "missing or empty tool_name"),
        "3": ("api_description", "String should have at least 10 characters"),
        "4": ("method", "unknown HTTP method 'FETCH'"),
        "5": ("required_parameters.0", "a parameter must be an object with a name"),
        "6": ("optional_parameters", "must be a list of parameters"),
        "7": ("api_name", "name has no ASCII letters or digits"),
    }
    originals = {r.record: r.original_name for r in result.rejections}
    assert originals["1"] is None
    assert originals["3"] == "Acme Pay / Get"


def test_toolbench_category_mapping_and_unknown_category(tmp_path: Path) -> None:
    entries = [
        toolbench_entry(category_name="Health_and_Fitness", api_name="a"),
        toolbench_entry(category_name="Artificial_Intelligence_Machine_Learning", api_name="b"),
        toolbench_entry(category_name="eCommerce", api_name="c", method="get"),
    ]
    tools = import_toolbench(write_json(tmp_path / "apis.json", entries)).tools
    assert [t.domains for t in tools] == [("telehealth",), (DEFAULT_DOMAIN,), ("ecommerce",)]
    assert tools[2].side_effect == "none"
    assert {domain for domains in CATEGORY_DOMAINS.values() for domain in domains} <= DOMAIN_IDS


def test_normalise_name() -> None:
    assert normalise_name("AbuseIPDB", "checkIPReputation") == "abuse_ipdb_check_ip_reputation"
    assert normalise_name("Améthyste", "generateAvatar") == "amethyste_generate_avatar"
    assert normalise_name("1Forge", "get rates!") == "tool_1_forge_get_rates"
    assert normalise_name("  --  ") == ""
    long_a = normalise_name("Tool", "/a/" + "x" * 80)
    long_b = normalise_name("Tool", "/b/" + "x" * 80)
    assert len(long_a) == MAX_NAME_LENGTH and long_a != long_b
    assert re.fullmatch(SNAKE_CASE, long_a)


# --- ToolAlpaca edge cases --------------------------------------------------------------------


def alpaca_entry(paths: dict[str, Any], **extra: Any) -> dict[str, Any]:
    doc = {"openapi": "3.0.0", "info": {"title": "Demo", "version": "1"}, "paths": paths}
    doc |= extra.pop("doc", {})
    return (
        {"Name": "Demo API", "Description": "A demo.", "Category": "Vehicle"}
        | extra
        | {"Documentation": json.dumps(doc)}
    )


def ok_response(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "200": {"description": "The result.", "content": {"application/json": {"schema": schema}}}
    }


def test_toolalpaca_recursive_refs_are_cut_and_openapi_keywords_converted(tmp_path: Path) -> None:
    components = {
        "schemas": {
            "Node": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "nullable": True, "example": 3},
                    "weight": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                },
            }
        },
        "parameters": {
            "Depth": {"name": "depth", "in": "query", "schema": {"type": "integer"}},
        },
    }
    paths = {
        "/vehicles/{vehicleId}/tree": {
            "parameters": [{"name": "vehicleId", "in": "path", "schema": {"type": "string"}}],
            "get": {
                "operationId": "getTree",
                "summary": "Get the component tree of a vehicle.",
                "parameters": [
                    {"$ref": "#/components/parameters/Depth"},
                    {"name": "X-Api-Key", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": ok_response({"$ref": "#/components/schemas/Node"}),
            },
        }
    }
    path = write_json(
        tmp_path / "alpaca.json", [alpaca_entry(paths, doc={"components": components})]
    )
    result = import_toolalpaca(path)

    assert result.rejections == []
    (tool,) = result.tools
    assert_sound([tool])
    assert tool.name == "demo_api_get_tree"
    assert tool.original_name == "Demo API.getTree"
    assert tool.domains == ("automotive_fleet",)
    assert tool.parameters["required"] == ["vehicleId"]
    assert set(tool.parameters["properties"]) == {"vehicleId", "depth"}  # no header parameter
    node = tool.returns
    assert node["properties"]["id"] == {"type": ["integer", "null"], "examples": [3]}
    assert node["properties"]["weight"] == {"type": "number", "exclusiveMinimum": 0}
    assert node["properties"]["children"]["items"] == {
        "description": "Recursive reference to #/components/schemas/Node, not expanded."
    }


def test_toolalpaca_bodies_fallback_description_and_rejections(tmp_path: Path) -> None:
    body = {"required": True, "content": {"text/plain": {"schema": {"type": "string"}}}}
    conflict = {
        "content": {
            "application/json": {
                "schema": {"type": "object", "properties": {"plate": {"type": "integer"}}}
            }
        }
    }
    paths = {
        "/notes": {"post": {"operationId": "addNote", "requestBody": body, "responses": {}}},
        "/plates": {
            "put": {
                "operationId": "setPlate",
                "description": "Register a new number plate for the vehicle.",
                "parameters": [{"name": "plate", "in": "query", "schema": {"type": "string"}}],
                "requestBody": conflict,
                "responses": ok_response({"type": "object"}),
            }
        },
        "/remote": {
            "get": {
                "operationId": "getRemote",
                "description": "Read a schema that lives in another document.",
                "responses": ok_response({"$ref": "other.json#/Thing"}),
            }
        },
        "/missing": {
            "get": {
                "operationId": "getMissing",
                "description": "Read a schema that is not in the components.",
                "responses": ok_response({"$ref": "#/components/schemas/Nope"}),
            }
        },
    }
    entry = alpaca_entry(
        paths,
        Function_Description=str({"addNote": "Add a free-text note to the log.\nParameters: {}"}),
    )
    entries = [entry, alpaca_entry({}), {"Name": "Broken", "Documentation": "{not json"}, 7, {}]
    result = import_toolalpaca(write_json(tmp_path / "alpaca.json", entries))

    (note,) = result.tools
    assert note.description == "Add a free-text note to the log."
    assert note.parameters["properties"] == {"body": {"type": "string"}}
    assert note.parameters["required"] == ["body"]
    assert note.returns["additionalProperties"] is True
    reasons = rejection_reasons(result)
    assert reasons["0.paths./plates.put"] == (
        "Documentation.paths./plates.put.requestBody",
        "argument 'plate' is a parameter and a body field of another type",
    )
    assert reasons["0.paths./remote.get"][1].startswith("$ref 'other.json#/Thing' is not local")
    assert reasons["0.paths./missing.get"] == (
        "Documentation.paths./missing.get.responses",
        "$ref '#/components/schemas/Nope' does not resolve",
    )
    assert reasons["1"] == ("Documentation.paths", "no operations")
    assert reasons["2"][0] == "Documentation" and reasons["2"][1].startswith("not valid JSON")
    assert reasons["3"] == (None, "an entry must be an object")
    assert reasons["4"] == ("Name", "empty name")
    assert len(result.tools) + len(result.rejections) == 4 + 4


# --- OpenAI function calling ------------------------------------------------------------------


def test_openai_wrapped_bare_and_tools_object(tmp_path: Path) -> None:
    weather = {
        "name": "getWeather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"$ref": "#/$defs/unit"}},
            "required": ["city"],
            "$defs": {"unit": {"type": "string", "enum": ["c", "f"]}},
        },
    }
    send = {"name": "send_message", "description": "Send a chat message to a user."}
    listing = [{"type": "function", "function": weather}, send]
    result = import_openai(write_json(tmp_path / "tools.json", listing))

    assert result.rejections == []
    first, second = result.tools
    assert_sound(result.tools)
    assert (first.name, first.original_name, first.source) == (
        "get_weather",
        "getWeather",
        "openai",
    )
    assert first.parameters["properties"]["unit"] == {"type": "string", "enum": ["c", "f"]}
    assert "$defs" not in first.parameters
    assert first.side_effect == "none"
    assert second.side_effect == "reversible"
    assert second.parameters == {"type": "object", "properties": {}, "required": []}
    assert second.domains == (DEFAULT_DOMAIN,)

    wrapped = write_json(tmp_path / "wrapped.json", {"tools": listing})
    assert import_openai(wrapped).tools == result.tools
    yaml_file = tmp_path / "tools.yaml"
    yaml_file.write_text(yaml.safe_dump({"functions": [send]}), encoding="utf-8")
    assert import_openai(yaml_file).tools == [second]


def test_openai_bad_definitions_are_rejected(tmp_path: Path) -> None:
    definitions = [
        {"type": "code_interpreter"},
        {"type": "function", "function": {"name": "no_description"}},
        {"type": "function", "function": {"name": "", "description": "A tool without a name."}},
        {
            "name": "bad",
            "description": "Parameters are not valid.",
            "parameters": {"type": "strng"},
        },
        {
            "name": "str",
            "description": "Parameters are a string.",
            "parameters": {"type": "string"},
        },
        ["a list"],
    ]
    result = import_openai(write_json(tmp_path / "tools.json", definitions))

    assert result.tools == []
    reasons = rejection_reasons(result)
    assert reasons["0"] == (
        "type",
        "unsupported tool type 'code_interpreter'; only functions can be imported",
    )
    assert reasons["1"] == ("function.description", "missing description")
    assert reasons["2"] == ("function.name", "missing or empty name")
    assert reasons["3"][0] == "parameters" and "invalid JSON Schema" in reasons["3"][1]
    assert reasons["4"][0] == "parameters" and "type 'object'" in reasons["4"][1]
    assert reasons["5"] == (None, "a tool definition must be an object")
    assert result.rejections[1].original_name == "no_description"


# --- malformed files --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("importer", "content", "record", "field", "message"),
    [
        (import_toolbench, {"api_list": []}, None, None, "expected a list"),
        (
            import_toolbench,
            [{"api_list": []}, {"api_list": "x"}],
            "1",
            "api_list",
            "must be a list",
        ),
        (
            import_toolalpaca,
            {"Name": "x", "Documentation": "{}"},
            None,
            None,
            "expected a list of ToolAlpaca entries",
        ),
        (import_openai, {"tools": {"name": "x"}}, None, "tools", "expected a list"),
        (import_openai, "just text", None, None, "expected a list"),
    ],
)
def test_malformed_files_raise_input_error(
    tmp_path: Path,
    importer: Any,
    content: Any,
    record: str | None,
    field: str | None,
    message: str,
) -> None:
    path = write_json(tmp_path / "bad.json", content)
    with pytest.raises(InputError) as caught:
        importer(path)
    assert caught.value.file == str(path)
    assert (caught.value.record, caught.value.field) == (record, field)
    assert message in caught.value.message


def test_unparsable_and_missing_files_raise_input_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[{"name": ', encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.json: invalid JSON at line 1"):
        import_openai(broken)
    with pytest.raises(InputError, match="cannot read file"):
        import_toolbench(tmp_path / "absent.json")


# --- merging into a pool ----------------------------------------------------------------------


def pool_tool(
    name: str, description: str, params: tuple[str, ...] = ("account_id",)
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": {p: {"type": "string", "description": f"The {p}."} for p in params},
            "required": list(params),
            "additionalProperties": False,
        },
        "returns": {"type": "object", "properties": {"status": {"type": "string"}}},
        "domains": ["personal_banking"],
        "side_effect": "none",
        "source": "curated",
    }


@pytest.fixture
def pool_dir(tmp_path: Path) -> Path:
    """A small pool of two curated files, independent of the project's real pool."""
    pool = tmp_path / "tool_pool"
    (pool / "curated").mkdir(parents=True)
    banking = [
        pool_tool("bank_get_balance", "Returns the ledger and available balance of one account."),
        pool_tool("bank_list_payees", "Lists the saved payees of the signed-in customer.", ()),
    ]
    mail = [
        pool_tool("mail_send_message", "Sends an email from the user's mailbox.", ("to", "body"))
    ]
    for name, tools in (("personal_banking", banking), ("email_calendar", mail)):
        (pool / "curated" / f"{name}.yaml").write_text(yaml.safe_dump(tools), encoding="utf-8")
    return pool


def imported(name: str, description: str, params: tuple[str, ...] = ("account_id",)) -> Tool:
    return Tool.model_validate(pool_tool(name, description, params) | {"source": "openai"})


def test_merge_adds_new_tools_and_drops_duplicates_of_the_pool(pool_dir: Path) -> None:
    target = pool_dir / "imported" / "openai.yaml"
    new = [
        imported(
            "acct_balance_lookup", "Returns the ledger and the available balance of one account."
        ),
        imported("bank_list_payees", "Some other text entirely, but the same name."),
        imported("fx_get_rate", "Returns the exchange rate between two currencies.", ("pair",)),
        imported(
            "bank_lock_card", "Locks a payment card until the customer unlocks it.", ("card_id",)
        ),
    ]

    report = merge_into_pool(new, pool_dir, target)

    assert [(e.kept, e.dropped, e.rule) for e in report] == [
        ("bank_get_balance", "acct_balance_lookup", "similar_description"),
        ("bank_list_payees", "bank_list_payees", "same_name"),
    ]
    assert report[0].similarity >= 0.9 and report[1].similarity == 1.0
    assert [tool.name for tool in load_tool_file(target)] == ["bank_lock_card", "fx_get_rate"]
    assert len(load_tool_pool(pool_dir)) == 5
    # Written as plain YAML: no anchors, keys in model order.
    text = target.read_text(encoding="utf-8")
    assert "&id" not in text and text.startswith("- name: bank_lock_card\n  description:")


def test_merge_twice_changes_nothing_and_leaves_no_temp_files(pool_dir: Path) -> None:
    target = pool_dir / "imported" / "openai.yaml"
    new = [imported("fx_get_rate", "Returns the exchange rate between two currencies.", ("pair",))]
    assert merge_into_pool(new, pool_dir, target) == []
    before = target.read_bytes()

    again = merge_into_pool(new, pool_dir, target)

    assert [(e.kept, e.dropped, e.rule) for e in again] == [
        ("fx_get_rate", "fx_get_rate", "same_name")
    ]
    assert target.read_bytes() == before
    more = [imported("fx_list_currencies", "Lists the currencies that can be converted.", ())]
    merge_into_pool(more, pool_dir, target)
    assert [tool.name for tool in load_tool_file(target)] == ["fx_get_rate", "fx_list_currencies"]
    assert sorted(p.name for p in target.parent.iterdir()) == ["openai.yaml"]


def test_merge_into_empty_pool_and_report_beside_target(tmp_path: Path) -> None:
    pool = tmp_path / "fresh_pool"
    target = pool / "imported" / "openai.yaml"
    new = [imported("fx_get_rate", "Returns the exchange rate between two currencies.", ("pair",))]
    assert merge_into_pool(new, pool, target) == []
    assert load_tool_pool(pool).tools.keys() == {"fx_get_rate"}
    assert import_report_path(target) == pool / "imported" / "openai.report.jsonc"


def test_merge_rejects_targets_outside_the_pool_and_stops_on_a_broken_pool(
    pool_dir: Path, tmp_path: Path
) -> None:
    new = [imported("fx_get_rate", "Returns the exchange rate between two currencies.", ("pair",))]
    with pytest.raises(ValueError, match="inside the pool"):
        merge_into_pool(new, pool_dir, tmp_path / "elsewhere.yaml")
    with pytest.raises(ValueError, match="yaml file"):
        merge_into_pool(new, pool_dir, pool_dir / "imported" / "openai.json")

    (pool_dir / "curated" / "broken.yaml").write_text("- name: 1\n", encoding="utf-8")
    target = pool_dir / "imported" / "openai.yaml"
    with pytest.raises(InputError) as caught:
        merge_into_pool(new, pool_dir, target)
    assert caught.value.file is not None and caught.value.file.endswith("broken.yaml")
    assert not target.parent.exists()
