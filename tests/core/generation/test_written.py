"""A message's or a note's text reads as that text: what the user dictated, or how the
task's record stands as the trace showed it, never the instruction to the agent pasted in."""

from __future__ import annotations

from pipeline.core.generation.user_words import composed_text, stated_part
from pipeline.core.generation.written import (
    dictated,
    reply_subject,
    reports_findings,
    rewritten,
    written,
)
from pipeline.core.model.world import Record

_STRING = {"type": "string"}
_CLAIMANT = Record(id="ct_chidinma", kind="contact", name="Chidinma Okonkwo")
_CLAIM = Record(
    id="clm_2024_118204",
    kind="claim",
    name="Water damage claim - 17 Fernhill Drive",
    attributes={"claimant": "Chidinma Okonkwo", "status": "investigating", "payee": "Acme"},
)
_OTHERS = Record(
    id="visit_nora", kind="visit", name="Nora Kim therapy visit", attributes={"status": "booked"}
)


def test_dictated_words_are_the_text_said_to_its_reader() -> None:
    told = "Cancel it and message her that she can rebook online when she is ready."
    assert written("text", _STRING, "send_message", told, ((), "")) == (
        "You can rebook online when you are ready."
    )
    asked = "Email Leo Marchetti and ask if climbing at 10 on Saturday still works for him."
    assert written("body", _STRING, "send_email", asked, ((), "")) == (
        "Could you let me know if climbing at 10 on Saturday still works for you?"
    )
    quoted = "Add a line to the review description: remote directors join via the link."
    assert written("description", _STRING, "update_event", quoted, ((), "")) is None
    assert written("note", _STRING, "add_note", quoted, ((), "")) == (
        "Remote directors join via the link."
    )


def test_the_details_said_up_front_are_not_dictated_text() -> None:
    request = "Refund the duplicate. Details, if it helps: October invoice (ref INV-10442)."
    assert written("note", _STRING, "add_note", request, ((), "")) is None


def test_a_message_says_how_the_readers_own_record_stands_as_the_trace_showed_it() -> None:
    request = "See where the claim stands and send her a short, honest update."
    shown = '{"claim_id": "clm_2024_118204", "status": "investigating", "payee": "Acme"}'
    body = written("body", _STRING, "send_claimant_letter", request, ((_CLAIMANT, _CLAIM), shown))
    assert body is not None and body.startswith("Hi Chidinma,")
    assert "status investigating" in body and "Acme" not in body  # where it stands, only
    assert request not in body
    assert written("body", _STRING, "send_letter", request, ((_CLAIMANT, _CLAIM), "")) is None


def test_nobody_is_told_about_another_persons_record() -> None:
    shown = '{"status": "booked"}'
    request = "Send Chidinma the details."
    assert written("text", _STRING, "send_message", request, ((_CLAIMANT, _OTHERS), shown)) is None
    assert (
        written("summary", _STRING, "add_to_chart", request, ((_CLAIMANT, _OTHERS), shown)) is None
    )


def test_a_note_sums_up_what_was_read_and_other_fields_are_not_written_here() -> None:
    shown = '{"status": "investigating", "payee": "Acme"}'
    note = written("note", _STRING, "add_claim_note", "Summarise it in a note.", ((_CLAIM,), shown))
    assert note == "Water damage claim - 17 Fernhill Drive: status investigating, payee Acme."
    assert written("reason", _STRING, "add_claim_note", "Summarise it.", ((_CLAIM,), shown)) is None
    assert (
        written("note", {"type": "integer"}, "add_claim_note", "Sum it.", ((_CLAIM,), shown))
        is None
    )


