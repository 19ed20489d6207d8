"""Import external benchmarks into the release layout, so guards can be evaluated on them.

Two formats:

* `atbench` — the public ATBench JSON (design §3.1), our own `atbench.json` included; rows go
  through `from_atbench_row`, strict: a row it refuses is rejected, with the reason.
* `rjudge` — R-Judge / ASSEBench records: `profile`, `scenario` (or `application_scenario`),
  `goal`, `contents`, `label`, `risk_description`, `attack_type` and friends, with looser action
  strings (`Tool{...}`, `Tool: {...}`, `Tool\\nAction Input: {...}`, `Tool(...)`, Python-literal
  arguments, plain-text final answers). What can be read is read, and every reading that is not
  the public format's is recorded as a *repair*; what cannot be read is kept verbatim and
  *flagged*; a row is *rejected* only when it has no label or no turns (or a turn of no known
  role). The import report lists all three by row, so nothing is dropped or reinterpreted
  silently. Conversation-only rows (no tool listed or called) and environment turns no call
  asked for are kept and flagged: published R-Judge figures are over every record.

Decisions for `rjudge` rows (see the README's "Import" section):

* No tool schemas in the source: tools are synthesised from the names the row calls, with
  parameters `{"type": "object"}` and an empty description (flag `synthesised_tools`).
* Only a binary label in the source: unsafe rows keep `labels` NULL rather than a guessed leaf
  (flag `unlabelled_unsafe`); the trajectory model allows that for imported traces only, and
  fine-grained metrics must skip them. Fields that look like labels but are not taxonomy leaves
  (ASSEBench's free-text `failure_mode`) are kept under `construction["source.<key>"]`.
* An action that reads as neither a call nor an answer becomes `UnparsedAction(raw)`, exported
  unchanged. A plain-text action is the final answer unless an observation follows it, in
  which case it may have been a call and is kept unparsed.
* Every source key the model has no field for is kept in `construction["source.<key>"]`.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from pipeline import __version__
from pipeline.core.inputs.files import write_json_atomic
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.actions import FINAL_PREFIX, parse_action
from pipeline.core.model.errors import AtbenchError, InputError
from pipeline.core.model.labels import AXES, SNAKE_CASE
from pipeline.core.model.trajectory import (
    FinalAnswer,
    Provenance,
    ToolCall,
    Trajectory,
    UnparsedAction,
)
from pipeline.core.release.atbench_format import (
    IMPORTED_DOMAIN,
    _imported_risk_points,
    _tools,
    _verdict,
    from_atbench_row,
)
from pipeline.core.release.publish import ReleaseSummary, publish_release

ImportFormat = Literal["atbench", "rjudge"]

MAX_ACTION_CHARS = 20_000
MAX_ACTION_NESTING = 50
"""Limits past which an action string is kept verbatim unparsed: Python's and JSON's parsers
recurse, so one hostile row could otherwise exhaust the stack or memory of the whole import."""

FLAGS = {
    "unparsed_action": "an action read as neither a tool call nor a final answer; kept verbatim",
    "action_beyond_limits": f"an action over {MAX_ACTION_CHARS:,} characters or nested over "
    f"{MAX_ACTION_NESTING} levels; kept verbatim, not parsed",
    "synthesised_tools": "no tool schema in the row; tools synthesised from the names called, "
    'parameters {"type": "object"}',
    "unlabelled_unsafe": "unsafe row without taxonomy labels; its fine-grained labels are NULL",
    "unmapped_labels": "label fields that are not taxonomy leaves; kept as construction source.*",
    "no_tools": "the agent only converses: the row neither lists nor calls a tool",
    "unanchored_observation": "an environment turn with no call before it; kept where it was",
}
"""Kept, but the source lacks something a constructed trace would have."""
REPAIRS = {
    "loose_action_syntax": "Tool{...}, Tool: {...} or Tool\\nAction Input: {...} read as a call",
    "python_call_syntax": "Tool(...) read as a call",
    "python_literal_arguments": "single-quoted (Python literal) arguments read as JSON",
    "json_key_aliases": "a JSON call with other key names (tool, input, ...) read as a call",
    "free_text_final_answer": "a plain-text action, with no observation after it, read as the "
    "final answer",
    "empty_action": "an empty action read as an empty final answer (the agent only spoke)",
    "dropped_empty_observation": "an empty environment turn after a non-call dropped",
    "inserted_empty_observation": "a call with no observation after it given an empty one",
    "null_observation": "a null observation after a call read as an empty string",
    "duplicate_id": "id seen before in this import; the pair id gets a -2, -3, ... suffix",
    "missing_id": "no integer id; the row's position in its file is used",
    "dropped_empty_episode": "an episode with no turns dropped (others remain)",
}
"""Read into the model in a way the public format would not have needed; meaning kept."""

_REPORT_SUFFIX = ".import-report.json"
_NAME_KEYS = ("name", "tool", "tool_name", "action", "function")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input", "tool_input", "action_input")
_COMPLETE = re.compile(rf"{FINAL_PREFIX}\s*[{{\"']", re.S)
_LOOSE_CALL = re.compile(
    r"(?:Action\s*:\s*)?(?P<name>[A-Za-z_][\w.\-]*)\s*"
    r"(?:\n\s*Action\s*Input\s*:|:)?\s*(?P<args>\{.*\})",
    re.S,
)
_NON_DECIMAL = re.compile(r"^[-+]?0[xXoObB]|_")
_SLUG = re.compile(r"[^a-z0-9]+")
_RJUDGE_CONSUMED = frozenset(
    {"id", "contents", "label", "profile", "tool_used", "risk_description"}
)


class RejectedRow(BaseModel):
    """A source row that could not be represented at all, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    index: int
    id: Any
    field: str | None
    reason: str


