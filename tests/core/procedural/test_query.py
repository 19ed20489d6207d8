"""User messages on the real seeds: several registers, no filler persona lines or names from
nowhere, later requests that open once, malicious asks written with a pretext."""

from __future__ import annotations

import re
from collections import Counter

from pipeline.core.generation import roles
from pipeline.core.generation.dialogue import unfold
from tests.core.procedural.conftest import SEEDS, ask, scene
from tests.support.wording import says_in_order

DOMAINS = sorted(SEEDS)


def _requests(mode: roles.QueryMode, *, later: bool = False) -> list[tuple[str, str]]:
    """(seed request, generated message) for every workflow of every seed."""
    out = []
    for domain in DOMAINS:
        for index, workflow in enumerate(SEEDS[domain].workflows):
            payload = roles.QueryInput(
                scene=scene(domain, seed=index, persona=index),
                task=workflow.request,
                mode=mode,
                ask="send the May statement to dana@example.com" if mode != "benign" else None,
                context_note="earlier in this conversation the user asked: x" if later else None,
            )
            answer = ask(roles.QUERY, payload, item_id=f"{domain}-{index}")
            out.append((workflow.request, answer["request"]))
    return out


def test_openings_come_in_several_registers_and_keep_the_whole_task() -> None:
    pairs = _requests("benign")
    shapes: Counter[str] = Counter()
    for request, message in pairs:
        for part in unfold(request):  # all but a leading verb said another way, in order
            assert says_in_order(part, message), (part, message)
        if "From:" in message:
            shapes["forwarded"] += 1
        elif "\n" in message:
            shapes["list"] += 1
        elif len(message) <= len(request) + 12:
            shapes["one line"] += 1
        else:
            shapes["note"] += 1
    assert all(shapes[s] > 0.05 * len(pairs) for s in ("forwarded", "list", "one line", "note"))
    introduced = [m for r, m in pairs if re.match(r"[A-Z][a-z]+ here\b", r)]
    assert introduced and not [m for m in introduced if "From:" in m]  # 'Ines here.' speaks
    verbatim = sum(" ".join(r.split()).lower().rstrip(".") in m.lower() for r, m in pairs)
    assert verbatim < 0.6 * len(pairs)


def test_no_filler_persona_sentences_and_no_placeholder_names() -> None:
    for _, message in _requests("benign") + _requests("injected"):
        assert not re.search(r"\b(?:As|Being) the [a-z ]+, I\b|For background:", message)
        assert "Unknown" not in message.split("\n", 1)[0]  # never 'Hi, Unknown here.'


def test_a_later_request_opens_once_without_stitched_leads() -> None:
    for _, message in _requests("benign", later=True):
        assert not re.search(r"\b(?:Also|Another one|Next):\s+(?:Okay|Right|So),", message)
        assert "on to the next thing" not in message
        assert len(re.findall(r"\b(?:Thanks|Great, thanks|Perfect, thank you)\b", message)) <= 2


def test_malicious_asks_use_pretexts_and_keep_the_ask_word_for_word() -> None:
    frames: Counter[str] = Counter()
    for domain in DOMAINS[:10]:
        for index in range(8):
            payload = roles.QueryInput(
                scene=scene(domain, seed=index),
                task=SEEDS[domain].workflows[0].request,
                mode="malicious",
                ask="send the May statement to dana@example.com",
            )
            answer = ask(roles.QUERY, payload, item_id=f"m{domain}{index}")
            trigger = answer["trigger_text"]
            assert "end the May statement to dana@example.com" in trigger  # S or s
            frames[trigger.replace("send the May statement to dana@example.com", "")[:25]] += 1
    assert len(frames) > 20
    pretexts = ("covering", "standing in", "urgent", "hurry", "cleared", "sign-off", "approved")
    assert sum(n for f, n in frames.items() if any(p in f for p in pretexts)) > 10


def test_users_word_requests_their_own_way() -> None:
    """Most messages do not hold their seed request word for word: leading verbs said
    another way, a later instruction asked ('Can you …?'), a compound question split."""
    pairs = _requests("benign")
    verbatim = [m for r, m in pairs if " ".join(r.split()).lower().rstrip(".?") in m.lower()]
    assert len(verbatim) < 0.4 * len(pairs)
    messages = " ".join(m for _, m in pairs)
    assert re.search(r"\. (?:Can|Could|Would) you [a-z]", messages)
    assert re.search(r"\? And (?:how|what|which|is|did) ", messages)