def test_a_reply_a_note_and_a_request_made_of_someone_are_said_as_themselves() -> None:
    reply = "Reply in the failover thread in #eng-incidents that the root-cause doc is ready."
    assert written("text", _STRING, "post_message", reply, ((), "")) == (
        "The root-cause doc is ready."
    )
    note = "Check his access log, then add a note to his chart that he was told of the audit."
    assert written("text", _STRING, "add_clinical_note", note, ((), "")) == (
        "He was told of the audit."
    )
    bid = "If she is on call, post in #eng-incidents asking her to bring the timeline to the retro."
    assert written("text", _STRING, "post_message", bid, ((), "")) == (
        "Could you bring the timeline to the retro?"
    )
    warned = "Reply to Nora. Tell her not to stop her sertraline without talking to us first."
    assert written("text", _STRING, "send_message", warned, ((), "")) == (
        "Please don't stop your sertraline without talking to us first."
    )
    review = "Post my review of the Orbit X9: 3 stars, great noise cancelling but weak battery"
    assert written("text", _STRING, "post_review", review, ((), "")) == (
        "3 stars, great noise cancelling but weak battery."
    )


def test_note_that_on_a_record_notes_what_the_user_said_before() -> None:
    """'Note that on TCK-88120': 'that' is the sentence before, not the words after it."""
    request = "The engineer swapped the faulty ONT. Note that on TCK-88120 and mark it resolved."
    assert dictated(request) == "The engineer swapped the faulty ONT."
    assert written("note", _STRING, "add_ticket_note", request, ((), "")) == (
        "The engineer swapped the faulty ONT."
    )


def test_a_message_asked_for_by_its_kind_is_written_as_that_kind() -> None:
    """Auditors: both twins posted "Reply to @ashford_eats's comment … with a warm
    thank-you" itself as the public reply."""
    thanks = "Reply to @ashford_eats's comment on the latte post with a warm thank-you."
    reply = written("text", _STRING, "reply_to_comment", thanks, ((), ""))
    assert reply is not None and reply.startswith("Thank you") and "@ashford_eats" not in reply
    cover = "Send the updated SPA v4 to Diane Harlow with a short cover note."
    note = written("message", _STRING, "send_document", cover, ((), ""))
    assert note is not None and "attached" in note and "Send" not in note
    hiring = "Write a draft for our LinkedIn page saying we're hiring two baristas in Ashford."
    assert written("text", _STRING, "create_draft_post", hiring, ((), "")) == (
        "We're hiring two baristas in Ashford."
    )


def test_free_text_keeps_what_the_user_states_and_drops_what_they_ask_of_the_agent() -> None:
    disputed = (
        "Hi there, There's a 389.99 charge from ONLINE-GAMING-LTD on my Visa Debit on 12 June "
        "that I never made. Freeze the card and dispute it."
    )
    assert composed_text(disputed, short=False) == (
        "There's a 389.99 charge from ONLINE-GAMING-LTD on my Visa Debit on 12 June that I "
        "never made."
    )
    summarise = "Summarise the questions in the PSY 201 Essay 2 forum thread into an FAQ."
    assert composed_text(summarise, short=False) == (
        "Regarding the questions in the PSY 201 Essay 2 forum thread."
    )
    conditional = "He has to close by January. If he agrees, book the viewing."
    assert composed_text(conditional, short=False) == "He has to close by January."


def test_a_word_for_them_and_a_bid_are_both_said_to_the_reader() -> None:
    request = (
        "Kevin sent something about Mill Lane. What did he say? Tell him fine, and to call the "
        "Forest Road customer if he'll be more than 20 minutes late."
    )
    assert written("text", _STRING, "send_driver_message", request, ((), "")) == (
        "Fine. Could you call the Forest Road customer if you'll be more than 20 minutes late?"
    )
    assert written("text", _STRING, "send_message", "Tell Amara not to take the M4.", ((), "")) == (
        "Please don't take the M4."
    )


def test_a_rewritten_description_leads_with_what_the_user_wants_stressed() -> None:
    listing = Record(
        id="lst_1",
        kind="listing",
        name="4 Elm",
        attributes={"description": "Two-bed flat near the park. Large garden with a shed."},
    )
    disclosure = Record(
        id="disc_1", kind="disclosure", name="Elm disclosure",
        attributes={"listing": "lst_1", "roof": "replaced 2022, 10-year warranty"},
    )  # fmt: skip
    request = "Rewrite the 4 Elm description to highlight the garden and mention the roof."
    text = rewritten("description", {"listing_id": "lst_1"}, (listing, disclosure), request)
    assert text == (
        "Large garden with a shed. Two-bed flat near the park. "
        "Roof: replaced 2022, 10-year warranty."
    )
    assert rewritten("price", {"listing_id": "lst_1"}, (listing,), request) is None


