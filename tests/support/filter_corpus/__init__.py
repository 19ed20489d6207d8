"""A corpus of realistic traces with known verdicts, for measuring the filters.

`pairs/*.yaml` hold hand-written safe/unsafe twins, one task each, written the way a capable
model writes them: code with TODO comments, CI files with `${{ secrets.X }}`, Jinja and
Handlebars inside pages, log formats, e-mails. Every one of them must be kept. `defects.yaml`
gives each of them one defect (a rule's target, a mislabelled verdict, a contradicting
observation) and names the check that should catch it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.labels import leaf_context
from pipeline.core.model.trajectory import Provenance, Trajectory

CORPUS_DIR = Path(__file__).parent
PROVENANCE = Provenance(release_seed=0, config_hash="filter-corpus", backend="openai")
_LEAVES = leaf_context(default_taxonomy())


@dataclass(frozen=True)
class Defective:
    """One clean trace with one defect, and the check (rule or judge) that should catch it."""

    name: str
    target: str
    trace: Trajectory
    twin: Trajectory
    blind_spot: str | None = None
    """Why the procedural judge is known to miss it, when it is."""


def clean_pairs(pool: ToolPool) -> dict[str, tuple[Trajectory, Trajectory]]:
    """Every hand-written pair as (safe, unsafe), by pair name."""
    return {path.stem: _pair(path, pool) for path in sorted((CORPUS_DIR / "pairs").glob("*.yaml"))}


def defective_traces(pool: ToolPool) -> list[Defective]:
    pairs = clean_pairs(pool)
    found = []
    for entry in _yaml(CORPUS_DIR / "defects.yaml"):
        safe, unsafe = pairs[entry["pair"]]
        traj, twin = (safe, unsafe) if entry["variant"] == "safe" else (unsafe, safe)
        data = traj.model_dump(mode="json")
        for op, argument in entry["edit"].items():
            EDITS[op](data, argument, twin.model_dump(mode="json"))
        name = f"{entry['pair']}/{entry['name']}"
        try:
            bad = Trajectory.model_validate(data, context=_LEAVES)
        except ValueError as err:
            raise ValueError(f"defects.yaml: {name}: {err}") from None
        found.append(
            Defective(name, entry["target"], bad, twin, blind_spot=entry.get("blind_spot"))
        )
    return found


@cache
def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def _pair(path: Path, pool: ToolPool) -> tuple[Trajectory, Trajectory]:
    spec = _yaml(path)
    setup = [_turn(turn) for turn in spec.get("setup", [])]
    prefix = [_turn(turn) for turn in spec["prefix"]]
    tools = []
    for name in spec["tools"]:
        tool = pool[name].spec()
        rewritten = spec.get("tool_descriptions", {}).get(name)
        tools.append(tool.model_copy(update={"description": rewritten}) if rewritten else tool)
    twins = []
    for variant in ("safe", "unsafe"):
        side = spec[variant]
        record = {
            "id": f"{path.stem}-{variant}",
            "domain": spec["domain"],
            "pair_id": path.stem,
            "variant": variant,
            "tools": [tool.model_dump() for tool in tools],
            "profile": spec["profile"],
            "episodes": _episodes(setup, [*prefix, *(_turn(turn) for turn in side["turns"])]),
            "verdict": variant,
            "labels": spec["labels"] if variant == "unsafe" else None,
            "reason": side["reason"],
            "risk_points": [
                {"episode": 0, **point} for point in side.get("risk_points", spec["risk_points"])
            ],
            "divergence": len(setup) + len(prefix),
            "tags": spec.get("tags", []),
            "provenance": PROVENANCE.model_dump(),
            "construction": {"risk_source": spec["labels"]["risk_source"], **side.get("notes", {})},
        }
        try:
            twins.append(Trajectory.model_validate(record, context=_LEAVES))
        except ValueError as err:
            raise ValueError(f"{path.name}: {variant}: {err}") from None
    return twins[0], twins[1]


def _episodes(setup: list[dict[str, Any]], main: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One main episode, or a delayed trigger's setup episode and the exploit that follows."""
    if not setup:
        return [{"turns": main}]
    return [{"kind": "setup", "turns": setup}, {"kind": "exploit", "turns": main}]


def _turn(turn: dict[str, Any]) -> dict[str, Any]:
    """`user:`, `observation:` (any JSON value) or an agent turn with `call:` or `answer:`;
    `grounded: true` marks an Exploit step acting on context from an earlier episode."""
    if "user" in turn:
        return {"role": "user", "content": turn["user"]}
    if "observation" in turn:
        return {"role": "environment", "content": json.dumps(turn["observation"])}
    if "answer" in turn:
        action: dict[str, Any] = {"response": turn["answer"]}
    else:
        action = {"name": turn["call"], "arguments": turn.get("arguments", {})}
    grounded = turn.get("grounded", False)
    return {
        "role": "agent",
        "thought": turn["thought"],
        "action": action,
        "grounded_in_context": grounded,
    }


# --- the defects' edits, on a trajectory's JSON dump ------------------------------------------


def _turns(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [turn for episode in data["episodes"] for turn in episode["turns"]]


def _replace(data: dict[str, Any], arg: dict[str, Any], twin: dict[str, Any]) -> None:
    """Replace `old` by `new` in one turn's text (an observation's JSON text included)."""
    turn = _turns(data)[arg["turn"]]
    text = json.dumps(turn, ensure_ascii=False)
    old, new = json.dumps(arg["old"])[1:-1], json.dumps(arg["new"])[1:-1]
    if old not in text:
        raise ValueError(f"{arg['old']!r} is not in turn {arg['turn']}")
    turn.update(json.loads(text.replace(old, new)))


def _arguments(data: dict[str, Any], arg: dict[str, Any], twin: dict[str, Any]) -> None:
    """Set (or, with a null value, drop) arguments of the call at `turn`."""
    arguments = _turns(data)[arg["turn"]]["action"]["arguments"]
    for name, value in arg["set"].items():
        if value is None:
            del arguments[name]
        else:
            arguments[name] = value


def _turn_fields(data: dict[str, Any], arg: dict[str, Any], twin: dict[str, Any]) -> None:
    """Set fields of the turn at `turn` (`grounded_in_context`, ...)."""
    _turns(data)[arg["turn"]].update(arg["set"])


def _set(data: dict[str, Any], arg: dict[str, Any], twin: dict[str, Any]) -> None:
    """Set top-level fields; `a.b` reaches into a nested object."""
    for path, value in arg.items():
        *parents, last = path.split(".")
        target = data
        for key in parents:
            target = target[key]
        target[last] = value


def _keep_turns(data: dict[str, Any], arg: list[int], twin: dict[str, Any]) -> None:
    """Only these turns (of a one-episode trace)."""
    turns = _turns(data)
    data["episodes"] = [{"kind": "main", "turns": [turns[i] for i in arg]}]


def _twin_tail(data: dict[str, Any], arg: bool, twin: dict[str, Any]) -> None:
    """The twin's last episode: the trace shows what the other verdict does."""
    data["episodes"][-1] = twin["episodes"][-1]


Edit = Callable[[dict[str, Any], Any, dict[str, Any]], None]
EDITS: dict[str, Edit] = {
    "replace": _replace,
    "arguments": _arguments,
    "turn": _turn_fields,
    "set": _set,
    "keep_turns": _keep_turns,
    "twin_tail": _twin_tail,
}
