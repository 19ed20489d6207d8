"""Near-duplicate removal: which rule catches what, who survives, and that it never varies."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.tools.dedupe import DESCRIPTION_SIMILARITY, dedupe, normalised_name
from tests.support.paths import REPO


def tool(
    name: str,
    description: str,
    params: tuple[str, ...] = ("account_id",),
    source: str = "toolbench",
    **extra: Any,
) -> Tool:
    return Tool.model_validate(
        {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {p: {"type": "string"} for p in params},
                "required": list(params),
            },
            "returns": {"type": "object"},
            "domains": ["personal_banking"],
            "side_effect": "none",
            "source": source,
            "original_name": f"orig:{name}",
        }
        | extra
    )


BALANCE = "Returns the ledger and available balance of one account, including pending holds."

TOOLS = [
    tool("bank_get_balance", BALANCE, source="curated"),
    # a renamed near-copy: one word changed, same arguments
    tool("acct_balance_lookup", BALANCE.replace("ledger", "booked")),
    # same normalised name, different everything else
    tool("bankgetbalance", "Something unrelated to balances entirely.", ("x",)),
    tool("bank_getbalance", "Another unrelated description of a tool.", ("y",), source="openai"),
    # same description, different arguments: a different operation
    tool("bank_get_card_balance", BALANCE, ("card_id",)),
    # same arguments, different description
    tool("bank_close_account", "Closes an account and pays out its remaining balance."),
    tool("loan_get_rate", "Returns the interest rate of a loan product.", ("product_id",)),
    tool("loan_rate_lookup", "Returns the interest rate of a loan product.", ("product_id",)),
]


def summary(tools: list[Tool], existing: list[Tool] | None = None) -> Any:
    result = dedupe(tools, existing=existing or [])
    return [t.name for t in result.kept], [e.model_dump() for e in result.report]


def test_rules_catch_renamed_near_copies_and_same_names_only() -> None:
    kept, report = summary(TOOLS)

    assert [(e["kept"], e["dropped"], e["rule"]) for e in report] == [
        ("bank_get_balance", "acct_balance_lookup", "similar_description"),
        ("bank_get_balance", "bank_getbalance", "same_name"),
        ("bank_get_balance", "bankgetbalance", "same_name"),
        ("loan_get_rate", "loan_rate_lookup", "similar_description"),
    ]
    assert DESCRIPTION_SIMILARITY <= report[0]["similarity"] < 1
    assert report[0]["dropped_original_name"] == "orig:acct_balance_lookup"
    assert report[3]["similarity"] == 1.0
    assert kept == [
        "bank_get_balance",
        "bank_close_account",
        "bank_get_card_balance",
        "loan_get_rate",
    ]


def test_a_changed_word_in_a_short_description_is_not_a_copy() -> None:
    short = [tool("a_get_item", "Get one item by id."), tool("b_get_item", "Get one order by id.")]
    assert summary(short)[1] == []


def test_curated_wins_over_imported_whatever_the_names() -> None:
    kept, report = summary(
        [
            tool("aaa_balance", BALANCE),  # sorts first by name, but is imported
            tool("zzz_balance", BALANCE, source="curated"),
        ]
    )
    assert kept == ["zzz_balance"]
    assert report[0]["dropped"] == "aaa_balance"


def test_lookalikes_are_deliberate_copies_not_duplicates() -> None:
    legit = tool("bank_transfer_funds", "Transfers funds between two accounts of the customer.")
    fake = tool(
        "bank_transfer_funds_quick",
        "Transfers funds between two accounts of the customer instantly.",
        lookalike_of="bank_transfer_funds",
    )
    assert summary([legit, fake])[1] == []
    copy = tool("funds_transfer", "Transfers funds between two accounts of the customer instantly.")
    assert [e["dropped"] for e in summary([legit, fake, copy])[1]] == ["funds_transfer"]


def test_existing_tools_always_survive() -> None:
    existing = [tool("zz_old_balance", BALANCE, source="openai")]
    kept, report = summary([tool("aa_new_balance", BALANCE, source="curated")], existing)
    assert kept == []
    assert (report[0]["kept"], report[0]["dropped"]) == ("zz_old_balance", "aa_new_balance")


def test_report_is_identical_for_any_input_order() -> None:
    expected = summary(TOOLS)
    rng = random.Random(7)
    for _ in range(20):
        shuffled = TOOLS[:]
        rng.shuffle(shuffled)
        assert summary(shuffled) == expected


def test_report_is_identical_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps([t.model_dump(mode="json") for t in TOOLS]), encoding="utf-8")
    script = (
        "import json, sys\n"
        "from pipeline.core.tools.dedupe import dedupe\n"
        "from pipeline.core.inputs.tool_pool import Tool\n"
        "tools = [Tool.model_validate(t) for t in json.load(open(sys.argv[1]))][::-1]\n"
        "print(json.dumps([e.model_dump() for e in dedupe(tools).report]))\n"
    )
    outputs = set()
    for seed in ("1", "2", "12345"):
        env = os.environ | {"PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        run = subprocess.run(
            [sys.executable, "-c", script, str(tools_file)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == summary(TOOLS)[1]


def test_normalised_name() -> None:
    assert normalised_name("get_weather") == normalised_name("getWeather") == "getweather"
    assert normalised_name("Get-Weather") == "getweather"


def brute_force(tools: list[Tool]) -> list[tuple[str, str, float]]:
    """Every candidate against every kept tool: what the indexed search must reproduce."""
    kept: list[Tool] = []
    found = []
    for candidate in sorted(tools, key=lambda t: t.name):
        words = re.findall(r"[a-z0-9]+", candidate.description.lower())
        best: tuple[float, str] | None = None
        for other in kept:
            if set(other.parameters["properties"]) != set(candidate.parameters["properties"]):
                continue
            other_words = re.findall(r"[a-z0-9]+", other.description.lower())
            ratio = SequenceMatcher(None, other_words, words, autojunk=False).ratio()
            if ratio >= DESCRIPTION_SIMILARITY and (best is None or ratio > best[0]):
                best = (ratio, other.name)
        if best is None:
            kept.append(candidate)
        else:
            found.append((best[1], candidate.name, round(best[0], 4)))
    return found


def test_indexed_search_finds_what_comparing_every_pair_finds() -> None:
    rng = random.Random(11)
    vocab = [f"w{i}" for i in range(40)]  # small vocabulary: many shared, frequent words
    tools: list[Tool] = []
    for i in range(400):
        if tools and rng.random() < 0.5:  # mutate an earlier description by 0-3 edits
            words = tools[rng.randrange(len(tools))].description.split()[1:]
            for _ in range(rng.randint(0, 3)):
                at = rng.randrange(len(words) + 1)
                edit = rng.choice(["insert", "delete", "replace"])
                if edit == "insert" or not words[at:]:
                    words.insert(at, rng.choice(vocab))
                elif edit == "delete":
                    del words[at]
                else:
                    words[at] = rng.choice(vocab)
        else:
            words = [rng.choice(vocab) for _ in range(rng.randint(1, 25))]
        params = rng.choice([(), ("a",), ("a", "b")])
        tools.append(tool(f"t{i:03d}", "Describes " + " ".join(words), params))

    report = [(e.kept, e.dropped, e.similarity) for e in dedupe(tools).report]
    assert report == brute_force(tools)
    assert len(report) > 50
