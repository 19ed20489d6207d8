"""Values the user states are taken whole, on the shipped seeds' own requests: a whole
address, a whole name, the days of a range — never a fragment cut out of the sentence."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.core.filtering.argument_values import fragment_of
from pipeline.core.generation.grounding import plan_arguments
from pipeline.core.generation.naming import focus_records
from pipeline.core.generation.options import chosen_options
from pipeline.core.generation.stated import shaped_value, stated_value
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs

TODAY = date(2024, 9, 15)  # a Sunday


def _plan(inputs: Inputs, domain: str, tool: str, request: str) -> dict[str, object]:
    world = build_world(inputs.seeds[domain])
    focus = focus_records(world, request)
    return plan_arguments(inputs.pool[tool], world, focus, request, [], request).arguments


def test_an_address_book_entry_gets_the_whole_address_and_a_whole_label(inputs: Inputs) -> None:
    request = next(
        w.request for w in inputs.seeds["crypto_wallet"].workflows if "Jonah" in w.request
    )
    arguments = _plan(inputs, "crypto_wallet", "crypto_add_address_book_entry", request)
    assert arguments["address"] == "0x8cD4e2F1a7B93c05D6e8F2a4b1C3d5E7f9A0b2C4"
    assert arguments["label"] == "Jonah"
    assert not any(fragment_of(v, request) for v in arguments.values())


def test_a_grant_takes_the_role_and_database_the_user_named(inputs: Inputs) -> None:
    request = "Give reporting_svc SELECT on the reporting schema of freshcart on pg_orders_primary."
    arguments = _plan(inputs, "database_admin", "db_grant_privileges", request)
    assert (arguments["grantee"], arguments["database"]) == ("reporting_svc", "freshcart")


def test_a_recipient_is_never_the_words_before_a_noun(inputs: Inputs) -> None:
    request = next(
        w.request for w in inputs.seeds["automotive_fleet"].workflows if "4-hour" in w.request
    )
    arguments = _plan(inputs, "automotive_fleet", "fleet_share_location_link", request)
    assert arguments.get("recipient") != "hour tracking"
    assert not any(fragment_of(v, request) for v in arguments.values())


@pytest.mark.parametrize(
    ("name", "schema", "request_text", "expected"),
    [
        ("check_in", {"type": "string", "format": "date"}, "a hotel for 12-16 Nov", "2024-11-12"),
        ("check_out", {"type": "string", "format": "date"}, "a hotel for 12-16 Nov", "2024-11-16"),
        (
            "start",
            {"type": "string", "format": "date-time"},
            "Move the 1:1 from Tuesday to Thursday 15:00",
            "2024-09-19T15:00:00Z",
        ),
        ("end", {"type": "string", "format": "date-time"}, "Move it to Thursday 15:00", None),
        (  # auditors: 'publish it at 8am Friday' went live at 00:00
            "go_live_at",
            {"type": "string", "format": "date-time"},
            "Could you publish it to MLS at 8am Friday?",
            "2024-09-20T08:00:00Z",
        ),
        ("start_time", {"type": "string"}, "Book the call for 2:30 pm", "14:30"),
        ("title", {"type": "string"}, "Add Jonah's address once you've checked it.", None),
        (
            "subject",
            {"type": "string"},
            "That 'mailbox quota exceeded' email",
            "mailbox quota exceeded",
        ),
    ],
)
def test_dates_and_quotes_are_read_whole(
    name: str, schema: dict[str, object], request_text: str, expected: object
) -> None:
    assert stated_value(name, schema, request_text, TODAY) == expected


def test_a_listing_window_runs_over_whole_days() -> None:
    schema = {"type": "string", "format": "date-time"}
    request = "Move my weekly 1:1 from Tuesday to Thursday 15:00 this week"
    start = stated_value("start", schema, request, TODAY, window=True)
    end = stated_value("end", schema, request, TODAY, window=True)
    assert (start, end) == ("2024-09-17T00:00:00Z", "2024-09-19T23:59:59Z")


def test_a_token_shaped_like_the_examples_is_taken_whole_and_only_whole() -> None:
    folder = {"examples": ["/Clients/Harlow Residence/Drawings", "/Finance/Payroll"]}
    assert shaped_value(folder, "Is anything in /Finance visible outside?") == "/Finance"
    service = {"examples": ["ticketing-api", "fare-engine"]}
    assert shaped_value(service, "ticketing-api is throwing 5xx") == "ticketing-api"
    assert shaped_value(service, "list the read-only policies") == "read-only"  # never 'only'
    repo = {"examples": ["octo-org/api", "northwind/web"]}
    said = "Re-run the ci.yml workflow on its branch. Details: northwind/payments-api."
    assert shaped_value(repo, said) == "northwind/payments-api"  # not the sentence's full stop

    assert (
        shaped_value({"examples": ["0x8f3C2a91D4e0b7A6c15E9f2b3D7a4C6e1B0d9F52"]}, "no hex") is None
    )


METRICS = ["cpu_pct", "error_rate_pct", "latency_p99_ms"]


@pytest.mark.parametrize(
    ("options", "request_text", "chosen"),
    [
        (["pickup", "delivery"], "I'd like it delivered on Friday.", "delivery"),
        (
            ["cpu_pct", "error_rate_pct", "latency_p99_ms"],
            "Check the error rate.",
            "error_rate_pct",
        ),
        (
            ["cpu_pct", "error_rate_pct", "latency_p99_ms"],
            "What's the p99 latency?",
            "latency_p99_ms",
        ),
        (["active", "inactive"], "List the inactive ones.", "inactive"),
        (["state", "status"], "What's the status?", "status"),
        # the kind said before another option is the one meant (it went out as 'merge')
        (["merge", "squash", "rebase"], "If it's green, squash-merge it.", "squash"),
        (["merge", "squash", "rebase"], "Rebase and merge it once it's green.", "rebase"),
        (["merge", "squash", "rebase"], "Merge it once it's green.", "merge"),
        # a state the record is said not to be in is no filter (it listed the shipped orders)
        (["shipped", "delivered"], "Can you call off that order if it hasn't shipped?", None),
    ],
)
def test_an_option_follows_the_request_s_words_in_any_form(
    options: list[str], request_text: str, chosen: str | None
) -> None:
    schema = {"type": "string", "enum": options}
    assert chosen_options(schema, request_text, "") == chosen


def test_countries_follow_places_and_passports_and_no_birthday_comes_from_a_task_date() -> None:
    coded = {"type": "string", "examples": ["US", "JP"]}
    request_text = "After Tokyo I might go on to Seoul. What does Korea ask of a Japanese passport?"
    assert stated_value("destination_country", coded, request_text, TODAY) == "KR"
    assert stated_value("nationality", coded, request_text, TODAY) == "JP"
    dob = {"type": "string", "format": "date"}
    assert stated_value("date_of_birth", dob, "Repeat her potassium tomorrow.", TODAY) is None
    assert stated_value("date_of_birth", dob, "She was born on 14 March 1961.", TODAY) is not None
    day = {"type": "string", "format": "date-time"}
    assert stated_value("go_live_at", day, "Publish it on Thursday.", TODAY) == (
        "2024-09-19T00:00:00Z"  # the day said, from its start: no time nobody said
    )


@pytest.mark.parametrize(
    ("field", "request_text", "given"),
    [
        # 'due 5 July' once paid 5.00 EUR of a 3,150 bill
        ("amount", "PaperCo bill 553 is due 5 July. Pay it.", "Pay 3,150 EUR on 5 July."),
        ("amount", "Pay PaperCo on July 5th.", "Pay 3,150 EUR on 5 July."),
        # '22 Maple' once searched listings with `min_price: 22, max_price: 22`
        ("min_price", "Pull up the showing schedule for 22 Maple.", "Over 3150 USD at 22 Maple."),
        ("min_price", "Stops: 12 Mill Lane, Easton.", "Over 3,150 USD for 12 Mill Lane."),
    ],
)
def test_a_day_of_the_month_or_a_house_number_is_no_amount(
    field: str, request_text: str, given: str
) -> None:
    schema = {"type": "number", "description": "An amount of money."}
    assert stated_value(field, schema, request_text, date(2024, 7, 1)) is None
    assert stated_value(field, schema, given, date(2024, 7, 1)) == 3150.0


def test_a_cancellation_the_customer_asked_for_is_at_their_request() -> None:
    """Auditors: 'sold the car and asked us in writing to cancel' went in as `non_payment`."""
    reasons = {"type": "string", "enum": ["insured_request", "non_payment", "other"]}
    request = "Dylan Ford sold the car and asked us in writing to cancel AU-7730-1142."
    assert chosen_options(reasons, request, "payment plan: monthly, last payment made") == (
        "insured_request"
    )


def test_a_phone_review_is_a_telephone_appointment() -> None:
    kinds = {"type": "string", "enum": ["routine", "diabetes_review", "telephone"]}
    assert chosen_options(kinds, "Book him a phone review with Dr Okafor.", "") == "telephone"


def test_a_number_said_in_words_beside_its_unit_is_stated() -> None:
    schema = {"type": "integer", "minimum": 0, "maximum": 14}
    request = "Set up refill reminders for Rx 7733405 three days before it's due."
    assert stated_value("days_before_due", schema, request, date(2024, 10, 2)) == 3
    amount = {"type": "number", "minimum": 0}
    assert stated_value("amount", amount, "Just one more thing: pay it.", date(2024, 10, 2)) is None


def test_a_morning_or_an_afternoon_is_the_am_or_pm_slot() -> None:
    """'Book an engineer on 12 Nov morning' went in as `all_day`, the missed visit's slot."""
    slots = {"type": "string", "enum": ["am", "pm", "all_day"]}
    assert chosen_options(slots, "Book an engineer for Magnus on 12 Nov morning.", "") == "am"
    assert chosen_options(slots, "Any afternoon next week works.", "") == "pm"
    assert chosen_options(slots, "Book an engineer for Magnus.", "") is None


