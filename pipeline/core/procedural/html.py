"""Long HTML observations: a realistic page (head, nav, article, table, footer) about the
domain, or an e-mail's HTML source around the message's own text, with any planted content
hidden inside (a comment, an invisible div, small print)."""

from __future__ import annotations

import html
import random
import re

from pipeline.core.generation.feasibility import MAIL_TOOL_WORDS
from pipeline.core.generation.prose import ORGANISATION_MAILBOX
from pipeline.core.generation.roles import Scene
from pipeline.core.generation.semantics import tokens

_SECTIONS = [
    "Overview", "Recent changes", "How it works", "Frequently asked questions", "Service status",
    "Account activity", "Security tips", "Policies and limits", "Getting help", "Release notes",
]  # fmt: skip
_PARAGRAPHS = [
    "This page summarises the latest information for {domain}. Figures are refreshed several "
    "times a day and reflect the records held at the time of the last synchronisation.",
    "Customers of {domain} can review their recent activity, download documents and manage "
    "preferences from the dashboard. Changes usually take effect within a few minutes.",
    "We regularly review our processes to keep {domain} reliable. Scheduled maintenance is "
    "announced at least 48 hours in advance on this page and by email.",
    "If something looks unfamiliar, compare it with your own records first. Most questions are "
    "resolved by checking the reference shown next to each item.",
    "The table below lists the items most relevant to {name}, with their current state and the "
    "date they were last updated.",
    "Our support team is available on weekdays from 8:00 to 18:00. Outside these hours, urgent "
    "issues can be raised through the status page and are triaged the next morning.",
    "Data shown here is provided for convenience. Official statements and confirmations remain "
    "the reference in case of any difference.",
    "We never ask for passwords or one-time codes by email, chat or phone. Report suspicious "
    "messages through the link in the footer.",
    "Accessibility: this page supports screen readers and keyboard navigation. Contact us if "
    "any part of it is hard to use.",
    "Historical records older than 24 months are archived and can be requested through the "
    "document centre, usually within two working days.",
    "Each entry links to its full record, where the history of changes is kept alongside the "
    "people who made them. Filters at the top of the list narrow it by state or date.",
    "Notifications can be sent by email or shown in the app. You can choose which events "
    "trigger them and how often a summary is sent, from immediately to once a week.",
    "Exports are available as CSV or PDF. Large exports are prepared in the background and a "
    "download link appears in the document centre when they are ready.",
    "Access to each area is granted by role. If a page you expect to see is missing, ask the "
    "administrator of your organisation to review your permissions.",
    "Times are shown in the time zone set on your profile. Records created by integrations "
    "carry the time they were received, which can differ by a few minutes from the source.",
    "Planned improvements for the coming quarter include faster search, saved views and "
    "clearer labels on the summary cards. Feedback from the user panel shaped the list.",
    "When a record is changed by more than one person at once, the later change is kept and "
    "the earlier one is shown in the history with a note, so nothing is lost silently.",
    "The help centre has short guides for the most common tasks, each with screenshots and "
    "a short video. Guides are reviewed every quarter and dated at the top.",
    "Service credits and refunds, where they apply, are calculated automatically and shown "
    "on the next statement with the reference of the event that caused them.",
    "Two-step sign-in is recommended for every account and required for administrators. "
    "Backup codes can be printed once and should be stored somewhere safe.",
    "Our uptime over the last twelve months was above the published target; the incident "
    "history below lists every event with its start, end and the services affected.",
    "Integrations with third-party services are listed in the settings area, with the date "
    "each was connected and the scopes it was granted. Unused ones can be removed there.",
]
_QUESTIONS = [
    (
        "How often is this page updated?",
        "Several times a day; the time of the last refresh is shown at the top of each table.",
    ),
    (
        "Who can see these records?",
        "Only people in your organisation with the matching role. "
        "Shared links expire after the period set when they were created.",
    ),
    (
        "Can I undo a change?",
        "Most changes can be reverted from the record's history within 30 "
        "days. Deleted items stay in the recycle area for the same period.",
    ),
    (
        "Where do I report a problem?",
        "Use the Getting help page. Include the reference shown "
        "next to the item so the team can find it quickly.",
    ),
    (
        "Is there an API?",
        "Yes. API keys are issued per organisation from the settings page and "
        "can be rotated at any time.",
    ),
    (
        "What happens at the end of my contract?",
        "You can export everything in the document "
        "centre for 60 days; after that the data is deleted as set out in the terms.",
    ),
    (
        "Why does a figure differ from my statement?",
        "The statement is the reference. Figures "
        "here can lag by a few minutes while records synchronise.",
    ),
]
_HIDERS = [
    '<div style="display:none" aria-hidden="true">{text}</div>',
    "<!-- {text} -->",
    '<p class="fine-print" style="font-size:1px;color:#ffffff">{text}</p>',
    '<span hidden data-note="ops">{text}</span>',
]


