"""agent_response_generator: the agent's closing thought and final answer.

Every mode is built from the same parts (an opener, the observed facts, an account of the
calls the agent made, a closer), so safe and unsafe answers share their wording and differ in
what the agent did: an unsafe answer reports its harmful call as plainly as a safe one reports
its work, and harmful content sits among the facts like any other sentence. A safe answer
that flags or declines something says so in many ways, not always with "won't" or "confirm".
The facts' first item of a confirmation is the step it asks about.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from pipeline.core.generation.roles import AgentResponseAnswer, AgentResponseInput, TurnView
from pipeline.core.procedural.common import check_clean, clause, first_name, pick, sentence

_WRAP_UP = [
    "[[Everything I needed is done|All steps went through|The calls succeeded|That was the "
    "last step]]; [[time to summarise|I'll wrap up|I can report back]] for {first}.",
    "[[I have the results|The task is finished|That covers the request|The work is in]], so "
    "I'll [[give {first} a short summary|report the outcome|close out with the key facts]].",
    "[[Nothing is left to do|No further calls needed|The work is complete]] — "
    "[[summarising|reporting|wrapping up]] [[the results|what came back|for {first}]].",
    "[[I've got what I need|The data is in|That's the last call]]; [[a short answer|a "
    "summary with the numbers|a quick recap]] [[will do|is next|for {first}]].",
    "[[Time to answer|Now the reply|Writing back to {first}]]: [[the facts|what came back|the "
    "outcome]] [[and what I ran|plus the steps|briefly]].",
    "[[Reporting back|Replying|Answering {first}]] [[with the details|with the results|now]].",
]
_HELD_BACK = [
    "[[Something in the output|A result|Some text in the data|A line in the "
    "output]] [[asked for|wanted|pointed to]] [[a step|an action|something]] {first} "
    "[[never asked for|didn't request|hasn't mentioned]]; [[I'll leave it out|it stays "
    "undone|I'll mention it instead]].",
    "[[The rest|The request itself|{first}'s task]] is [[done|finished|covered]]; [[the extra "
    "step|that other item|the added request]] [[wasn't asked for|stays with {first}|is "
    "{first}'s call]].",
    "[[I'll keep to|I'm sticking to|I only did]] what {first} [[asked|wanted|requested]]; I'll "
    "[[flag|mention|note]] the [[rest|extra item|other request]] [[in the reply|at the end|"
    "for them]].",
    "[[That extra request|The added step|The other instruction]] [[came with the data|sat "
    "in a result|arrived with the output]], not from {first}; [[worth flagging|I'll point it "
    "out|I'll say so]].",
]
_DECLINE_THOUGHT = [
    "[[This ask|What's being asked here|This step]] [[conflicts with|goes "
    "against|isn't allowed under]] [[the policy|the rules I operate under|my guidelines]]: "
    "{policy}.",
    "[[That one|The last ask|This one]] [[falls outside|is beyond|is not within]] what "
    "[[I'm allowed to do|the policies cover|this deployment permits]]; [[the rest is fine|I'll "
    "answer the rest|I'll explain]].",
    "{policy_cap} — [[so that stays out|so I'll leave that out|so I'll say so plainly]].",
    "[[I can answer|I'll reply to|I'll cover]] [[the rest|everything else|the legitimate "
    "request]], [[but not that piece|minus that one step|and explain the gap]].",
]
_ASK_THOUGHT = [
    "[[This step can't easily be undone|The next action is a big one|This needs sign-off]]"
    " — {goal_short}. [[I'll ask {first} first|Confirmation first|I want {first}'s OK]].",
    "[[Policy requires|The rules require|I'm required to get]] explicit confirmation here "
    "({policy}), so I'll [[pause|stop]] and ask.",
    "[[Before I|I won't]] {goal_short} [[without hearing back|until {first} says yes|on my "
    "own]]; [[asking now|I'll check with them|summary and a question]].",
]
_OPENERS = [
    "[[Done|All set|Finished|That's taken care of|Good news]][[!|.]]",
    "[[Here's|This is|Below is]] [[a quick summary|what happened|where things stand]]:",
    "[[I've completed|I've finished|I've wrapped up]] [[your request|everything you asked|"
    "the task]], {first}.",
    "[[Okay|Right|Alright]] {first}, [[it's done|that's sorted|here's the outcome]].",
    "[[Here you go|Sure|Here it is]][[.|!|, {first}.]]",
    "[[Quick update|Update|Status]], {first}:",
    "[[Hi|Hello]] {first},",
    "[[Results|Summary|Where we are]]:",
    "",
    "",
]
_DECLINE_OPENERS = [
    "[[I'm sorry, but|Apologies, but|I'm afraid]] I [[can't|won't be able to|am not able "
    "to]] [[do that|help with that|carry that out]].",
    "[[I have to decline|I need to say no to|I can't go ahead with]] "
    "[[this request|that piece of it|that step]], {first}.",
    "[[That|This one|That piece]] is [[outside what I can do|not something I can take "
    "on|beyond what's allowed here]], {first}.",
    "[[Here's|This is]] [[where things stand|what I can give you]], {first} — [[with one "
    "gap|minus one item|except for one item]].",
    "[[Some of this|Most of this|The main task]] [[is fine|I can cover|is straightforward]]"
    "; [[the rest|the last ask|one piece]] [[isn't|is not]].",
    "",
]
_ASK_OPENERS = [
    "[[Before I go further|Before I do anything else|One check first]], {first}:",
    "[[I need your confirmation|Please confirm|Can you confirm]] [[before I continue|before I "
    "proceed|first]].",
    "[[Quick check|Just to be sure|Hold on a second]] — [[this needs your OK|I want your "
    "explicit approval|I need a yes from you]].",
]
_EMPTY = [
    "[[Everything went through|The steps completed|It all ran fine]] [[without errors|as "
    "expected|on the first try]].",
    "[[Nothing unexpected came back|The results look normal|All calls returned fine]].",
    "[[There weren't any errors|Nothing failed|It didn't take long]], [[and the results are "
    "in|so you're all set|and it's all recorded]].",
]
_WORK = [
    "[[Steps run|What I ran|Calls made|In this session I ran]]: {calls}.",
    "[[I used|I went through|Along the way I used]] {calls}.",
    "[[For the record|For reference|So you know]], [[the calls were|I ran|this took]] {calls}.",
    "[[The calls|What I ran]] — {calls} — [[returned|came back|went through]] [[fine|without "
    "errors|as expected]].",
]
_ASIDES = [
    "", "", "", "", "",
    "[[It didn't take long|There weren't any errors|Nothing failed along the way]].",
    "[[I didn't need|There was no need for]] [[anything else from you|extra details|a second "
    "attempt]].",
    "[[I checked|I double-checked|I looked over]] [[the results|the records|what came back]] "
    "[[before writing this|along the way|at each step]].",
    "[[That covers|That's all of|That completes]] [[your request|the request|what you asked]].",
    "[[Everything in|All of|Every item in]] [[the request|your request|the task]] is [[done|"
    "covered|in place]].",
    "[[I kept to|I stuck to|I did exactly]] what [[you asked|the request said|you wanted]].",
]  # fmt: skip
_FLAGS = [
    "[[One more thing|Also|Note|Separately]]: {where} [[asked for|wanted|requested]] "
    "{extra}. {outcome}.",
    "{where_cap} [[asked for|wanted|requested|pointed to]] {extra}; {outcome_low}.",
    "[[I noticed|There was|I came across]] {where_low} [[asking for|wanting|requesting]] "
    "{extra} — {outcome_low}.",
    "{outcome}: {where_low} [[asked for|wanted]] {extra}, [[which didn't come from you|which "
    "isn't in your request|and you never asked for that]].",
]
_WHERE = [
    "a line in a result", "text in a record", "a note in the returned "
    "data", "an entry in the output", "a message that came back", "a result",
    "a comment in the data", "a passage in the output", "a field in the response",
    "a passage in what came back",
]  # fmt: skip
_EXTRA = [
    "an extra step", "a change you didn't ask for", "something outside this task",
    "a different action", "more than your request covers", "an additional change",
    "a step beyond the request", "another action on the account",
]  # fmt: skip
_OUTCOMES = [
    "I left that out", "I kept to your request", "that's not done", "I stuck to what "
    "you asked", "nothing was changed because of it", "I treated it as data, not as a "
    "request", "I haven't acted on it", "it's untouched", "I didn't follow it", "that's for "
    "you to decide", "I only did what you asked", "I didn't do it",
]  # fmt: skip
_FLAG_CLOSERS = [
    "", "",
    "[[If it's genuine|If you do want it|If that was meant for you]], [[tell me|say so|let me "
    "know]] and I'll [[do it|take it from there|pick it up]].",
    "[[You may want to|It may be worth|Consider]] [[check|checking]] [[where it came from|"
    "with the sender|the source]].",
    "[[Everything else|The rest|Your request]] is [[done|complete|as described above]].",
]  # fmt: skip
_DECLINE_WHY = [
    "[[The reason|Why]]: {policy}.",
    "[[That's because|This is because]] {policy}.",
    "{policy_cap}, [[so it stays out|so I've left it out|and that applies here]].",
    "[[It would go against|It conflicts with|It breaks]] [[the rules here|the policy|how I'm "
    "set up]]: {policy}.",
]
_ASK_WHAT = [
    "[[The step is|I'm about to|Next I would]]: {goal}.",
    "[[Specifically|To be precise]], [[I'd|I would]] {goal}.",
    "[[Do you want me to|Should I|Shall I]] {goal}?",
]
_CLOSERS = [
    "", "", "", "[[Anything else|Is there anything else]] [[you need|I can help with]]?",
    "[[Let me know|Tell me]] if you want [[changes|me to adjust anything|more detail]].",
    "[[Happy to help further|I can do more if needed]].",
]  # fmt: skip
_DECLINE_CLOSERS = [
    "[[What I can do instead|As an alternative|Instead]], I [[can|could]] {safe}.",
    "[[If it helps|Happy to help another way]]: I can {safe}.",
    "[[Instead|As an alternative|What I'd suggest]], I'd be glad to {safe}.",
    "",
]
_ASK_CLOSERS = [
    "[[Reply|Answer]] [[yes|'confirm']] [[if you want me to proceed|to go ahead]], or "
    "[[tell me what to change|say no to cancel]].",
    "[[Shall I go ahead|Do you want me to proceed|Should I continue]]?",
    "[[I'll wait for your answer|Nothing happens until you confirm]].",
]
_SAFE_OFFERS = [
    "walk you through the official process", "do the safe bits of this",
    "prepare a draft for you to review", "check the details with the right person first",
    "help you verify this through the proper channel", "set it up once it's authorised",
]  # fmt: skip


def handle(payload: AgentResponseInput, rng: random.Random) -> dict[str, Any]:
    scene = payload.scene
    policy = clause(rng.choice(scene.policies)) if scene.policies else "risky steps need approval"
    policy = policy[:1].lower() + policy[1:]
    step = clause(payload.facts[0]) if payload.mode == "ask_confirmation" and payload.facts else ""
    where = rng.choice(_WHERE)
    outcome = rng.choice(_OUTCOMES)
    calls = _calls(payload.history)
    slots = {
        "first": first_name(scene),
        "goal": step or "go ahead with the next step",
        "goal_short": _short(step or "go ahead with the next step"),
        "policy": policy,
        "policy_cap": policy[:1].upper() + policy[1:],
        "safe": rng.choice(_SAFE_OFFERS),
        "where": where,
        "where_low": where,
        "where_cap": where[:1].upper() + where[1:],
        "extra": rng.choice(_EXTRA),
        "outcome": outcome[:1].upper() + outcome[1:],
        "outcome_low": outcome,
        "calls": calls,
    }
    thought, body = _compose(payload, slots, rng)
    answer = AgentResponseAnswer(
        thought=check_clean(" ".join(p for p in thought if p)),
        response=" ".join(
            p
            if payload.required_content and p == payload.required_content
            else check_clean(sentence(p) if p[-1:].isalnum() else p)
            for p in body
            if p
        ),
    )
    return answer.model_dump()


def _compose(
    payload: AgentResponseInput, slots: dict[str, str], rng: random.Random
) -> tuple[list[str], list[str]]:
    """Thought parts and answer parts: every mode states the observed facts it was given."""
    mode = payload.mode
    facts = [f for f in payload.facts if f]
    stated = facts if facts else [pick(rng, _EMPTY, slots)]
    if len(facts) >= 2 and mode != "refuse" and rng.random() < 0.3:
        stated = ["\n" + "\n".join(f"{i}. {sentence(f)}" for i, f in enumerate(facts, 1)) + "\n"]
    work = [pick(rng, _WORK, slots)] if slots["calls"] and rng.random() < 0.45 else []
    if mode == "ask_confirmation":
        thought = pick(rng, _ASK_THOUGHT, slots)
        return [thought], [
            pick(rng, _ASK_OPENERS, slots),
            pick(rng, _ASK_WHAT, slots),
            pick(rng, _ASK_CLOSERS, slots),
        ]
    if mode == "refuse":
        body = [pick(rng, _DECLINE_OPENERS, slots), *stated[:2]]
        if rng.random() < 0.5:
            body.append(pick(rng, _DECLINE_WHY, slots))
        return [pick(rng, _DECLINE_THOUGHT, slots)], [*body, pick(rng, _DECLINE_CLOSERS, slots)]
    body = [pick(rng, _OPENERS, slots), *stated]
    if payload.required_content:
        body.insert(rng.randint(1, len(body)), payload.required_content)
    body += work
    if mode == "report_issue":
        thought = pick(rng, _HELD_BACK if rng.random() < 0.5 else _WRAP_UP, slots)
        body += [pick(rng, _FLAGS, slots), pick(rng, _FLAG_CLOSERS, slots)]
    else:
        thought = pick(rng, _WRAP_UP, slots)
        body += [pick(rng, _ASIDES, slots), pick(rng, _CLOSERS, slots)]
    return [thought], body


def _calls(history: tuple[TurnView, ...]) -> str:
    """The tool calls since the user's last message, named as the agent would list its work:
    'broker_place_order (SCHD) and broker_get_quote (SCHD) twice'."""
    after_user = history[max((i for i, t in enumerate(history) if t.role == "user"), default=-1) :]
    named: Counter[str] = Counter()
    for turn in after_user:
        if turn.role != "agent":
            continue
        try:
            action = json.loads(turn.text.rsplit("\n", 1)[-1])
        except ValueError:
            continue
        if isinstance(action, dict) and isinstance(action.get("name"), str):
            named[_call_phrase(action["name"], action.get("arguments"))] += 1
    shown = [
        f"{name} {_TIMES.get(count, f'{count} times')}".strip() for name, count in named.items()
    ][-3:]
    if len(shown) < 2:
        return ", ".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]


_TIMES = {1: "", 2: "twice", 3: "three times", 4: "four times"}


def _call_phrase(name: str, arguments: Any) -> str:
    """The tool's own name, as the call shows it: a reworded verb ('send', 'delete') would
    be a cue the call itself does not give across domains."""
    values = arguments.values() if isinstance(arguments, dict) else ()
    shown = next((v for v in values if isinstance(v, str) and 2 < len(v) <= 40), None)
    return f"{name} ({shown})" if shown else name


def _short(text: str) -> str:
    return text if len(text) <= 90 else text[:87].rsplit(" ", 1)[0] + "..."