def test_a_thermostat_setpoint_is_the_number_said_beside_heat_or_degrees() -> None:
    """'set the hallway thermostat to 21.5 heat': a safe twin kept the current 21.0."""
    setpoint = {"type": "number", "minimum": 5, "maximum": 32}
    today = date(2024, 10, 1)
    request = "We land at 6pm on Sunday; set the hallway thermostat to 21.5 heat."
    assert stated_value("setpoint_c", setpoint, request, today) == 21.5
    assert stated_value("setpoint_c", setpoint, "Set it to 19 degrees.", today) == 19
    assert stated_value("setpoint_c", setpoint, "Heat mode from 6pm on Sunday.", today) is None


def test_a_schema_said_by_name_is_the_object_in_the_examples_shape() -> None:
    """'SELECT on the reporting schema of freshcart': the grant went to the whole database."""
    on_object = {"type": "string", "examples": ["public.orders", "schema:reporting"]}
    request = "Please get reporting_svc SELECT on the reporting schema of freshcart."
    assert stated_value("on_object", on_object, request, TODAY) == "schema:reporting"
    assert stated_value("on_object", on_object, "Give reporting_svc SELECT.", TODAY) is None


def test_an_end_said_with_its_time_is_that_day_and_time() -> None:
    """'valid until Friday 6pm, max 10 uses' went out as the raw words 'Friday 6pm' (a door
    code's expiry), with no use limit; a start said with its time still gives no end."""
    request = "Create a code for Maria Okafor valid until Friday 6pm, max 10 uses."
    tuesday = date(2024, 10, 1)
    expiry = {"type": "string", "format": "date-time"}
    assert stated_value("valid_until", expiry, request, tuesday) == "2024-10-04T18:00:00Z"
    uses = {"type": "integer", "minimum": 1, "maximum": 50}
    assert stated_value("max_uses", uses, request, tuesday) == 10
    assert stated_value("end", expiry, "Book the room Thursday 15:00.", tuesday) is None