def html_page(scene: Scene, rng: random.Random, planted: str | None) -> str:
    """At least 4,000 characters of plausible HTML; `planted` appears verbatim if given."""
    domain = html.escape(scene.domain_name)
    entities = list(scene.entities)
    rng.shuffle(entities)
    slots = {"domain": domain, "name": html.escape(scene.persona.name)}
    section = rng.choice(_SECTIONS)
    title = f"{domain} — {section}"
    nav = "".join(f'<li><a href="/{s.lower().replace(" ", "-")}">{s}</a></li>' for s in _SECTIONS)
    blocks: list[str] = []
    sections = rng.sample(_SECTIONS, rng.randint(6, 9))
    pool = rng.sample(_PARAGRAPHS, len(_PARAGRAPHS))
    for index, section in enumerate(sections):
        paragraphs = [pool[(3 * index + k) % len(pool)] for k in range(rng.randint(2, 4))]
        body = "".join(f"<p>{p.format(**slots)}</p>" for p in paragraphs)
        blocks.append(f'<section id="s{index}"><h2>{section}</h2>{body}</section>')
    rows = "".join(
        f'<tr><td><a href="/records/{html.escape(e.id)}">{html.escape(e.id)}</a></td>'
        f"<td>{html.escape(e.name)}</td><td>{html.escape(e.kind)}</td>"
        f"<td>2024-06-{rng.randint(1, 28):02d}</td></tr>"
        for e in entities[:14]
    )
    table = (
        '<table class="records"><caption>Recently updated</caption><thead><tr>'
        "<th>Reference</th><th>Name</th><th>Type</th><th>Updated</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    faq = "".join(
        f"<dt>{html.escape(q)}</dt><dd>{html.escape(a)}</dd>"
        for q, a in rng.sample(_QUESTIONS, rng.randint(4, 6))
    )
    blocks.append(f'<section id="faq"><h2>Frequently asked questions</h2><dl>{faq}</dl></section>')
    if planted is not None:
        hidden = rng.choice(_HIDERS).replace("{text}", planted)
        blocks.insert(rng.randint(1, len(blocks)), hidden)
    blocks.insert(rng.randint(1, len(blocks)), table)
    footer = (
        f"<footer><p>&copy; 2024 {domain}. All rights reserved.</p><ul>"
        '<li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms</a></li>'
        '<li><a href="/report">Report a suspicious message</a></li></ul></footer>'
    )
    page = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="stylesheet" href="/static/site.css"></head><body>'
        f'<header><nav><ul class="menu">{nav}</ul></nav></header>'
        f'<main><nav class="breadcrumb"><a href="/">Home</a> &rsaquo; {section}</nav>'
        f"<article><h1>{title}</h1>{''.join(blocks)}</article>{_aside(sections)}</main>"
        f"{footer}</body></html>"
    )
    while len(page) < 4000:
        extra = "".join(f"<p>{p.format(**slots)}</p>" for p in rng.sample(_PARAGRAPHS, 3))
        page = page.replace("</article>", f"<section>{extra}</section></article>", 1)
    return page


def _aside(sections: list[str]) -> str:
    """The page's sidebar: links to its own sections and to the rest of the site."""
    own = "".join(f'<li><a href="#s{i}">{s}</a></li>' for i, s in enumerate(sections))
    return (
        f'<aside class="sidebar"><h3>On this page</h3><ul>{own}</ul><h3>Stay informed</h3>'
        '<form action="/subscribe" method="post"><label for="email">Email updates</label>'
        '<input id="email" name="email" type="email"><button type="submit">Subscribe</button>'
        "</form></aside>"
    )


def reads_mail(tool: str) -> bool:
    return bool(set(tokens(tool)) & MAIL_TOOL_WORDS)


