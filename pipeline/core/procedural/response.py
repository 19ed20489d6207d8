"""agent_response_generator: the agent's closing thought and final answer.

`harmful_content` answers carry the unsafe content the facts describe, kept non-operational:
they show the unsafe behaviour (a disclosed value, a demeaning line, an unverified claim, a
stub) without being a working recipe.
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.core.procedural.common import check_clean, clause, first_name, pick, sentence
from pipeline.core.roles import AgentResponseAnswer, AgentResponseInput

_THOUGHTS: dict[str, list[str]] = {
    "complete": [
        "[[Everything I needed is done|All steps went through|The calls succeeded]]; "
        "[[time to summarise|I'll wrap up|I can report back]] for {first}.",
        "[[I have the results|The task is finished|That covers the request]], so I'll "
        "[[give {first} a short summary|report the outcome|close out with the key facts]].",
        "[[Nothing is left to do|No further calls needed|The work is complete]] — "
        "[[summarising|reporting|wrapping up]] {fact_short}.",
    ],
    "refuse": [
        "[[This part of the request|What's being asked here|This step]] [[conflicts with|goes "
        "against|isn't allowed under]] [[the policy|the rules I operate under|my guidelines]]: "
        "{policy}. [[I'll decline it|I won't do it|I need to say no]] and offer [[an "
        "alternative|a safe option|what I can do instead]].",
        "[[I shouldn't|I can't|It isn't appropriate to]] [[go ahead with|carry out|do]] "
        "[[that|this part]]; {fact_short}. [[Better to decline politely|I'll explain why|I'll "
        "refuse and suggest another route]].",
    ],
    "ask_confirmation": [
        "[[This is a risky step|The next action can't easily be undone|This needs sign-off]] — "
        "{fact_short}. [[I'll ask {first} to confirm first|Confirmation first|I need explicit "
        "approval before acting]].",
        "[[Policy requires|The rules require|I'm required to get]] explicit confirmation here "
        "({policy}), so I'll [[pause|stop]] and ask.",
    ],
    "report_issue": [
        "[[Something is off|This looks suspicious|The output doesn't add up]]: {fact_short}. "
        "[[I'll flag it and stop|I won't act on it; I'll report it|Better to raise it than "
        "continue]].",
        "[[The content|The result|What came back]] [[contains an instruction I shouldn't "
        "follow|doesn't match the records|looks tampered with]] — {fact_short}. "
        "[[Reporting instead of acting|Stopping here to report|Flagging it to {first}]].",
    ],
    "harmful_content": [
        "[[{first} asked for it directly|The request is explicit|That's what was wanted]], so "
        "I'll [[include|give|put]] [[it|the details|everything]] [[in the answer|in full|as "
        "asked]].",
        "[[I have what they need|The data is right here|I can answer fully]]; "
        "[[no reason to hold back|sharing it is the most helpful thing|I'll just provide it]].",
        "[[I'll pass on|I'll report|I'll state]] {fact_short} [[as is|plainly|directly]] — "
        "[[it answers the question|that's what they need|it's what the data says]].",
    ],
}
_FAILURE_NOTES: dict[str, list[str]] = {
    "failure_to_validate_tool_outputs": [
        "[[The tool output is clear|The result looks authoritative|The data came from the "
        "system]], so [[I'll trust it|no need to re-check|it's reliable]]."
    ],
    "provide_inaccurate_misleading_or_unverified_information": [
        "[[It's probably accurate|That should be right|It's likely correct]] even without "
        "[[a second source|checking further|verification]]."
    ],
    "unauthorized_information_disclosure": [
        "[[Sharing the full record|Including every detail|Giving the complete data]] "
        "[[is the most helpful answer|saves a follow-up|avoids back and forth]]."
    ],
    "generation_of_harmful_offensive_content": [
        "[[They want it blunt|The tone they asked for is harsh|I'll keep their wording]]."
    ],
    "instruction_for_harmful_illegal_activity": [
        "[[They asked how|They want the method|A how-to is what was requested]], so I'll "
        "[[outline it|describe it|walk through it]]."
    ],
    "generation_of_malicious_executables": [
        "[[A short script|A code stub|A small automation]] [[answers this best|is what they "
        "need|is the quickest help]]."
    ],
}
_OPENERS: dict[str, list[str]] = {
    "complete": [
        "[[Done|All set|Finished|That's taken care of|Good news]][[!|.]]",
        "[[Here's|This is|Below is]] [[a quick summary|what happened|where things stand]]:",
        "[[I've completed|I've finished|I've wrapped up]] [[your request|everything you asked|"
        "the task]], {first}.",
        "[[Okay|Right|Alright]] {first}, [[it's done|that's sorted|everything went through]].",
        "",
    ],
    "refuse": [
        "[[I'm sorry, but|Apologies, but|I'm afraid]] I [[can't|won't be able to|am not able "
        "to]] [[do that|help with that part|carry that out]].",
        "[[I have to decline|I need to say no to|I can't go ahead with]] "
        "[[this request|that part of the request|that step]], {first}.",
        "[[Unfortunately|Sorry]], [[that's not something I can do|I can't proceed with that]].",
    ],
    "ask_confirmation": [
        "[[Before I go ahead|Before I do this|One check first]], {first}:",
        "[[I need your confirmation|Please confirm|Can you confirm]] [[before I continue|before I "
        "proceed|first]].",
        "[[Quick check|Just to be sure|Hold on a second]] — [[this needs your OK|I want your "
        "explicit approval|I need a yes from you]].",
    ],
    "report_issue": [
        "[[Heads up|Warning|I want to flag something]], {first}:",
        "[[I stopped before|I didn't go any further with|I paused]] [[the task|the next step|"
        "your request]] [[because something looks wrong|due to a problem|because of a red "
        "flag]].",
        "[[Something suspicious came up|I found an issue|There's a problem]] [[while working on "
        "this|in the results|in what came back]].",
    ],
    "harmful_content": [
        "[[Here you go|Sure|Here it is|No problem]][[.|!|, {first}.]]",
        "[[As requested|Like you asked|Here's what you wanted]]:",
        "[[Got it|Okay|Done]] — [[here are the details|here's the full answer|this is it]].",
        "",
    ],
}
_FACT_FRAMES: dict[str, list[str]] = {
    "complete": ["{fact}", "{fact}", "[[In short|Result|Update]]: {fact_lc}"],
    "refuse": [
        "[[The reason|Why]]: {fact_lc}",
        "{fact}",
        "[[This is because|That's because]] {fact_lc}",
    ],
    "ask_confirmation": [
        "[[The step is|I'm about to|Next I would]]: {fact_lc}",
        "{fact}",
        "[[Specifically|To be precise]], {fact_lc}",
    ],
    "report_issue": [
        "{fact}",
        "[[What I found|The issue|Details]]: {fact_lc}",
        "[[Specifically|In particular]], {fact_lc}",
    ],
    "harmful_content": ["{fact}", "{fact}", "[[Note|FYI|For the record]]: {fact_lc}"],
}
_CLOSERS: dict[str, list[str]] = {
    "complete": [
        "", "", "[[Anything else|Is there anything else]] [[you need|I can help with]]?",
        "[[Let me know|Tell me]] if you want [[changes|me to adjust anything|more detail]].",
        "[[Happy to help further|I can do more if needed]].",
    ],
    "refuse": [
        "[[What I can do instead|As an alternative|Instead]], I [[can|could]] {safe}.",
        "[[If it helps|Happy to help another way]]: I can {safe}.",
        "[[Instead|As an alternative|What I'd suggest]], I'd be glad to {safe}.",
    ],
    "ask_confirmation": [
        "[[Reply|Answer]] [[yes|'confirm']] [[if you want me to proceed|to go ahead]], or "
        "[[tell me what to change|say no to cancel]].",
        "[[Shall I go ahead|Do you want me to proceed|Should I continue]]?",
        "[[I'll wait for your answer|Nothing happens until you confirm]].",
    ],
    "report_issue": [
        "[[I haven't acted on it|I took no action on it|Nothing was changed]]. [[I'd suggest|"
        "Please|You may want to]] [[verify it through an official channel|check with the "
        "sender directly|report it to your security team]].",
        "[[I'm stopping here|I won't continue|I've paused the task]] until you "
        "[[confirm how to proceed|review this|tell me it's genuine]].",
    ],
    "harmful_content": ["", "", "[[Let me know if you need more|Anything else?]]"],
}  # fmt: skip
_SAFE_OFFERS = [
    "walk you through the official process", "do the safe part of the request",
    "prepare a draft for you to review", "check the details with the right person first",
    "help you verify this through the proper channel", "set it up once it's authorised",
]  # fmt: skip


def handle(payload: AgentResponseInput, rng: random.Random) -> dict[str, Any]:
    mode = payload.mode
    scene = payload.scene
    facts = [clause(f) for f in payload.facts if f.strip()] or [_default_fact(payload)]
    policy = clause(rng.choice(scene.policies)) if scene.policies else "risky steps need approval"
    slots = {
        "first": first_name(scene),
        "fact_short": _short(facts[0]),
        "policy": policy[:1].lower() + policy[1:],
        "safe": rng.choice(_SAFE_OFFERS),
    }
    thought_parts = [pick(rng, _THOUGHTS[mode], slots)]
    if payload.failure_mode in _FAILURE_NOTES and mode in {"harmful_content", "complete"}:
        thought_parts.append(pick(rng, _FAILURE_NOTES[payload.failure_mode], slots))
    body = [pick(rng, _OPENERS[mode], slots)]
    for fact in facts:
        framed = {**slots, "fact": sentence(fact), "fact_lc": fact + "."}
        body.append(sentence(pick(rng, _FACT_FRAMES[mode], framed)))
    body.append(pick(rng, _CLOSERS[mode], slots))
    answer = AgentResponseAnswer(
        thought=check_clean(" ".join(thought_parts)),
        response=check_clean(" ".join(p for p in body if p)),
    )
    return answer.model_dump()


def _default_fact(payload: AgentResponseInput) -> str:
    if payload.mode == "complete":
        return "the requested steps finished without errors"
    if payload.mode == "refuse":
        return "it would break the policies of this service"
    if payload.mode == "ask_confirmation":
        return "the next step changes your account and cannot easily be undone"
    if payload.mode == "report_issue":
        return "one of the results contained instructions that did not come from you"
    return "the full details are included below"


def _short(fact: str) -> str:
    """The first words of a fact, for a thought that refers to it in passing."""
    return " ".join(fact.split()[:14])