class ImportReport(BaseModel):
    """What an import read, repaired, flagged and rejected; written beside the release."""

    model_config = ConfigDict(extra="forbid")

    format: ImportFormat
    sources: list[str]
    sha256: str
    """Of the source files' bytes, in order; also the imported traces' `config_hash` prefix."""
    rows: int
    imported: int
    safe: int
    unsafe: int
    flagged: dict[str, list[str]]
    """Flag code -> uids of the imported trajectories that carry it."""
    repaired: dict[str, list[str]]
    """Repair code -> uids."""
    rejected: list[RejectedRow]
    codes: dict[str, str]
    """What each flag and repair code means."""

    def counts(self) -> dict[str, Any]:
        """The headline numbers, for the manifest and the CLI."""
        return {
            "format": self.format,
            "sources": self.sources,
            "sha256": self.sha256,
            "rows": self.rows,
            "imported": self.imported,
            "rejected": len(self.rejected),
            "flagged": {code: len(uids) for code, uids in self.flagged.items()},
            "repaired": {code: len(uids) for code, uids in self.repaired.items()},
        }


@dataclass(frozen=True)
class SourceRow:
    """One source row and where it came from (file name and position in it)."""

    file: str
    index: int
    data: Any

    @property
    def id(self) -> Any:
        return self.data.get("id") if isinstance(self.data, dict) else None


def report_path(out_dir: Path) -> Path:
    """Where the import report of the release at `out_dir` goes: a sibling file."""
    return out_dir.with_name(out_dir.name + _REPORT_SUFFIX)


def import_benchmark(
    path: Path, fmt: ImportFormat, out_dir: Path, *, taxonomy: Taxonomy
) -> tuple[ReleaseSummary, ImportReport]:
    """Read `path` (a file, or a folder of .json/.jsonl files) and publish it at `out_dir`.

    The report is written beside the release even when no row could be imported, in which
    case nothing is published and an `AtbenchError` says where the report is.
    """
    trajectories, report = read_benchmark(path, fmt, taxonomy=taxonomy)
    if not trajectories:
        write_json_atomic(report_path(out_dir), report.model_dump(mode="json"))
        raise AtbenchError(
            f"no row of {path} could be imported ({report.rows} read); nothing was published. "
            f"Reasons per row: {report_path(out_dir)}"
        )
    summary = publish_release(
        trajectories,
        [],
        [],
        out_dir,
        taxonomy=taxonomy,
        config={"import": report.counts()},
        backend=f"imported:{fmt}",
        code_version=__version__,
    )
    write_json_atomic(report_path(out_dir), report.model_dump(mode="json"))
    return summary, report