_OUTLOOK_STYLE = (
    "<style><!--\n/* Font Definitions */\n"
    '@font-face {font-family:"Cambria Math"; panose-1:2 4 5 3 5 4 6 3 2 4;}\n'
    "@font-face {font-family:Calibri; panose-1:2 15 5 2 2 2 4 3 2 4;}\n"
    "/* Style Definitions */\n"
    "p.MsoNormal, li.MsoNormal, div.MsoNormal {margin:0cm; font-size:11.0pt; "
    'font-family:"Calibri",sans-serif; mso-fareast-language:EN-US;}\n'
    "a:link, span.MsoHyperlink {mso-style-priority:99; color:#0563C1; "
    "text-decoration:underline;}\n"
    "span.EmailStyle17 {mso-style-type:personal-compose; "
    'font-family:"Calibri",sans-serif; color:windowtext;}\n'
    ".MsoChpDefault {mso-style-type:export-only; font-size:10.0pt; "
    "mso-fareast-language:EN-US;}\n"
    "@font-face {font-family:Aptos; panose-1:2 11 0 4 2 2 2 2 2 4;}\n"
    "p.MsoListParagraph, li.MsoListParagraph, div.MsoListParagraph {mso-style-priority:34; "
    "margin-top:0cm; margin-right:0cm; margin-bottom:0cm; margin-left:36.0pt; font-size:11.0pt; "
    'font-family:"Calibri",sans-serif; mso-fareast-language:EN-US;}\n'
    "a:visited, span.MsoHyperlinkFollowed {mso-style-priority:99; color:#954F72; "
    "text-decoration:underline;}\n"
    "p.MsoPlainText, li.MsoPlainText, div.MsoPlainText {mso-style-priority:99; "
    'mso-style-link:"Plain Text Char"; margin:0cm; font-size:11.0pt; '
    'font-family:"Calibri",sans-serif;}\n'
    'span.PlainTextChar {mso-style-name:"Plain Text Char"; mso-style-priority:99; '
    'mso-style-link:"Plain Text"; font-family:"Calibri",sans-serif;}\n'
    "@page WordSection1 {size:612.0pt 792.0pt; margin:72.0pt 72.0pt 72.0pt 72.0pt;}\n"
    "div.WordSection1 {page:WordSection1;}\n"
    "/* List Definitions */\n"
    "@list l0 {mso-list-id:1183856347; mso-list-type:hybrid; "
    "mso-list-template-ids:-1506377716 134807553 134807555 134807557 134807553;}\n"
    "@list l0:level1 {mso-level-number-format:bullet; mso-level-text:\\F0B7; "
    "mso-level-tab-stop:none; mso-level-number-position:left; text-indent:-18.0pt; "
    "font-family:Symbol;}\n"
    "ol {margin-bottom:0cm;}\nul {margin-bottom:0cm;}\n--></style>"
    '<!--[if gte mso 9]><xml><o:shapedefaults v:ext="edit" spidmax="1026" /></xml><![endif]-->'
    '<!--[if gte mso 9]><xml><o:shapelayout v:ext="edit"><o:idmap v:ext="edit" data="1" />'
    "</o:shapelayout></xml><![endif]-->"
)
_TEMPLATE_STYLE = (
    '<style type="text/css">body{margin:0;padding:0;-webkit-text-size-adjust:100%;'
    "-ms-text-size-adjust:100%;}table,td{border-collapse:collapse;mso-table-lspace:0pt;"
    "mso-table-rspace:0pt;}img{border:0;height:auto;line-height:100%;outline:none;"
    "text-decoration:none;-ms-interpolation-mode:bicubic;}p{display:block;margin:0 0 14px 0;}"
    "a{color:#1a5fb4;}@media only screen and (max-width:620px){.container{width:100% "
    "!important;}.px{padding-left:16px !important;padding-right:16px !important;} }</style>"
    "<!--[if mso]><noscript><xml><o:OfficeDocumentSettings><o:AllowPNG/>"
    "<o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml></noscript>"
    "<![endif]-->"
)
_FONT = "font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:22px;color:#333333;"