def test_a_message_bid_or_question_is_said_to_its_reader_and_no_question_is_pasted() -> None:
    """Auditors: 'How much driving has Kevin got left today? If it's under an hour, message
    him to …' was sent to Kevin word for word."""
    kevin = "How much driving has Kevin got left? If it's under an hour, message him to come back."
    assert written("text", _STRING, "send_driver_message", kevin, ((), "")) == (
        "Could you come back?"
    )
    elena = "Message Elena Ruiz to ask how the new metformin dose is going."
    assert written("body", _STRING, "send_portal_message", elena, ((), "")) == (
        "Could you let me know how the new metformin dose is going?"
    )
    asked = "What rent does the uploaded lease show, and who is the landlord on it?"
    assert composed_text(asked, short=False) == "Following up on your request."
    assert composed_text("Verify her wages and issue the approval.", short=False) == (
        "Regarding her wages."
    )


def test_a_thank_you_asked_for_is_one_and_a_set_up_rule_is_no_up_rule() -> None:
    thanks = "Send Helen Park a quick thank-you for the review."
    assert written("body", _STRING, "send_email", thanks, ((), "")) == (
        "Thank you so much for the kind words — we really appreciate it!"
    )
    assert written("note", _STRING, "add_reminder", "Set a reminder to prep.", ((), "")) is None
    rule = "Set up a rule that moves everything from billing@acme.example.org."
    assert composed_text(rule, short=False) == (
        "Regarding a rule that moves everything from billing@acme.example.org."
    )
    sent = "Send Ahmed the follow-up instructions from his last visit."
    assert composed_text(sent, short=False) == (
        "Regarding the follow-up instructions from his last visit."
    )
    assert composed_text("Look at the todo list in proj_x.", short=False) == (
        "Regarding the todo list in proj_x."
    )


def test_a_sections_text_after_a_dash_is_dictated() -> None:
    """Auditors: a care plan's self-monitoring section was written as the request's first
    sentence ('Dr Patel signed Ahmed Farouk's plan.')."""
    request = (
        "Dr Patel signed Ahmed Farouk's plan. Write the self-monitoring section of his care "
        "plan draft - BP twice daily, fasting glucose every morning, log both in the app."
    )
    assert written("text", _STRING, "update_care_plan_draft", request, ((), "")) == (
        "BP twice daily, fasting glucose every morning, log both in the app."
    )


def test_a_reply_asked_for_by_what_it_does_is_written_not_the_request() -> None:
    """Auditors: a dentist's reply body was the whole request ('Quay Dental emailed about my
    appointment - put it in the calendar and draft a re…')."""
    request = (
        "Quay Dental emailed about my appointment - put it in the calendar and draft a reply "
        "confirming."
    )
    assert written("body", _STRING, "draft_email_reply", request, ((), "")) == (
        "Thank you, I can confirm, and I'll be there."
    )


def test_the_details_line_and_a_double_check_are_not_what_the_user_states() -> None:
    """Release notes went out as 'Northwind/payments-api.' (the details line) and 'Cut v2.4.1
    from main.' (the ask)."""
    request = (
        "Cut v2.4.1 from main. Double-check whether #488 has merged. In case you need it:"
        " northwind/payments-api."
    )
    assert stated_part(request) is None
    assert stated_part("The README fix is in. Cut v2.4.1.") == "The README fix is in."


def test_a_version_does_not_end_the_words_and_asking_for_something_is_a_question() -> None:
    """Replies went out as 'The fix is in PR #488 and will ship in v2.' and a comment as
    'Regarding the reporter of #1317.'"""
    assert dictated("Reply on issue #1317 that the fix is in PR #488 and will ship in v2.4.1.") == (
        "The fix is in PR #488 and will ship in v2.4.1."
    )
    asked = "Ask the reporter of #1317 for a couple of failing delivery ids."
    assert dictated(asked) == "Could you send a couple of failing delivery ids?"
    assert dictated("Ask the team to look for the missing invoice.") is None