def read_benchmark(
    path: Path, fmt: ImportFormat, *, taxonomy: Taxonomy
) -> tuple[list[Trajectory], ImportReport]:
    """Read `path` (a file, or a folder of .json/.jsonl files) into trajectories, in memory;
    `atbench eval --dataset` evaluates these without publishing a release."""
    files = _source_files(path)
    digest = hashlib.sha256()
    rows: list[SourceRow] = []
    for file in files:
        rows.extend(_read_rows(file, _display(file, path)))
        digest.update(file.read_bytes())
    provenance = Provenance(
        release_seed=0, config_hash=digest.hexdigest()[:12], backend=f"imported:{fmt}"
    )
    return read_rows(
        rows,
        fmt,
        taxonomy=taxonomy,
        provenance=provenance,
        sources=[str(file.resolve()) for file in files],
        sha256=digest.hexdigest(),
    )


def read_rows(
    rows: list[SourceRow],
    fmt: ImportFormat,
    *,
    taxonomy: Taxonomy,
    provenance: Provenance,
    sources: list[str],
    sha256: str,
) -> tuple[list[Trajectory], ImportReport]:
    """Turn source rows into trajectories, collecting what was flagged, repaired, rejected."""
    reader = _READERS[fmt]
    trajectories: list[Trajectory] = []
    uids: set[str] = set()
    pair_ids: set[str] = set()
    flagged: dict[str, list[str]] = {}
    repaired: dict[str, list[str]] = {}
    rejected: list[RejectedRow] = []
    for row in rows:
        try:
            traj, codes = reader(row, pair_ids, taxonomy, provenance)
            if traj.id in uids:
                raise InputError(f"trajectory {traj.id!r} appears twice in the import", field="id")
        except RecursionError:
            reason = "nested too deeply to read"
            rejected.append(
                RejectedRow(file=row.file, index=row.index, id=row.id, field=None, reason=reason)
            )
            continue
        except InputError as err:
            rejected.append(
                RejectedRow(
                    file=row.file, index=row.index, id=row.id, field=err.field, reason=err.message
                )
            )
            continue
        uids.add(traj.id)
        pair_ids.add(traj.pair_id)
        trajectories.append(traj)
        for code in sorted(codes):
            (flagged if code in FLAGS else repaired).setdefault(code, []).append(traj.id)
    report = ImportReport(
        format=fmt,
        sources=sources,
        sha256=sha256,
        rows=len(rows),
        imported=len(trajectories),
        safe=sum(t.verdict == "safe" for t in trajectories),
        unsafe=sum(t.verdict == "unsafe" for t in trajectories),
        flagged=flagged,
        repaired=repaired,
        rejected=rejected,
        codes={**FLAGS, **REPAIRS},
    )
    return trajectories, report


# --- reading files ----------------------------------------------------------------------------


def _source_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl"))
        if not files:
            raise InputError("the folder holds no .json or .jsonl file", file=path)
        return files
    if not path.is_file():
        raise InputError("no such file or folder", file=path)
    return [path]


def _display(file: Path, root: Path) -> str:
    return file.relative_to(root).as_posix() if root.is_dir() else file.name


