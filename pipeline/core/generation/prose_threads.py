"""Phrase banks for the parts of in-world text that make it as long as the real thing: the
earlier message an e-mail quotes, a ticket's comment thread, a clinical note's examination,
a log's routine lines, a document's further sections. Like `prose_phrases`, no sentence
states a status or an amount a record could contradict: the record's values are quoted by
`prose` itself."""

EMAIL_EARLIER = (
    "Thanks for sending this over. Could you let me know where things stand on {subject}?",
    "I had a look at the last version and a couple of points were not clear to me.",
    "{person} mentioned you might have the latest figures, so I thought I'd ask directly.",
    "Before we take it further, I'd like to be sure we are all working from the same details.",
    "No rush on this, but it would be good to have it settled before the end of the month.",
    "I've copied {person}, who asked to be kept in the loop.",
    "When you have a moment, could you confirm the dates as they stand now?",
    "If it is easier to go through it on a call, I'm free most of {weekday} afternoon.",
    "Apologies for the slow reply; last week was busier than planned.",
    "I've checked my own notes and they match what you sent, apart from one small thing.",
)  # fmt: skip
SIGN_OFF_ROLES = (
    "Operations", "Accounts", "Customer Services", "Finance", "Client Services", "Planning",
    "Administration", "Service Delivery",
)  # fmt: skip
NOTICE_NEXT = (
    "You do not need to do anything else if the details above are correct.",
    "We will write to you again if anything changes.",
    "Records of this message are kept with the account for future reference.",
    "If you did not expect this message, please let us know through the help pages.",
    "Our help pages explain each of the terms used in this message.",
    "The same information is shown in the account area under recent activity.",
)  # fmt: skip
TICKET_COMMENTS = (
    "Picked this up; looking into it now.", "Asked {person} whether they see the same thing.",
    "Checked the recent history; nothing similar in the last month.",
    "Added the times from the first report so they are in one place.",
    "Waiting on a reply from {person} before changing anything.",
    "Spoke to {person}; they can reproduce it on their side.",
    "Not urgent according to the reporter, but it is holding up routine work.",
    "Moved to the right queue so the owning team sees it.",
    "Linked the earlier discussion for context.", "Reminder sent to {person} on {weekday}.",
)  # fmt: skip
CLINICAL_EXAM = (
    "On examination: alert and comfortable at rest.", "Observations recorded and within the "
    "patient's usual range.", "Chest clear on auscultation; heart sounds normal.",
    "Abdomen soft and non-tender.", "No new findings compared with the previous examination.",
    "Mood and affect appropriate; engaged well throughout.",
)  # fmt: skip
CLINICAL_DISCUSSION = (
    "Options were discussed, including the benefits and risks of each.",
    "Patient's questions answered; understanding checked by asking them to summarise the plan.",
    "Shared decision made to keep the current approach for now.",
    "Advised where to find further information and how to reach the practice out of hours.",
    "Carer's contact details checked and kept on file, with the patient's consent.",
)  # fmt: skip
LOG_ROUTINE = (
    "health check ok", "heartbeat sent", "worker {n} idle", "flushed {n} records to storage",
    "metrics exported ({n} series)", "token refreshed", "lease renewed for {n} s",
    "batch {n} acknowledged", "gc pause {n} ms", "watching {n} resources",
    "request completed in {n} ms", "retry queue empty", "config checksum unchanged",
)  # fmt: skip
DOC_SECTIONS = (
    "Definitions", "Timeline", "Risks", "Dependencies", "Approvals", "Review history",
    "Contacts", "Assumptions", "Open points", "Records kept",
)  # fmt: skip
DOC_MORE = (
    "Each owner reviews their part at least once a quarter and notes the date of the review.",
    "Where this document and an older one disagree, this one applies.",
    "Points raised at the last review are listed with the person who raised them.",
    "Anyone who relies on a figure here should check it against the system of record first.",
    "The owner of each section is the first person to ask about it.",
    "Minor corrections are made without a new version number; larger ones are re-circulated.",
    "Supporting material is filed beside this document with the same reference.",
    "Deadlines shown here follow the calendar agreed at the start of the year.",
    "If a section no longer applies, it is marked as such rather than deleted.",
    "A short summary of each change is added to the history when the document is revised.",
    "Sign-off is recorded in the approvals section with the date it was given.",
    "Questions that come up between reviews are collected and answered at the next one.",
)  # fmt: skip
CHAT_MORE = (
    "I'll update the thread once I hear back.", "Does that work for everyone?",
    "Sorry, meant to send this earlier.", "Same as last time, nothing unusual.",
    "I've put a note in the calendar.", "Ping me if anything changes.",
)  # fmt: skip
SETTINGS = (
    ("log_level", "info"), ("request_timeout_s", 30), ("max_retries", 3),
    ("pool_size", 10), ("cache_ttl_s", 300), ("feature_flags_enabled", True),
)  # fmt: skip
"""Ordinary settings a service's config file holds beside the record's own values."""
CI_STEPS = (
    ("##[group]Set up job", "Current runner version: '2.319.1'", "Runner image: ubuntu-22.04",
     "##[endgroup]"),
    ("##[group]Run actions/checkout@v4", "Syncing repository", "Fetching the repository",
     "Checking out the ref", "##[endgroup]"),
    ("##[group]Run actions/setup-python@v5", "Successfully set up CPython (3.11.9)",
     "##[endgroup]"),
    ("##[group]Run actions/cache@v4", "Cache restored from key: pip-{n}", "##[endgroup]"),
    ("##[group]Run pip install -r requirements.txt", "Collecting {n} packages",
     "Successfully installed {n} packages", "##[endgroup]"),
    ("##[group]Run ruff check .", "All checks passed!", "##[endgroup]"),
    ("##[group]Run pytest -q --maxfail=5", "platform linux -- Python 3.11.9, pytest-8.3.2",
     "collected {n} items", "##[endgroup]"),
    ("##[group]Post job cleanup", "Cleaning up orphan processes", "##[endgroup]"),
)  # fmt: skip
"""The steps of a CI job's log in the order a runner prints them; the job's outcome is the
conclusion beside the log, so no line states a pass or a failure."""