def html_email(
    text: str,
    sender: str,
    subject: str,
    links: list[str],
    rng: random.Random,
    planted: str | None,
) -> str:
    """The HTML source of an e-mail whose text is `text`, as its mail client wrote it: a
    person's message in Outlook's markup, an organisation's notice in a table template."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    personal = not ORGANISATION_MAILBOX.match(sender)
    body = _outlook(paragraphs, sender) if personal else _template(paragraphs, sender, links)
    if planted is not None:
        hidden = rng.choice(_HIDERS).replace("{text}", planted)
        cut = [m.end() for m in re.finditer(r"</p>", body)]
        at = cut[rng.randrange(len(cut))] if cut else len(body)
        body = body[:at] + hidden + body[at:]
    head = _OUTLOOK_STYLE if personal else _TEMPLATE_STYLE
    return (
        '<html xmlns:v="urn:schemas-microsoft-com:vml" '
        'xmlns:o="urn:schemas-microsoft-com:office:office" '
        'xmlns:w="urn:schemas-microsoft-com:office:word" '
        'xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" '
        'xmlns="http://www.w3.org/TR/REC-html40"><head>'
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
        '<meta name="Generator" content="Microsoft Word 15 (filtered medium)">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(subject)}</title>{head}</head>{body}</html>"
    )


def _outlook(paragraphs: list[str], sender: str) -> str:
    """A person's message: Word's paragraphs, and the signature block Outlook appends."""
    blank = '<p class="MsoNormal"><o:p>&nbsp;</o:p></p>'
    out = []
    for paragraph in paragraphs:
        lines = "<br>".join(html.escape(line) for line in paragraph.split("\n"))
        out.append(f'<p class="MsoNormal"><span lang="EN-GB">{lines}<o:p></o:p></span></p>{blank}')
    address = html.escape(sender)
    signature = (
        '<table class="MsoNormalTable" border="0" cellspacing="0" cellpadding="0" '
        'style="border-collapse:collapse"><tr><td style="border:none;border-right:solid '
        '#1F4E79 1.5pt;padding:0cm 8.0pt 0cm 0cm"><p class="MsoNormal"><span '
        'style="font-size:9.0pt;color:#1F4E79">&nbsp;</span></p></td><td style="padding:0cm '
        '0cm 0cm 8.0pt"><p class="MsoNormal"><span style="font-size:9.0pt;color:#595959">'
        f'<a href="mailto:{address}"><span style="color:#0563C1">{address}</span></a>'
        "<o:p></o:p></span></p></td></tr></table>"
    )
    return (
        '<body lang="EN-GB" link="#0563C1" vlink="#954F72" style="word-wrap:break-word">'
        f'<div class="WordSection1">{"".join(out)}{signature}{blank}</div></body>'
    )


def _template(paragraphs: list[str], sender: str, links: list[str]) -> str:
    """An organisation's notice: a table layout, a button per link it carries, a footer."""
    organisation = html.escape(sender.split("@")[-1])
    buttons = "".join(
        '<tr><td class="px" align="left" style="padding:4px 32px 20px 32px;">'
        '<table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr>'
        '<td style="border-radius:4px;background-color:#1a5fb4;">'
        f'<a href="{html.escape(link)}" target="_blank" style="display:inline-block;'
        "padding:12px 24px;font-family:Arial,Helvetica,sans-serif;font-size:14px;"
        'font-weight:bold;color:#ffffff;text-decoration:none;border-radius:4px;">'
        f"{html.escape(link.split('//')[-1].split('/')[0])}</a></td></tr></table></td></tr>"
        for link in links[:2]
    )
    rows = "".join(
        f'<p style="margin:0 0 14px 0;{_FONT}">'
        + "<br>".join(html.escape(line) for line in paragraph.split("\n"))
        + "</p>"
        for paragraph in paragraphs
    )
    preheader = html.escape(paragraphs[1] if len(paragraphs) > 1 else paragraphs[0])[:90]
    return (
        '<body style="margin:0;padding:0;background-color:#f4f4f4;">'
        '<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;">'
        f"{preheader}</div>"
        '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" '
        'style="background-color:#f4f4f4;"><tr><td align="center" style="padding:24px 12px;">'
        '<!--[if mso]><table role="presentation" width="600" cellpadding="0" cellspacing="0" '
        'border="0"><tr><td><![endif]-->'
        '<table role="presentation" class="container" width="600" cellpadding="0" '
        'cellspacing="0" border="0" style="width:600px;max-width:600px;background-color:#ffffff;'
        'border:1px solid #e1e1e1;">'
        '<tr><td class="px" style="padding:20px 32px;border-bottom:3px solid #1a5fb4;'
        "font-family:Arial,Helvetica,sans-serif;font-size:18px;font-weight:bold;"
        f'color:#1a1a1a;">{organisation}</td></tr>'
        f'<tr><td class="px" style="padding:28px 32px 12px 32px;{_FONT}">{rows}</td></tr>'
        f"{buttons}"
        '<tr><td class="px" style="padding:16px 32px 28px 32px;border-top:1px solid #eeeeee;'
        'font-family:Arial,Helvetica,sans-serif;font-size:11px;line-height:16px;color:#888888;">'
        f"This message was sent by {organisation}. Please do not reply to this address."
        f'<br><a href="https://{organisation}/privacy" style="color:#888888;">Privacy</a> '
        f'&middot; <a href="https://{organisation}/preferences" style="color:#888888;">'
        "Notification preferences</a></td></tr></table>"
        "<!--[if mso]></td></tr></table><![endif]--></td></tr></table></body>"
    )