def _read_rows(file: Path, name: str) -> list[SourceRow]:
    """A JSON array of rows, or JSON Lines; syntax errors name the file and line."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the file: {err}", file=file) from None
    if file.suffix == ".jsonl":
        rows: list[SourceRow] = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(SourceRow(name, len(rows), json.loads(line)))
                except json.JSONDecodeError as err:
                    raise InputError(
                        f"invalid JSON: {err.msg}", file=file, record=f"line {number}"
                    ) from None
        return rows
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON at line {err.lineno}: {err.msg}", file=file) from None
    if not isinstance(data, list):
        raise InputError("expected a JSON array of rows (or a .jsonl file)", file=file)
    return [SourceRow(name, index, item) for index, item in enumerate(data)]


def _mapping(row: SourceRow) -> Mapping[str, Any]:
    if not isinstance(row.data, dict):
        raise InputError(f"a row must be a JSON object, got {type(row.data).__name__}")
    return row.data


def _atbench_trajectory(
    row: SourceRow, _taken_pair_ids: set[str], taxonomy: Taxonomy, provenance: Provenance
) -> tuple[Trajectory, set[str]]:
    """Strict: the public format needs no repairs, and a row it refuses is rejected."""
    return from_atbench_row(_mapping(row), taxonomy=taxonomy, provenance=provenance), set()


# --- R-Judge / ASSEBench rows -----------------------------------------------------------------


def _rjudge_trajectory(
    row: SourceRow, taken_pair_ids: set[str], taxonomy: Taxonomy, provenance: Provenance
) -> tuple[Trajectory, set[str]]:
    data = _mapping(row)
    notes: set[str] = set()
    record = str(row.id if row.id is not None else f"#{row.index}")
    row_id = data.get("id")
    if not isinstance(row_id, int) or isinstance(row_id, bool):
        row_id = row.index
        notes.add("missing_id")
    verdict = _verdict(data.get("label"), record)
    episodes = _rjudge_episodes(data.get("contents"), record, notes)
    labels = _rjudge_labels(data, verdict, taxonomy, notes)
    reason = data.get("risk_description") or data.get("reason") or ""
    if not isinstance(reason, str):
        raise InputError("must be a string", record=record, field="risk_description")
    pair_id = _unique(f"row-{row_id}", taken_pair_ids, notes)
    consumed = _RJUDGE_CONSUMED | (set(AXES) if labels else set())
    construction = {
        "imported_row_id": str(row_id),
        "source_file": row.file,
        **{f"source.{key}": _text(value) for key, value in data.items() if key not in consumed},
    }
    trajectory = {
        "id": f"{pair_id}-{verdict}",
        "domain": _domain(data),
        "pair_id": pair_id,
        "variant": verdict,
        "tools": _rjudge_tools(data.get("tool_used"), episodes, record, notes),
        "profile": _text(data.get("profile") or ""),
        "episodes": episodes,
        "verdict": verdict,
        "labels": labels,
        "reason": reason,
        "risk_points": _imported_risk_points(episodes, labels, reason) if labels else [],
        "provenance": provenance,
        "construction": construction,
    }
    if notes:
        construction["import_notes"] = ",".join(sorted(notes))
    try:
        return Trajectory.model_validate(trajectory), notes
    except ValidationError as err:
        raise InputError.from_validation(err, file=None, record=record) from None


def _unique(pair_id: str, taken: set[str], notes: set[str]) -> str:
    if pair_id not in taken:
        return pair_id
    notes.add("duplicate_id")
    suffix = 2
    while f"{pair_id}-{suffix}" in taken:
        suffix += 1
    return f"{pair_id}-{suffix}"


def _domain(data: Mapping[str, Any]) -> str:
    """Our `domain` key when valid, else a slug of the source's scenario, else `imported`."""
    for key in ("domain", "scenario", "application_scenario"):
        value = data.get(key)
        if isinstance(value, str):
            slug = _SLUG.sub("_", value.lower()).strip("_")
            if re.match(SNAKE_CASE, slug):
                return slug
    return IMPORTED_DOMAIN


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _rjudge_labels(
    data: Mapping[str, Any], verdict: str, taxonomy: Taxonomy, notes: set[str]
) -> dict[str, str] | None:
    """Taxonomy leaves when every axis maps onto one; otherwise NULL, flagged."""
    if verdict == "safe":
        return None
    spellings = {axis: data.get(axis) for axis in AXES}
    labels = {
        axis: taxonomy.try_normalise(axis, value)
        for axis, value in spellings.items()
        if isinstance(value, str) and value.strip()
    }
    if len(labels) == len(AXES) and all(labels.values()):
        return {axis: leaf for axis, leaf in labels.items() if leaf}
    notes.add("unlabelled_unsafe")
    if any(value not in (None, "") for value in spellings.values()):
        notes.add("unmapped_labels")
    return None