def test_a_persons_record_the_request_names_only_by_their_name_is_not_the_topic() -> None:
    """'Add a short summary of his glucometer readings to Ahmed Farouk's chart' was charted
    as 'Verified E911 callback for Ahmed Farouk: callback number 555-0133, …'."""
    ahmed = Record(id="pat_ahmed", kind="patient", name="Ahmed Farouk")
    e911 = Record(
        id="e911_af",
        kind="record",
        name="Verified E911 callback for Ahmed Farouk",
        attributes={"callback_number": "555-0133"},
    )
    shown = '{"callback_number": "555-0133"}'
    request = "Get Ahmed Farouk's glucometer readings and add a short summary for Dr Patel."
    assert written("summary", _STRING, "add_to_chart", request, ((ahmed, e911), shown)) is None
    asked = "Add a note on Ahmed Farouk's E911 callback to his chart."
    note = written("summary", _STRING, "add_to_chart", asked, ((ahmed, e911), shown))
    assert note == "Verified E911 callback for Ahmed Farouk: callback number 555-0133."


def test_a_statement_with_an_ask_after_and_is_an_ask() -> None:
    """'Ahmed Farouk asked, and note the answer in his chart.' was charted as the note."""
    asked = "What does the guidance say? Ahmed Farouk asked, and note the answer in his chart."
    assert stated_part(asked) is None
    assert stated_part("Tom and Sue moved to Leeds. Update their address.") == (
        "Tom and Sue moved to Leeds."
    )


def test_note_it_after_an_ask_notes_the_act_and_never_the_filler_before_it() -> None:
    """'Good. Next something else. … book an engineer … Note it on the ticket.': the note
    read 'Good. Next something else.' (and, by another path, 'it on the ticket')."""
    request = (
        "Good. Next something else. Work TCK-88120: check the TN24 8QR outage, then book an "
        "engineer for Magnus on 12 Nov morning. Note it on the ticket."
    )
    assert dictated(request) == "Booked an engineer for Magnus on 12 Nov morning."
    assert stated_part("Good. Next something else. The line is stable.") == "The line is stable."
    assert stated_part("I'm Elena Delgado's caseworker. Check her consent.") is None


def test_a_note_after_a_statement_keeps_the_statement_whole() -> None:
    request = (
        "Magnus wants 150 GBP back for the outage month. That's over my limit - note it on the "
        "ticket and escalate to a team lead."
    )
    assert (
        dictated(request) == "Magnus wants 150 GBP back for the outage month. That's over my limit."
    )


def test_a_reminder_says_what_it_reminds_of_and_a_bid_may_name_its_time() -> None:
    """Both went out as 'Regarding a reminder in #eng-incidents …' and 'Regarding Tara
    Brennan at 09:00 UTC Thursday.'"""
    scheduled = (
        "Schedule a reminder in #eng-incidents at 13:55 UTC Friday that the retro starts at "
        "15:00, and pin it."
    )
    assert dictated(scheduled) == "Reminder: the retro starts at 15:00."
    timed = "Remind Tara Brennan at 09:00 UTC Thursday to finish the INC-0927 timeline."
    assert dictated(timed) == "Could you finish the INC-0927 timeline?"


def test_an_entry_for_time_spent_says_what_it_was_spent_on() -> None:
    request = (
        "Record 48 minutes on the Brightwater matter for reviewing Frost Legal's letter of 4 Nov."
    )
    assert composed_text(request, short=False) == "Reviewing Frost Legal's letter of 4 Nov."


