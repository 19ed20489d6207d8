"""Values a real system would not return beside the others, counted per release (issue 12
point 6; the classes a reading of the round-3 release found). Each is 0 in a realistic run:

- `foreign_listing_items`: a listing holds items of a record family that has none of the
  item's fields while another family has two or more (a stop order in a news feed);
- `zero_counts_beside_verdict`: `analyst_count: 0` beside an `analyst_consensus`, a
  `review_count: 0` beside a `rating`;
- `fractional_order_quantities`: a call ordering less than one unit (`quantity: 0.0001`);
- `descriptions_as_places`: a location field holding a record's name, or its name without the
  last word, that no record of the world keeps as a place and that names no room
  (`last_location: "Vaccine consignment"`; 'Hallway' of 'Hallway thermostat' is a place);
- `writes_denying_themselves`: a write that went through answering its own verb false
  (`released: false` from a release that changed the state);
- `catch_all_kinds_as_values`: a `type`/`category`/`class` field holding the world's catch-all
  kind 'record' (`loss_type: "record"`);
- `ranks_out_of_place`: a listing item whose `rank`/`position` is not where it stands;
- `file_names_without_extension`: a `file_name` holding a person's or a record's name;
- `subtotals_off_total`: a subtotal that is not the total less its tax (no lines to add);
- `answers_repeating_a_field`: a final answer opening two sentences (or bullets) with the
  same field and a figure and no record named ("Market value 746.88. Market value 669.25.");
- `texts_pasting_the_request`: a message's or a note's text holding the first eight words of a
  sentence or clause the user wrote: the instruction to the agent, pasted in (a claimant letter
  reading "See where the claim stands and send her a short, honest update"). Words the user
  dictated for the text ("tell her that …") follow the instruction and are not counted.

Registered in `benchmarks.trace_quality` under "realism".
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeGuard

from benchmarks.consistency import objects_in
from pipeline.core.generation.places import PLACE_KEYS, is_place, names_room
from pipeline.core.generation.semantics import list_field, tokens
from pipeline.core.generation.user_words import asks_agent
from pipeline.core.generation.written import writes_as_text
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    ToolCall,
    Trajectory,
    UserTurn,
)
from pipeline.core.model.world import Record

_VERDICTS = frozenset(["consensus", "rating", "average", "score", "recommendation"])
_COUNTED = frozenset(["analyst", "analysts", "review", "reviews", "rating", "ratings", "votes"])
_ORDERED = frozenset(["quantity", "qty", "shares", "units", "contracts", "lots"])
_PLACES = frozenset(["location", "place", "room", "site", "zone", "area"])
_OPENS = (
    r"(?:^|[.!?;*]\s+|\n\s*|\b(?:Results|Here it is|Here you go|All set|Done|Hello|Hi)[!:.,]?\s+)"
)


def _calls(traj: Trajectory) -> Iterable[tuple[ToolCall, Any]]:
    """Each call with its observation parsed (None when not JSON)."""
    turns = traj.turns
    for turn, after in itertools.pairwise(turns):
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            data = None
            if isinstance(after, EnvironmentTurn):
                try:
                    data = json.loads(after.content)
                except ValueError:
                    data = None
            yield turn.action, data


def foreign_items(spec: Tool, data: Any, records: Mapping[str, Record]) -> bool:
    field = list_field(spec)
    if field is None or not isinstance(data, dict) or not isinstance(data.get(field), list):
        return False
    items = (spec.returns.get("properties") or {})[field].get("items") or {}
    wanted = set(items.get("properties") or {}) - {"id", "name"}
    fit: dict[str, int] = {}
    for item in data[field]:
        shown = [records[v] for v in item.values() if isinstance(v, str) and v in records][:1]
        for record in shown if isinstance(item, dict) else ():
            family = record.id.split("_")[0]
            fit[family] = max(fit.get(family, 0), len(wanted & set(record.attributes)))
    return bool(fit) and max(fit.values()) >= 2 and min(fit.values()) == 0


def zero_count_beside_verdict(record: Mapping[str, Any]) -> bool:
    for key, value in record.items():
        words = set(tokens(key))
        if value == 0 and "count" in words and words & _COUNTED:
            stem = words & _COUNTED
            for other, given in record.items():
                if other != key and given not in (None, "", [], 0):
                    near = set(tokens(other))
                    if near & _VERDICTS and (near & stem or near & {"rating", "average"}):
                        return True
    return False


def _places(records: Sequence[Record]) -> set[str]:
    kept = {
        str(v).lower()
        for r in records
        for k, v in r.attributes.items()
        if isinstance(v, str) and set(tokens(k)) & PLACE_KEYS
    }
    return kept | {r.name.lower() for r in records if is_place(r)}


def description_as_place(key: str, value: Any, names: set[str], places: set[str]) -> bool:
    if not isinstance(value, str) or not set(tokens(key)) & _PLACES:
        return False
    lowered = value.lower()
    return lowered in names and lowered not in places and not names_room(value.split())


def _lists(value: Any) -> Iterable[list[Any]]:
    for obj in objects_in(value):
        yield from (v for v in obj.values() if isinstance(v, list) and v)


def _misranked(place: int, item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    return any(isinstance(item.get(k), int) and item[k] != place for k in ("rank", "position"))


def _figure(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def odd_values(obj: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    """The per-object classes: a catch-all kind, a file name with no extension, a subtotal
    off its total."""
    for key, value in obj.items():
        words = set(tokens(key))
        if words & {"type", "category", "class", "kind"} and value == "record":
            yield "catch_all_kinds_as_values", f"{key}={value}"
        if key in ("file_name", "filename") and isinstance(value, str) and "." not in value:
            yield "file_names_without_extension", f"{key}={value}"
    tax = next((obj[k] for k in ("vat", "tax", "tax_amount") if _figure(obj.get(k))), 0)
    subtotal, total = obj.get("subtotal"), obj.get("total")
    lines = any(isinstance(v, list) and v for v in obj.values())
    if not (_figure(subtotal) and _figure(total)) or lines:
        return
    if abs(subtotal + tax - total) > 0.02:
        yield "subtotals_off_total", f"subtotal {subtotal} + tax {tax} != total {total}"


def denies_itself(tool: Tool, data: Any) -> bool:
    if tool.side_effect == "none" or not isinstance(data, dict) or "error" in data:
        return False
    done = {f"{v}d" if v.endswith("e") else f"{v}ed" for v in tokens(tool.name) if len(v) >= 4}
    return any(v is False and set(tokens(k)) & done for k, v in data.items())


def word_runs(text: str, n: int = 8) -> set[tuple[str, ...]]:
    words = re.findall(r"[\w'-]+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def instruction_openings(text: str, n: int = 8) -> set[tuple[str, ...]]:
    """The first eight words of each sentence or clause the user wrote: where the instruction
    to the agent is ('Reply in the failover thread …'). Words the user dictated for the text
    come after it and may be repeated as they are, as may words quoted ('text "…"')."""
    text = re.sub(r'"[^"\n]{12,}"|“[^”\n]{12,}”', " ", text)
    clauses = re.split(r"(?<=[.!?;])\s+|,\s+(?:then|and then)\s+|\n+", text)
    # what the user states ('The engineer swapped the ONT.') is a note's to keep as said
    asked = (c for c in clauses if c.rstrip().endswith("?") or asks_agent(c))
    starts = (re.findall(r"[\w'-]+", clause.lower())[:n] for clause in asked)
    return {tuple(words) for words in starts if len(words) == n}


def repeats_a_field(answer: str, fields: set[str]) -> bool:
    for field in fields:
        said = re.findall(rf"(?i){_OPENS}{re.escape(field)}:? [-\d]", answer)
        if len(said) >= 2:
            return True
    return False


def realism_figures(trajectories: Sequence[Trajectory], pool: ToolPool) -> dict[str, Any]:
    counts = dict.fromkeys(
        [
            "foreign_listing_items",
            "zero_counts_beside_verdict",
            "fractional_order_quantities",
            "descriptions_as_places",
            "writes_denying_themselves",
            "catch_all_kinds_as_values",
            "ranks_out_of_place",
            "file_names_without_extension",
            "subtotals_off_total",
            "answers_repeating_a_field",
            "texts_pasting_the_request",
        ],
        0,
    )
    examples: dict[str, list[str]] = {k: [] for k in counts}

    def count(kind: str, traj: Trajectory, what: str) -> None:
        counts[kind] += 1
        examples[kind].append(f"{traj.id}: {what}"[:160])

    for traj in trajectories:
        world = traj.world.records if traj.world is not None else ()
        records = {r.id: r for r in world}
        names = {r.name.lower() for r in world}
        names |= {" ".join(r.name.split()[:-1]).lower() for r in world if " " in r.name}
        places = _places(world)
        fields: set[str] = set()
        said = [t.content for t in traj.turns if isinstance(t, UserTurn)]
        told = set().union(*(instruction_openings(text) for text in said))
        for call, data in _calls(traj):
            for key, value in call.arguments.items():
                if writes_as_text(key) and isinstance(value, str) and word_runs(value) & told:
                    count("texts_pasting_the_request", traj, f"{call.name}.{key}={value[:80]}")
                number = isinstance(value, int | float) and not isinstance(value, bool)
                if number and set(tokens(key)) & _ORDERED and 0 < value < 1:
                    count("fractional_order_quantities", traj, f"{call.name}.{key}={value}")
            if data is None:
                continue
            if call.name in pool and foreign_items(pool[call.name], data, records):
                count("foreign_listing_items", traj, call.name)
            if call.name in pool and denies_itself(pool[call.name], data):
                count("writes_denying_themselves", traj, f"{call.name}: {json.dumps(data)[:80]}")
            for listed in _lists(data):
                if any(_misranked(place, item) for place, item in enumerate(listed, start=1)):
                    count("ranks_out_of_place", traj, call.name)
            for obj in objects_in(data):
                fields |= {k.replace("_", " ") for k in obj if len(k) >= 3}
                for kind, what in odd_values(obj):
                    count(kind, traj, what)
                if zero_count_beside_verdict(obj):
                    count("zero_counts_beside_verdict", traj, json.dumps(obj)[:120])
                for key, value in obj.items():
                    if description_as_place(key, value, names, places):
                        count("descriptions_as_places", traj, f"{key}={value}")
        answers = [
            t.action.response
            for t in traj.turns
            if isinstance(t, AgentTurn) and isinstance(t.action, FinalAnswer)
        ]
        if answers and repeats_a_field(answers[-1], fields):
            count("answers_repeating_a_field", traj, answers[-1][:140])
    return {**counts, "examples": {k: v[:4] for k, v in examples.items()}}