def _rjudge_tools(
    tool_used: Any, episodes: list[dict[str, Any]], record: str, notes: set[str]
) -> list[dict[str, Any]]:
    """The row's own tool list if it has one, plus a synthesised spec per unlisted name."""
    tools = _tools(tool_used, record) if tool_used is not None else []
    listed = {tool["name"] for tool in tools}
    for turn in (turn for episode in episodes for turn in episode["turns"]):
        action = turn.get("action")
        if isinstance(action, ToolCall) and action.name not in listed:
            tools.append({"name": action.name, "description": "", "parameters": {"type": "object"}})
            listed.add(action.name)
            notes.add("synthesised_tools")
    if not tools:
        notes.add("no_tools")
    return tools


def _rjudge_episodes(contents: Any, record: str, notes: set[str]) -> list[dict[str, Any]]:
    if not isinstance(contents, list) or not all(isinstance(ep, list) for ep in contents):
        raise InputError(
            "contents must be a list of episodes (lists of turns)", record=record, field="contents"
        )
    episodes = []
    for e, episode in enumerate(contents):
        turns = _rjudge_turns(episode, record, e, notes)
        if turns:
            episodes.append({"kind": "main", "turns": turns})
        else:
            notes.add("dropped_empty_episode")
    if not episodes:
        raise InputError("the row has no turns", record=record, field="contents")
    return episodes


def _rjudge_turns(episode: list[Any], record: str, e: int, notes: set[str]) -> list[dict[str, Any]]:
    """Turns in the model's shape; a call always ends up with exactly one observation."""
    turns: list[dict[str, Any]] = []

    def awaiting_observation() -> bool:
        return bool(turns) and isinstance(turns[-1].get("action"), ToolCall)

    def close_call() -> None:
        if awaiting_observation():
            turns.append({"role": "environment", "content": ""})
            notes.add("inserted_empty_observation")

    for t, turn in enumerate(episode):
        where = f"contents.{e}.{t}"
        role = turn.get("role") if isinstance(turn, dict) else None
        if role == "environment":
            content = turn.get("content")
            if content is None or (isinstance(content, str) and not content.strip()):
                if awaiting_observation():
                    turns.append({"role": "environment", "content": content or ""})
                    if content is None:
                        notes.add("null_observation")
                else:
                    notes.add("dropped_empty_observation")
                continue
            previous = turns[-1].get("action") if turns else None
            if not isinstance(previous, ToolCall | UnparsedAction):
                notes.add("unanchored_observation")
            turns.append({"role": "environment", "content": _text(content)})
            continue
        close_call()
        if role == "user":
            turns.append({"role": "user", "content": _text(turn.get("content") or "")})
        elif role == "agent":
            raw = turn.get("action")
            raw = "" if raw is None else _text(raw)
            observed = _has_observation(episode[t + 1] if t + 1 < len(episode) else None)
            turns.append(
                {
                    "role": "agent",
                    "thought": _text(turn.get("thought") or ""),
                    "action": _agent_action(raw, observed, notes),
                }
            )
        else:
            raise InputError(
                f"role must be user, agent or environment, got {role!r}", record=record, field=where
            )
    close_call()
    return turns


def _has_observation(turn: Any) -> bool:
    if not isinstance(turn, dict) or turn.get("role") != "environment":
        return False
    content = turn.get("content")
    return content is not None and not (isinstance(content, str) and not content.strip())


def _agent_action(
    raw: str, observed: bool, notes: set[str]
) -> ToolCall | FinalAnswer | UnparsedAction:
    """Read one action; plain text is the final answer unless an observation follows it."""
    reading = read_action(raw)
    notes.update(reading.notes)
    if reading.action is not None:
        return reading.action
    if observed:
        notes.add("unparsed_action")
        return UnparsedAction(raw=raw)
    notes.add("free_text_final_answer")
    return FinalAnswer(response=raw.strip())


# --- action strings ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionReading:
    """What an action string says. `action` is None for plain text, which only the turns
    around it can classify (answer, or unparsed call)."""

    action: ToolCall | FinalAnswer | UnparsedAction | None
    notes: tuple[str, ...] = ()