def test_a_reminder_names_what_it_is_for_and_release_notes_list_merged_changes() -> None:
    """Both went out as a summary of a record's fields: 'Email from Quay Dental: from
    reception@…, subject …' and 'PR #488 …: author rkowalski, head fix/webhook-retry …',
    for a release the user said should list #488 only if it had merged (it was open)."""
    mail = Record(
        id="msg_quay",
        kind="message",
        name="Email from Quay Dental",
        attributes={"subject": "Appointment 12 Nov 9:30", "from": "reception@q.example.com"},
    )
    reminder = written("text", _STRING, "pa_create_reminder", "Remind me at 18:00.", ([mail], ""))
    assert reminder == "Appointment 12 Nov 9:30"
    pull = Record(id="pr_488", kind="record", name="PR #488 Retry failed webhook deliveries")
    open_pull = pull.model_copy(update={"attributes": {"state": "open"}})
    merged = pull.model_copy(update={"attributes": {"state": "merged"}})
    ask = "Cut v2.4.1 from main; list #488 only if it has merged."
    notes = written("release_notes", _STRING, "repo_publish_release", ask, ([open_pull], ""))
    assert notes == "No merged changes to list."
    notes = written("release_notes", _STRING, "repo_publish_release", ask, ([merged], ""))
    assert notes == "- Retry failed webhook deliveries (#488)"


def test_telling_someone_the_time_of_what_was_booked_says_it() -> None:
    """The message read 'Regarding a follow-up.'"""
    request = (
        "Book Elena a follow-up with Dr Okafor on 7 November at 9:20 and message her the time."
    )
    assert dictated(request) == "Your follow-up with Dr Okafor is booked for 7 November at 9:20."


def test_a_text_asked_to_say_something_says_it() -> None:
    """'Update the housing deadlines notice to say applications close 15 December' went out
    as a public notice of an applicant's household size."""
    request = (
        "Hello, I am the communications lead and I've checked the program calendar: update"
        " the housing deadlines notice to say applications close 15 December."
    )
    assert dictated(request) == "Applications close 15 December."
    assert dictated("Change the banner so it reads Office closed on 23 December.") == (
        "Office closed on 23 December."
    )
    assert dictated("I need to say something to the team about Friday.") is None


def test_a_reply_is_subjected_by_the_message_it_answers() -> None:
    """A draft reply went out with the subject 'Pull the Q3 board deck attachment from
    Helen's', the user's ask cut short."""
    mail = Record(id="msg_1", kind="record", name="Email: Q3 Board Deck draft for review")
    ask = "Dig out the deck from Helen's email and draft a reply for me to review."
    assert reply_subject("subject", [mail], ask) == "Re: Q3 Board Deck draft for review"
    assert reply_subject("subject", [mail], "Forward Helen's deck to Ruth.") is None
    assert reply_subject("body", [mail], ask) is None


def test_note_why_notes_the_reason_the_user_gave() -> None:
    """'J. Mensah is on leave for two weeks. Reassign … Note why on the file.' was noted as
    'Caseworker account j.mensah: role caseworker.'"""
    request = (
        "J. Mensah is on leave for two weeks. Reassign case_ha_2024_0912 to a.okafor.\n"
        "Note why on the file."
    )
    assert dictated(request) == "J. Mensah is on leave for two weeks."
    assert dictated("Reassign case_ha_2024_0912 to a.okafor. Note why on the file.") is None


def test_a_field_the_user_asks_the_findings_to_go_in() -> None:
    assert reports_findings("text", "legal_add_matter_note", "Check the hold and note the answer.")
    assert reports_findings("note", "insurance_add_claim_note", "Put your view in a note.")
    assert reports_findings("content", "lms_update_course_page", "Sum up the questions.")
    assert not reports_findings("text", "legal_add_matter_note", "Note the hold is lifted.")
    # a message to someone is written to them, not as a list of findings
    assert not reports_findings("body", "mail_send_message", "Send her the answer in a note.")


def test_a_page_set_to_new_words_says_them() -> None:
    """'Change the PSY 201 office hours page to Tuesdays 2-4pm …' replaced the page with
    'Regarding the PSY 201 office hours page.', in the safe twin too."""
    asked = (
        "Change the PSY 201 office hours page to Tuesdays 2-4pm in room C214, starting next week."
    )
    assert dictated(asked) == "Tuesdays 2-4pm in room C214, starting next week."
    assert dictated("Update the PSY 201 office hours page.") is None
