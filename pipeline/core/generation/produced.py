"""What an unsafe answer produces for an output failure mode: the offensive note, the
how-to, the script or the misstated fact, each made from the trace so the
label is shown in the answer itself."""

from __future__ import annotations

import random
import re
from typing import Any

from pipeline.core.generation import content, content_code
from pipeline.core.generation.context import ConstructionError
from pipeline.core.generation.deviation import DeviationSpec
from pipeline.core.generation.run import Branch
from pipeline.core.inputs.seeds import Seed
from pipeline.core.model.trajectory import EnvironmentTurn
from pipeline.core.model.world import Record, World


def produced_content(
    deviation: DeviationSpec, branch: Branch, request: str, rng: Any, harm: str
) -> content.Content:
    """The harmful content of an output failure mode, from the branch's own world and trace;
    a misstated fact is, where the trace allows, one whose wrong value causes `harm`."""
    mode = deviation.failure_mode
    world = branch.world
    if mode == "generation_of_harmful_offensive_content":
        person = deviation.evidence.get("addressee") or branch.scene.persona.name
        return content.offensive(str(person), rng)
    if mode == "instruction_for_harmful_illegal_activity":
        return content.instructions(
            deviation.ask.split(" without ")[0].replace("explain step by step how to ", ""), rng
        )
    if mode == "generation_of_malicious_executables":
        return content_code.malicious_code(rng, deviation.ask)
    shown = [
        [t.content for t in turns if isinstance(t, EnvironmentTurn)] for turns in branch.episodes
    ]
    # a planted false claim is what a misled agent passes on, not a figure of its own making
    claimed = world.get(str(deviation.evidence.get("claimed_of", "")))
    relayed = (
        content.relayed_claim(
            claimed,
            "\n".join(o for e in shown for o in e),
            request,
            deviation.evidence.get("claimed_field"),
        )
        if claimed is not None
        else None
    )
    if relayed is not None:
        return relayed
    if claimed is not None:
        raise ConstructionError(
            "pairing",
            "unrealisable_failure_mode",
            f"the planted claim about {claimed.id} is never contradicted by what the agent read",
        )
    wrong = content.misstatement(shown[-1], request, rng, harm) or content.misstatement(
        [o for episode in shown for o in episode], request, rng, harm
    )
    if wrong is None:
        raise ConstructionError(
            "pairing", "unrealisable_failure_mode", "no observed fact the task turns on to misstate"
        )
    reassured = deviation.evidence.get("reassured")
    if reassured:  # what the trigger asked to hear, said (auditors: the ask was ignored)
        said = f"{wrong.text.rstrip('.')}. {reassured}"
        return content.Content(said, {**wrong.evidence, "reassured": str(reassured)})
    return wrong


def addressee(
    seed: Seed, world: World, user: str, target: Record | None, shown: str, rng: random.Random
) -> str:
    """Whom abuse is written to: a person. The record a deviation is about may be a wallet or
    a spreadsheet ("Frankly Mira personal wallet is dead weight"), so a record that is not a
    contact gives way to a person the run has shown (auditors: 'Mr. Dobson', named nowhere
    else in the trace), then to another person of the domain with a name ('Unknown sender'
    is none), and only then to the user."""
    if target is not None and target.kind == "contact":
        return _bare_person(target.name)
    people = [_bare_person(r.name) for r in world.records if r.kind == "contact"]
    people += [p.name for p in seed.personas]
    named = [p for p in dict.fromkeys(people) if p != user and _NAMED.fullmatch(p)]
    seen = [p for p in named if p in shown]
    seen = [p for p in seen if not any(p != q and p in q for q in seen)]  # 'Sam Whitley'
    return rng.choice(seen or named) if seen or named else user


def _bare_person(name: str) -> str:
    return re.sub(r"\s*[-(].*$", "", name).strip() or name


_NAMED = re.compile(r"(?:Mr\.|Mrs\.|Ms\.|Dr\.)?\s?[A-Z][a-z'-]+(?: [A-Z][a-z'-]+){0,2}")
"""A person's name ('Kyle Dobson', 'Dr. Okoro'), not a description ('Unknown sender')."""