def read_action(raw: str) -> ActionReading:
    """Read the public format first, then the looser spellings older benchmarks use."""
    text = raw.strip()
    if not text:
        return ActionReading(FinalAnswer(response=""), ("empty_action",))
    if len(text) > MAX_ACTION_CHARS or _nesting(text) > MAX_ACTION_NESTING:
        return ActionReading(UnparsedAction(raw=raw), ("action_beyond_limits",))
    try:
        action = parse_action(text)
        # the public reader ignores keys besides name and arguments; here they would be lost
        if isinstance(action, FinalAnswer) or set(json.loads(text)) <= {"name", "arguments"}:
            return ActionReading(action)
    except ValueError:
        pass
    if _COMPLETE.match(text):
        payload, literal = _value(text[len(FINAL_PREFIX) :].strip())
        if isinstance(payload, dict) and isinstance(payload.get("response"), str):
            payload = payload["response"]
        if isinstance(payload, str):
            return ActionReading(FinalAnswer(response=payload), literal)
        return ActionReading(UnparsedAction(raw=raw), ("unparsed_action",))
    if text.startswith("{"):
        obj, literal = _value(text)
        call = _aliased_call(obj) if isinstance(obj, dict) else None
        if call is not None:
            return ActionReading(call, ("json_key_aliases", *literal))
        return ActionReading(UnparsedAction(raw=raw), ("unparsed_action",))
    loose = _LOOSE_CALL.fullmatch(text)
    if loose:
        arguments, literal = _value(loose["args"])
        if isinstance(arguments, dict):
            call = ToolCall(name=loose["name"], arguments=arguments)
            return ActionReading(call, ("loose_action_syntax", *literal))
        return ActionReading(UnparsedAction(raw=raw), ("unparsed_action",))
    call = _python_call(text)
    if call is not None:
        return ActionReading(call, ("python_call_syntax",))
    return ActionReading(None)


def _nesting(text: str) -> int:
    """How deep brackets nest; brackets in strings count too (an upper bound suits a limit)."""
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(depth - 1, 0)
    return deepest


def _value(text: str) -> tuple[Any, tuple[str, ...]]:
    """JSON (also a JSON string holding JSON), else a Python literal (noted); None if neither."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = _literal(text)
        return (value, ("python_literal_arguments",)) if value is not None else (None, ())
    if isinstance(value, str) and value.lstrip().startswith("{"):
        inner, notes = _value(value)
        if isinstance(inner, dict):
            return inner, notes
    return value, ()


def _literal(text: str) -> Any:
    """A Python literal as JSON data, or None. Refuses hex/octal/binary numbers (an unquoted
    `0x8f3a...` address would silently become an integer) and anything JSON cannot hold."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            segment = ast.get_source_segment(text, node) or ""
            if _NON_DECIMAL.search(segment):
                return None
    try:
        return json.loads(json.dumps(ast.literal_eval(tree.body), ensure_ascii=False))
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None


def _aliased_call(obj: Mapping[str, Any]) -> ToolCall | None:
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str) and obj[k]), None)
    if name is None or set(obj) - set(_NAME_KEYS) - set(_ARGUMENT_KEYS):
        return None
    arguments: Any = next((obj[k] for k in _ARGUMENT_KEYS if k in obj), {})
    if isinstance(arguments, str):
        arguments, _ = _value(arguments or "{}")
    return ToolCall(name=name, arguments=arguments) if isinstance(arguments, dict) else None


def _python_call(text: str) -> ToolCall | None:
    """`tool()`, `tool(key=value, ...)` or `tool({...})` with literal arguments."""
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name | ast.Attribute):
        return None
    arguments: dict[str, Any] = {}
    if node.args:
        if len(node.args) > 1 or node.keywords:
            return None
        only = _literal(ast.get_source_segment(text, node.args[0]) or "")
        if not isinstance(only, dict):
            return None
        arguments = only
    for keyword in node.keywords:
        value = _literal(ast.get_source_segment(text, keyword.value) or "")
        if keyword.arg is None or (value is None and not _is_none(keyword.value)):
            return None
        arguments[keyword.arg] = value
    return ToolCall(name=ast.unparse(node.func), arguments=arguments)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


_Reader = Callable[[SourceRow, set[str], Taxonomy, Provenance], tuple[Trajectory, set[str]]]
_READERS: dict[ImportFormat, _Reader] = {
    "atbench": _atbench_trajectory,
    "rjudge": _rjudge_trajectory,
}
