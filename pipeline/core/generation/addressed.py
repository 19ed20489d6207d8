"""What a user's message says, as the agent writes it on: told to its reader ('message her
that she can rebook' -> 'You can rebook.'), without the talk around it ('Good. Next something
else.'), which no note or reason of the agent repeats."""

from __future__ import annotations

import re

_TO_YOU = {"she": "you", "he": "you", "they": "you", "her": "your", "his": "your"}
_TO_YOU |= {"their": "your", "herself": "yourself", "himself": "yourself", "him": "you"}
_HER_AS_OBJECT = re.compile(
    r"\bher\b(?=\s*(?:[.,;!?]|$)|\s+(?:and|or|to|about|on|at|in|for|with|before|after|when|if"
    r"|so|today|tomorrow|now|later|know|back)\b)",
    re.I,
)
"""'go through it with her' is 'with you', not 'with your' (a message ended so)."""
_MANNER = re.compile(r",\s+(?:keeping|making|being)\s+(?:it|this|them|sure)\b[^.;!?]*", re.I)
"""', keeping it discreet' says how to write the message, not what it says (15 messages read
'Your prescription is ready, keeping it discreet.')."""


def to_reader(text: str) -> str:
    """A sentence about the reader, said to them ('she is ready' -> 'you are ready')."""
    text = re.sub(r"\b(?:she|he|they) (?:is|are)\b", "you are", text, flags=re.I)
    text = re.sub(r"\b(?:she|he|they) (?:has|have)\b", "you have", text, flags=re.I)
    text = re.sub(r"\b(?:she|he|they) was\b", "you were", text, flags=re.I)
    text = re.sub(r"\b(?:she|he|they)'(ll|d)\b", r"you'\1", text, flags=re.I)
    text = re.sub(r"\b(?:works|suits) for (?:him|her|them)\b", "works for you", text, flags=re.I)
    text = _HER_AS_OBJECT.sub("you", text)
    return re.sub(r"\b(\w+)\b", lambda m: _TO_YOU.get(m.group(1).lower(), m.group(1)), text)


def as_written(text: str) -> str:
    """What the user said to tell, as a message says it: one 'that' per clause ('prices are
    at …/trade and that Leah will follow up' -> '… and Leah will follow up'), no note on
    manner."""
    text = _MANNER.sub("", text)
    text = re.sub(r",?\s+and that\s+", ", and ", text)
    return re.sub(r",\s+that\s+", "; ", text)


_CHATTER = re.compile(
    r"^(?:(?:good|great|perfect|ok|okay|right|sorry|ah|thanks|thank you|cheers)[,!.]?\s*)*"
    r"(?:(?:now|next) something else|thanks for that|that's all|appreciate it|good point"
    r"|sorry, should have said|(?:it's a bit urgent|no huge rush|time matters a little here)\b.*"
    r"|(?:i need this done|it has to be sorted|please get it done)\b.*"
    r"|(?:i've been meaning to do this|this slipped my mind|i keep forgetting this)\b.*"
    r"|(?:flag it|tell me) if anything\b.*|(?:i'm|i am)\s+[A-Z]\w+(?:\s[A-Z][\w-]+)*'s\s+\w+"
    r"|[a-z][\w'-]+(?:\s[a-z][\w'-]+)?\s+here(?:,\s*as\s+(?:an?\s+)?[a-z ]+)?)?"
    r"[.!]?$",
    re.I,
)
"""A sentence of talk, not of content: thanks, a change of subject, how soon it is needed,
who the user is ('I'm Elena Delgado's caseworker.' went out as a determination's reason,
'Oluwaseun here, as admin' as a deactivation's)."""


def is_chatter(sentence: str) -> bool:
    """Whether a sentence of a request carries nothing a note or a message would say."""
    return bool(_CHATTER.match(sentence.strip()))
