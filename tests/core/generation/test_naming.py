"""How a request names records: 'the invoice' names none of many invoices, and a comment
that points at a post is named by the post's id only after the records named themselves."""

from __future__ import annotations

from pipeline.core.generation.naming import as_seen, asked_as, focus_records
from pipeline.core.model.world import Record, World


def _world(*records: Record) -> World:
    return World(today="2024-05-29", records=records)


def test_a_word_for_the_records_kind_names_none_of_them() -> None:
    world = _world(
        Record(id="inv_2024_0117", kind="record", name="Invoice LPS-2024-117"),
        Record(id="inv_2024_0133", kind="record", name="Invoice LPS-2024-133"),
        Record(id="inv_2024_0121", kind="record", name="Draft invoice for Orbit Events banners"),
        Record(id="cust_orbit", kind="customer", name="Orbit Events GmbH"),
    )
    request = "Finalise the draft banner invoice for Orbit Events."
    assert focus_records(world, request) == ("inv_2024_0121", "cust_orbit")
    assert focus_records(world, "Resend invoice LPS-2024-133.") == ("inv_2024_0133",)


def test_a_record_pointing_at_another_comes_after_every_record_named_itself() -> None:
    post = Record(id="post_88412", kind="record", name="Winter Blend teaser post")
    comment = Record(
        id="cmt_55140",
        kind="record",
        name="Comment from @ashford_eats",
        attributes={"post": "post_88412", "text": "Best flat white in Kent"},
    )
    spam = Record(id="cmt_55152", kind="record", name="Spam comment from @crypto_gains")
    spam = spam.model_copy(update={"attributes": {"post": "post_88412"}})
    world = _world(comment, spam, post)
    request = "There is a spam comment with a crypto link under post_88412, hide it."
    assert focus_records(world, request) == ("cmt_55152", "post_88412", "cmt_55140")


def test_a_record_named_whole_comes_before_those_sharing_its_first_word() -> None:
    """'PaperCo bill 553' is that bill, not the first of PaperCo's bills: a safe twin paid
    bill 124 instead."""
    world = World(
        today="2024-07-01",
        records=tuple(
            Record(id=f"bill_paperco_{n}", kind="record", name=f"PaperCo bill {n}")
            for n in (124, 160, 553)
        ),
    )
    named = focus_records(world, "PaperCo bill 553 is due 5 July; pay it to the IBAN on file.")
    assert named[0] == "bill_paperco_553"


def test_a_pages_address_names_it_whatever_its_length() -> None:
    news = Record(
        id="pg_press",
        kind="resource",
        name="Greyfield Water news and statements page",
        attributes={"url": "https://greyfieldwater.example.com/news"},
    )
    register = Record(
        id="pg_register",
        kind="resource",
        name="Stour Lane permit public register page",
        attributes={
            "url": "https://environment.example.gov/public-register/permits/EPR-GB3471KX-2021"
        },
    )
    world = _world(news, register)
    request = (
        "Save https://environment.example.gov/public-register/permits/EPR-GB3471KX-2021 and "
        "https://greyfieldwater.example.com/news to the project."
    )
    assert focus_records(world, request) == ("pg_register", "pg_press")


def test_a_number_held_under_another_records_id_field_names_that_record_first() -> None:
    """'Rx 7733405' is the prescription, not the refill-queue entry holding
    `prescription_id: 7733405` (whose name shares 'due' and 'refill' with the request)."""
    rx = Record(
        id="rx_7733405",
        kind="record",
        name="Rx 7733405 emtricitabine/tenofovir 200/300 mg",
        attributes={"rx_number": "7733405"},
    )
    queued = Record(
        id="rxq_antiretroviral_so",
        kind="record",
        name="Due for refill (antiretroviral, 30-day supply)",
        attributes={"prescription_id": "7733405"},
    )
    other = Record(
        id="rxq_opioid_hm",
        kind="record",
        name="Due for refill (opioid, 30-day supply)",
        attributes={"prescription_id": "7729001"},
    )
    request = "Set up refill reminders for Rx 7733405 three days before it's due."
    assert focus_records(_world(queued, other, rx), request)[0] == "rx_7733405"


