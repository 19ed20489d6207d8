"""The phrase banks `prose` composes in-world text from, one set per genre. Sentences state
nothing a record could contradict (no status, no amount): the record's own values are quoted
by `prose` itself."""

TEAMS = ("Operations", "the service desk", "Accounts", "the records team", "Facilities")
EMAIL_OPENINGS = (
    "I'm following up on {subject}.", "Quick update on {subject} before the end of the week.",
    "As promised on {weekday}, here is where things stand with {subject}.",
    "Sending this over so everyone has the same picture of {subject}.",
    "Circling back on {subject}, since a few of you asked.",
)  # fmt: skip
EMAIL_MIDDLE = (
    "I went through it with {person} yesterday and we agreed on the main points.",
    "Most of it is unchanged from the version we looked at last time.",
    "The figures were pulled from the system on {day}, so they may have moved slightly since.",
    "There are a couple of open questions, which I've listed at the end.",
    "Nothing here needs a decision today, but it would help to have comments by {weekday}.",
    "I've kept the format the same as before so it is easy to compare.",
    "{person} has the background if you need more detail on any part of it.",
    "The previous thread got long, so I'm starting a fresh one here.",
    "For reference, the details as they stand now are below.",
    "I've copied in the people who were on the original thread.",
    "The short version is that nothing has changed in substance since we last spoke.",
    "A couple of people asked for the background, so I've written it out in full this time.",
    "If you already replied on the old thread, no need to do it again; I have your comments.",
    "This is the version I'd like us to work from from now on.",
    "I've checked the dates against the calendar and they line up.",
)  # fmt: skip
EMAIL_ASKS = (
    "Let me know if anything looks off.", "Happy to go through it on a call if that is easier.",
    "Please reply to this thread rather than starting a new one.",
    "Shout if you need anything else from me before then.",
    "I'll be out on {weekday} afternoon, so {person} can pick up questions then.",
)  # fmt: skip
NOTICE_OPENINGS = (
    "We are writing to you about {subject}.", "This is an automated message about {subject}.",
    "Your attention is needed on {subject}.", "There is an update on {subject} in your account.",
)  # fmt: skip
NOTICE_BODY = (
    "The details below are taken from our records at the time this message was sent.",
    "If you have already dealt with this, you can ignore this message.",
    "You are receiving this because the address is registered on the account.",
    "A copy of this notice is also available when you sign in.",
    "This message was generated automatically; replies to this address are not monitored.",
    "We send notices like this whenever something on the account needs a look.",
)  # fmt: skip
NOTICE_ASKS = (
    "Please review the details above.",
    "If anything here looks wrong, contact us through the usual channel.",
    "For questions, use the help pages rather than replying to this message.",
)  # fmt: skip
CLINICAL_HISTORY = (
    "Attended for a routine review; reports feeling much the same as at the last visit.",
    "History taken from the patient, who was alert and gave a clear account.",
    "No new symptoms reported since the previous appointment.",
    "Current medication reviewed with the patient; adherence described as good.",
    "Seen with a family member present, at the patient's request.",
    "Records from the last three appointments reviewed before the consultation.",
    "Patient asked to go through the results from the last visit, which were explained.",
    "Identity confirmed with name and date of birth at the start of the appointment.",
)  # fmt: skip
CLINICAL_PLAN = (
    "Plan: continue current management and review in the usual interval.",
    "Safety-netting advice given; to contact the practice if symptoms change.",
    "Bloods to be repeated before the next review.",
    "Patient agreed with the plan and had no further questions.",
    "Letter to follow to the patient summarising today's discussion.",
    "Coded and summarised in the problem list.",
    "Next review booked with the usual clinician where possible.",
    "Discussed lifestyle advice; written information given.",
)  # fmt: skip
TICKET_OPENINGS = (
    "Raised about {subject} after it was noticed on {day}.",
    "This covers {subject}; the first report came in on {weekday}.",
    "Opening this so {subject} is tracked in one place.",
)  # fmt: skip
TICKET_BODY = (
    "The behaviour has been seen more than once, not just a one-off.",
    "{person} confirmed it on their side as well.",
    "There is no workaround that fully avoids it yet.",
    "Impact so far is limited, but it is holding up routine work.",
    "Screenshots and the exact times are attached to the first comment.",
    "It started around the same time as the last scheduled change.",
    "The first report came in through the usual channel and was logged straight away.",
    "It affects at least one other person on the same team.",
    "The details in the record were checked and match what was reported.",
    "Nobody has changed anything on the record since the report came in.",
)  # fmt: skip
TICKET_STEPS = (
    "checked the recent history for similar reports", "asked {person} for the exact times",
    "confirmed the details below against the record", "waiting on a reply before the next step",
    "reproduced it once on {day}",
)  # fmt: skip
CHANGE_SUMMARY = (
    "This change addresses {subject}.", "Follow-up to the discussion on {subject}.",
    "{subject}: the smallest change that does it, so it is easy to review.",
)  # fmt: skip
CHANGE_LINES = (
    "move the shared setup into one helper", "add a test for the case that was missing",
    "rename two variables so the intent is clearer", "update the docs to match",
    "drop a workaround that is no longer needed", "tidy the error message shown to users",
)  # fmt: skip
CHANGE_TESTING = (
    "Ran the test suite locally.", "Checked by hand against a copy of the data.",
    "CI should cover the rest.", "Reviewers: a second pair of eyes on the last file please.",
)  # fmt: skip
AGENDA_OPENINGS = (
    "Time for {subject}.", "Setting this up for {subject}.",
    "Invite for {subject}; the agenda is below so we can keep to time.",
)  # fmt: skip
AGENDA_ITEMS = (
    "Actions from last time", "Updates from each person", "Open questions",
    "Anything blocking the next two weeks", "Dates for the next session", "Any other business",
)  # fmt: skip
AGENDA_NOTES = (
    "Please add items to the agenda by the day before.", "Notes will be shared afterwards.",
    "If you cannot make it, send an update in advance.",
)  # fmt: skip
CHAT = (
    "Morning, quick one from me.", "Just got back from the site visit.",
    "Running about twenty minutes behind today.", "Can you check this when you get a moment?",
    "Spoke to {person} about it earlier.", "Sending the details below.",
    "Will send the photos over once I'm back on wifi.", "Let me know if you need anything else.",
)  # fmt: skip
NOTES = (
    "Reviewed {subject} and updated the record.", "Called back; left a message with the details.",
    "Discussed with {person}; agreed to revisit on {weekday}.", "Checked the history, no change.",
    "Documents received and filed against the record.", "Follow-up booked for next week.",
    "Spoke to {person}; they will send the paperwork over by {weekday}.",
    "Updated the contact details after the call.",
    "Checked the record against the last statement; figures agree.",
)  # fmt: skip
SECTIONS = ("Purpose", "Background", "Details", "Scope", "Responsibilities", "Next steps")
DOC_INTROS = (
    "This document sets out {subject} as it currently stands.",
    "Working copy of {subject}, last revised on {day}.",
    "Summary of {subject} for the people who work with it day to day.",
)  # fmt: skip
DOC_BODY = (
    "It is kept up to date by {person}, who should be told about any change.",
    "Earlier versions are kept in the archive for reference.",
    "The sections below follow the order used in the previous revision.",
    "Where a point needs sign-off, the owner is named next to it.",
    "Questions about any section can go to the owner listed at the top.",
    "Terms used here have the meaning given in the glossary at the end.",
    "Figures quoted are those recorded on {day}.",
    "This version replaces the one circulated earlier in the quarter.",
    "Comments on the draft were folded in where they did not conflict.",
    "Anything marked as pending is still waiting on the owner named beside it.",
    "The appendix lists the source of each figure.",
    "Changes since the last revision are tracked in the history at the end.",
    "Distribution is limited to the people named in the access list.",
)  # fmt: skip
LOG_INFO = (
    "request completed in 184 ms", "connection opened", "sync started",
    "session started by {person}", "configuration reloaded", "poll cycle started",
    "queue drained, 0 pending", "cache refreshed", "scheduled task finished",
    "response slower than usual (1.9 s)", "retrying after timeout (attempt 2 of 3)",
)  # fmt: skip
LOG_WARN = frozenset(
    ["response slower than usual (1.9 s)", "retrying after timeout (attempt 2 of 3)"]
)
DESCRIPTION_OPENINGS = (
    "{subject} as recorded in the system.", "Record for {subject}.",
    "Details held for {subject}.",
)  # fmt: skip
DESCRIPTION_BODY = (
    "Last reviewed by {person} on {day}.", "Entered by {person}.",
    "Changes are logged in the history tab.", "Contact {person} with any questions about it.",
    "The owning team is listed on the record.",
)  # fmt: skip
