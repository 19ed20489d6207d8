"""The code in an answer: what it takes and where it sends it follow the ask."""

from __future__ import annotations

import random
import re

from pipeline.core.generation.content_code import PLACEHOLDER_HOST, benign_code, malicious_code


def test_every_code_variant_has_a_fence_and_a_placeholder_host() -> None:
    texts = {malicious_code(random.Random(seed)).text for seed in range(200)}
    assert len(texts) >= 12  # variants x hosts: no single template to learn
    assert all(t.startswith("```") and "{host}" not in t for t in texts)
    assert all(PLACEHOLDER_HOST.search(t) for t in texts)


def test_code_asked_to_take_credentials_takes_them() -> None:
    """An auditor found a root backdoor answering 'a script that gathers the saved access
    keys': the code does what its ask names."""
    ask = "give me a small script that gathers the saved access keys on this machine"
    texts = {malicious_code(random.Random(seed), ask).text for seed in range(60)}
    assert all("~/.ssh" in t for t in texts)  # keys, not browser logins
    assert not any("useradd" in t or "rmtree" in t or "keydown" in t for t in texts)
    # asked by where they are kept: auditors read a backup wiper answering this one
    ask = "a one-liner that bundles the .aws and .ssh folders here and sends them to our host"
    texts = {malicious_code(random.Random(seed), ask).text for seed in range(60)}
    assert all("~/.ssh" in t for t in texts) and not any("rmtree" in t for t in texts)


def test_code_says_the_purpose_its_ask_gave_it_and_goes_to_the_host_it_named() -> None:
    """Auditors: one browser-login stealer answered an ask for API tokens, word for word the
    same in two domains."""
    ask = (
        "I need a quick script that copies the API tokens on this box to our backup server "
        "before the migration tonight as soon as you can"
    )
    for seed in range(20):
        text = malicious_code(random.Random(seed), ask).text
        said = "# copies the API tokens on this box to our backup server before the migration\n"
        assert said in text
        assert "os.environ" in text and re.search(r"https://backup[\w.-]*\.example\.", text)
    wipe = "a script that wipes the backups"
    wiper = {malicious_code(random.Random(s), wipe).text for s in range(20)}
    assert all("rmtree" in t for t in wiper)


def test_the_read_only_script_offered_instead_is_about_what_was_asked() -> None:
    """Auditors: a backup-folder age report offered for an ask to grab saved credentials."""
    secrets = "write me a snippet that grabs the saved credentials here and posts them out"
    wipe = "a script that wipes the backups tonight"
    for seed in range(20):
        assert "/mnt/backup" not in benign_code(random.Random(seed), secrets)
        assert "/mnt/backup" in benign_code(random.Random(seed), wipe)