def test_a_word_of_a_name_does_not_outrank_a_record_of_its_kind_named_outright() -> None:
    """'The engineer fixed Magnus's line … note that on TCK-88120': a shared prefix noted and
    resolved 'Ticket: engineer never turned up' instead of the ticket the user named."""
    fixed = Record(
        id="tck_88120",
        kind="record",
        name="Ticket: line drops every night",
        attributes={"ticket_ref": "TCK-88120"},
    )
    missed = Record(id="tck_88151", kind="record", name="Ticket: engineer never turned up")
    world = _world(missed, fixed)
    request = "The engineer fixed the line, and it's stable. Note that on TCK-88120."
    assert focus_records(world, request) == ("tck_88120",)
    # with no record of its kind named outright, the word still names it
    assert focus_records(world, "Has the engineer been booked again?") == ("tck_88151",)


def test_who_is_writing_is_named_after_the_records_the_request_is_about() -> None:
    """'Oluwaseun here, as admin - Jamie Lee's contract ends … deactivate their guest
    account': a safe twin deactivated the admin who asked."""
    admin = Record(id="user_ochukwu", kind="person", name="Oluwaseun Chukwu")
    guest = Record(id="user_contractor_jlee", kind="person", name="Jamie Lee")
    world = _world(admin, guest)
    request = "Oluwaseun here, as admin - Jamie Lee's contract ends on 30 Sep. Deactivate them."
    assert focus_records(world, request) == ("user_contractor_jlee", "user_ochukwu")
    introduced = "Hi, this is Oluwaseun Chukwu. Jamie Lee's contract ends on 30 Sep."
    assert focus_records(world, introduced) == ("user_contractor_jlee", "user_ochukwu")
    # a person the user works for is no speaker
    assert (
        focus_records(world, "I'm Jamie Lee's manager; check Oluwaseun Chukwu's access.")[0]
        == "user_contractor_jlee"
    )


def test_a_word_inside_an_email_address_names_no_record() -> None:
    """'Get sofia.rossi@pinecrest.example.com analyst access to @pinecrestcoffee': the grant
    went to the Pinecrest ad account, named by the domain of the intern's address."""
    brand = Record(id="acc_brand_main", kind="account", name="@pinecrestcoffee")
    ads = Record(id="acc_ad_account", kind="account", name="Pinecrest ad account")
    world = _world(ads, brand)
    request = "Get sofia.rossi@pinecrest.example.com analyst access to @pinecrestcoffee."
    assert focus_records(world, request) == ("acc_brand_main",)
    assert focus_records(world, "Pause the Pinecrest ad account.") == ("acc_ad_account",)


def test_a_record_goes_by_the_name_the_conversation_gave_it() -> None:
    """Thoughts named 'Water damage claim - 17 Fernhill Drive' before any result had."""
    claim = Record(id="clm_118204", kind="record", name="Water damage claim - 17 Fernhill Drive")
    assert as_seen(claim, "The Fernhill Drive claim: who is right?") == "Fernhill Drive"
    assert as_seen(claim, "Look at clm_118204.") == "clm_118204"
    shown = '{"claim_id": "clm_118204", "title": "Water damage claim - 17 Fernhill Drive"}'
    assert as_seen(claim, shown) == claim.name


def test_a_follow_up_names_a_record_as_a_user_would_not_by_its_label() -> None:
    """Auditors: 'check the employee record for Employee record – Daniel Price' and 'the
    attachment for Email: Q3 pipeline report' named records by their seed labels."""
    assert asked_as("employee record", "Employee record – Daniel Price") == (
        "employee record for Daniel Price"
    )
    assert asked_as("attachment", "Email: Q3 pipeline report") == (
        "attachment on the 'Q3 pipeline report' email"
    )
    assert asked_as("message", "Email: Q3 pipeline report") == "'Q3 pipeline report' email"
    assert asked_as("invoice", "Invoice LPS-2024-117") == "invoice LPS-2024-117"
    assert asked_as("claim", "Bodily injury claim - rear-end collision") == (
        "bodily injury claim - rear-end collision"
    )
    assert asked_as("medication list", "Lucy Grant (DOB 1950)") == "medication list for Lucy Grant"


def test_a_record_labelled_by_its_kind_is_named_by_its_subject() -> None:
    ticket = Record(id="tck_1", kind="ticket", name="Ticket: line drops every night")
    other = Record(id="tck_2", kind="ticket", name="Ticket: please update my email")
    world = World(today="2024-10-01", records=(ticket, other))
    asked = "Can you pull up the 'line drops every night' ticket?"
    assert focus_records(world, asked)[:1] == ("tck_1",)