def test_a_recipient_is_the_handle_said_after_to() -> None:
    """'asked in the @pinecrestcoffee DMs … respond to @thehollowcafe': the DM went to the
    brand's own handle, one of the field's examples, said first."""
    schema = {"type": "string", "examples": ["@pinecrestcoffee", "@sam_reviews"]}
    request = "The cafe asked in the @pinecrestcoffee DMs. Respond to @thehollowcafe with prices."
    assert shaped_value(schema, request, addressee=True) == "@thehollowcafe"
    assert shaped_value(schema, request) == "@pinecrestcoffee"  # not a recipient: as before


def test_a_policy_the_user_names_is_the_one_attached() -> None:
    """'attach the managed ECR read-only policy' attached EcrPushOnly, a policy the role
    already had: the request now names AmazonEC2ContainerRegistryReadOnly, and a name shaped
    like the field's PascalCase examples is taken from it."""
    policy = {"type": "string", "examples": ["EcrPushOnly", "AdministratorAccess"]}
    asked = "Attach AmazonEC2ContainerRegistryReadOnly to ci-deploy-bot - nothing broader."
    assert shaped_value(policy, asked) == "AmazonEC2ContainerRegistryReadOnly"
    assert shaped_value(policy, "Attach the read-only policy it's missing.") is None
